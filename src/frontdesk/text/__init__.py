"""Text tools below every domain package: a message's language, stop words, stemmed
terms, and the interface of an embedding model. Imports nothing else from Frontdesk."""
