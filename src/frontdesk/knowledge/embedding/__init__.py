"""Embedding models: the `Embedder` interface and its local, e5 and remote implementations."""
