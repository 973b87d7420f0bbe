"""Embedding models (local e5 and MiniLM, remote) behind `frontdesk.text.embedding.Embedder`."""
