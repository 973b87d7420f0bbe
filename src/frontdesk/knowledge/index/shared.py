"""What the SQLite and PostgreSQL indexes read and write alike: the documents of a site,
its chunk count and the embedding cache, all on the same tables and in portable SQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import Engine, text

from frontdesk.knowledge.index.base import (
    StoredDocument,
    Vector,
    read_cached_vectors,
    read_documents,
    write_cached_vectors,
)


class SharedRows:
    """The `KnowledgeIndex` methods both backends implement the same way."""

    engine: Engine

    def list_documents(self, site_id: str) -> list[StoredDocument]:
        with self.engine.connect() as conn:
            return read_documents(conn, site_id)

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
