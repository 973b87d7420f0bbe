"""knowledge on PostgreSQL: HNSW graphs grow with ef_construction 128 instead of 64

Revision ID: 0016
Revises: 0015

Every `ix_knowledge_chunks_hnsw_<dim>` index (revision 0004's 384-dimension one, and any
`PostgresKnowledgeIndex._ensure_dim_index` created for another dimension) gets
`ef_construction = 128` as its option (benchmarks/RESULTS.md, "PostgreSQL HNSW").
pgvector reads the option from the index at every insert and every vacuum repair
(`HnswGetEfConstruction` in `HnswInsertTupleOnDisk` and `hnswvacuum.c`), so rows written
from now on are linked with the broader list; the graph already built is left as it is
(no rebuild here: `REINDEX INDEX CONCURRENTLY ix_knowledge_chunks_hnsw_384` rebuilds it
with the new option, at the cost of a full build). Only the catalogue changes, under a
brief lock on the index. SQLite, and PostgreSQL without pgvector: nothing to do.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels = None
depends_on = None

# Frozen here: a later change of `postgres_hnsw.HNSW_EF_CONSTRUCTION` is a new revision.
EF_CONSTRUCTION = 128
PREVIOUS = 64  # revision 0004's, and pgvector's default


def _hnsw_indexes(bind: sa.Connection) -> list[str]:
    if bind.dialect.name != "postgresql":
        return []
    return list(
        bind.execute(
            sa.text(
                "SELECT i.relname FROM pg_index x"
                " JOIN pg_class i ON i.oid = x.indexrelid"
                " JOIN pg_class t ON t.oid = x.indrelid"
                " JOIN pg_am a ON a.oid = i.relam"
                " WHERE t.relname = 'knowledge_chunks' AND a.amname = 'hnsw'"
                " AND i.relname LIKE 'ix\\_knowledge\\_chunks\\_hnsw\\_%'"
                " AND pg_catalog.pg_table_is_visible(t.oid)"
                " ORDER BY i.relname"
            )
        ).scalars()
    )


def _set(ef_construction: int) -> None:
    for name in _hnsw_indexes(op.get_bind()):
        op.execute(f'ALTER INDEX "{name}" SET (ef_construction = {int(ef_construction)})')


def upgrade() -> None:
    _set(EF_CONSTRUCTION)


def downgrade() -> None:
    _set(PREVIOUS)
