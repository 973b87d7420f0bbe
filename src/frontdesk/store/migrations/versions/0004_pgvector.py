"""knowledge on PostgreSQL: tsvector + pgvector HNSW columns on knowledge_chunks

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28 10:00:00

PostgreSQL only, and only where the `vector` extension is installed: SQLite keeps its
FTS5 table, and a PostgreSQL without pgvector keeps the knowledge index in SQLite (see
`frontdesk.knowledge.index.factory`). Vectors of any dimension share one untyped column;
each dimension gets its own partial HNSW expression index (384 — all-MiniLM-L6-v2 —
here, others when first ingested).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op
from sqlalchemy import text

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULT_DIM = 384


def _pgvector_available() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return False
    found = bind.execute(
        text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    ).scalar()
    return found is not None


def upgrade() -> None:
    if not _pgvector_available():
        return
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN embedding_vec vector")
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN embedding_dim integer")
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN lexical tsvector")
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN lexical_length integer")
    op.execute("CREATE INDEX ix_knowledge_chunks_lexical ON knowledge_chunks USING gin (lexical)")
    op.execute(
        f"CREATE INDEX ix_knowledge_chunks_hnsw_{DEFAULT_DIM} ON knowledge_chunks USING hnsw"
        f" ((embedding_vec::vector({DEFAULT_DIM})) vector_cosine_ops)"
        f" WITH (m = 16, ef_construction = 64) WHERE embedding_dim = {DEFAULT_DIM}"
    )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("DROP INDEX IF EXISTS ix_knowledge_chunks_lexical")
    op.execute(f"DROP INDEX IF EXISTS ix_knowledge_chunks_hnsw_{DEFAULT_DIM}")
    for column in ("lexical_length", "lexical", "embedding_dim", "embedding_vec"):
        op.execute(f"ALTER TABLE knowledge_chunks DROP COLUMN IF EXISTS {column}")
