"""Retrieval: hybrid search, its query cache and title ranking, and what a site is about."""
