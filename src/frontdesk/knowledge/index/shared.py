"""What the SQLite and PostgreSQL indexes read and write alike: the documents of a site,
its chunk count and the embedding cache, all on the same tables and in portable SQL."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, text

from frontdesk.knowledge.index.base import (
    StoredDocument,
    Vector,
    read_cached_vectors,
    read_documents,
    vector_blob,
    write_cached_vectors,
)
from frontdesk.knowledge.models import Chunk


def check_aligned(chunks: Sequence[Chunk], vectors: Vector, lexical: Sequence[str]) -> None:
    """`replace_document`'s chunks, vectors and lexical texts go together, one per chunk."""
    if len(chunks) != len(vectors) or len(chunks) != len(lexical):
        raise ValueError("chunks, vectors and lexical texts must have the same length")


def chunk_row(
    site_id: str, doc_id: str, chunk: Chunk, embedding_model: str, vector: Vector
) -> dict[str, Any]:
    """The parameters of a `knowledge_chunks` row both backends write alike."""
    return {
        "site": site_id,
        "doc": doc_id,
        "chunk_id": chunk.chunk_id,
        "chunk_index": chunk.chunk_index,
        "title": chunk.title,
        "heading_path": json.dumps(list(chunk.heading_path), ensure_ascii=False),
        "content": chunk.content,
        "url": chunk.url,
        "source": chunk.source,
        "content_hash": chunk.content_hash,
        "language": chunk.language or None,
        "model": embedding_model,
        "embedding": vector_blob(vector),
    }


class SharedRows:
    """The `KnowledgeIndex` methods both backends implement the same way."""

    engine: Engine

    def list_documents(self, site_id: str) -> list[StoredDocument]:
        with self.engine.connect() as conn:
            return read_documents(conn, site_id)

    def index_keys(self, prefix: str) -> list[str]:
        with self.engine.connect() as conn:
            keys = conn.execute(
                text(
                    "SELECT DISTINCT site_id FROM knowledge_documents"
                    " WHERE substr(site_id, 1, :length) = :prefix ORDER BY site_id"
                ),
                {"length": len(prefix), "prefix": prefix},
            ).scalars()
            return list(keys)

    def chunk_count(self, site_id: str) -> int:
        with self.engine.connect() as conn:
            value = conn.execute(
                text("SELECT count(*) FROM knowledge_chunks WHERE site_id = :site"),
                {"site": site_id},
            ).scalar_one()
        return int(value)

    # -- embedding cache -------------------------------------------------------------
    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, Vector]:
        return read_cached_vectors(self.engine, model, hashes)

    def cache_vectors(self, model: str, vectors: Mapping[str, Vector]) -> None:
        write_cached_vectors(self.engine, model, vectors)
