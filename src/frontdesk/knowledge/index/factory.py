"""Which index a store engine gets.

- SQLite store → `SqliteKnowledgeIndex` in the same database (the embedded default).
- PostgreSQL store with pgvector (revision 0004 added the vector columns) →
  `PostgresKnowledgeIndex`, shared by every replica.
- PostgreSQL store without pgvector → the knowledge index stays in SQLite, at
  `FRONTDESK_KNOWLEDGE_URL` or `<data_dir>/knowledge.db`, with a warning: conversations,
  leads and checkpoints are still shared, the knowledge is per data folder (ingest it
  where each replica can read it).
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine

from frontdesk.knowledge.index.base import KnowledgeIndex
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex

log = logging.getLogger(__name__)

_fallbacks: dict[str, Engine] = {}
_lock = threading.Lock()


def index_for(engine: Engine) -> KnowledgeIndex:
    """The knowledge index that belongs with the store behind `engine`."""
    if engine.dialect.name == "sqlite":
        return SqliteKnowledgeIndex(engine)
    if engine.dialect.name == "postgresql":
        from frontdesk.knowledge.index.postgres import PostgresKnowledgeIndex, has_pgvector

        if has_pgvector(engine):
            from frontdesk.settings import get_settings

            return PostgresKnowledgeIndex(engine, ef_search=get_settings().hnsw_ef_search)
        log.warning("pgvector is not installed in this PostgreSQL: knowledge stays in SQLite")
    return SqliteKnowledgeIndex(_fallback_engine())


def _fallback_engine() -> Engine:
    from frontdesk.settings import get_settings
    from frontdesk.store import migrate
    from frontdesk.store.db import make_engine

    settings = get_settings()
    url = settings.knowledge_url or f"sqlite:///{settings.data_dir / 'knowledge.db'}"
    with _lock:
        engine = _fallbacks.get(url)
        if engine is None:
            engine = make_engine(url)
            migrate.upgrade(engine)
            _fallbacks[url] = engine
        return engine
