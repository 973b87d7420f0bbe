"""Ingestion: loading files and pages, chunking, embedding and writing them to the index."""
