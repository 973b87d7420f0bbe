"""knowledge index that stays fast while it changes (SQLite): one FTS5 table per site and
a change log of chunk rows for the memory-mapped vector bases

Revision ID: 0011
Revises: 0010

SQLite only (PostgreSQL keeps its tsvector column and pgvector HNSW index):
- `knowledge_fts_<digest>` per site replaces the shared `knowledge_fts`: a query walks
  only that site's postings (no intersection with a site token) and BM25 statistics are
  the site's own. Rows move over as they are (pre-stemmed bodies, same rowids).
- `knowledge_changes`: every insert and delete of a `knowledge_chunks` row, appended by
  triggers in the writer's transaction; workers apply it to their vector bases
  (`frontdesk.knowledge.index.vectors`). `knowledge_sites.log_floor`: rows at or below
  it were pruned (every base holds them).
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import op

from frontdesk.knowledge.index.lexicon import FTS_OPTIONS, create_statements, fts_table

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels = None
depends_on = None

SITES = "SELECT DISTINCT site_id FROM knowledge_chunks"


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    op.execute(
        "CREATE TABLE knowledge_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        " site_id VARCHAR(255) NOT NULL, chunk_row INTEGER NOT NULL,"
        " removed INTEGER NOT NULL DEFAULT 0)"
    )
    op.execute("CREATE INDEX ix_knowledge_changes_site_seq ON knowledge_changes (site_id, seq)")
    op.execute(
        "CREATE TRIGGER knowledge_chunks_added AFTER INSERT ON knowledge_chunks BEGIN"
        " INSERT INTO knowledge_changes (site_id, chunk_row, removed)"
        " VALUES (new.site_id, new.id, 0); END"
    )
    op.execute(
        "CREATE TRIGGER knowledge_chunks_removed AFTER DELETE ON knowledge_chunks BEGIN"
        " INSERT INTO knowledge_changes (site_id, chunk_row, removed)"
        " VALUES (old.site_id, old.id, 1); END"
    )
    with op.batch_alter_table("knowledge_sites") as batch:
        batch.add_column(sa.Column("log_floor", sa.Integer(), nullable=False, server_default="0"))
    sites = [
        row[0] for row in bind.execute(sa.text("SELECT DISTINCT site_id FROM knowledge_chunks"))
    ]
    for site_id in sites:
        table = fts_table(site_id)
        for statement in create_statements(table):
            op.execute(statement)
        bind.execute(
            sa.text(
                f"INSERT INTO {table} (rowid, body) SELECT f.rowid, f.body FROM knowledge_fts f"
                " JOIN knowledge_chunks c ON c.id = f.rowid WHERE c.site_id = :site"
            ),
            {"site": site_id},
        )
    op.execute("DROP TABLE knowledge_fts")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    op.execute(f"CREATE VIRTUAL TABLE knowledge_fts USING fts5(site_key, body, {FTS_OPTIONS})")
    sites = [
        row[0] for row in bind.execute(sa.text("SELECT DISTINCT site_id FROM knowledge_chunks"))
    ]
    from frontdesk.knowledge.index.lexicon import site_key

    for site_id in sites:
        table = fts_table(site_id)
        bind.execute(
            sa.text(
                f"INSERT INTO knowledge_fts (rowid, site_key, body) SELECT rowid, :key, body"
                f" FROM {table}"
            ),
            {"key": site_key(site_id)},
        )
    tables = bind.execute(
        sa.text(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'knowledge_fts_%'"
        )
    ).scalars()
    for table in [t for t in tables if re.fullmatch(r"knowledge_fts_[0-9a-f]{16}", t)]:
        op.execute(f"DROP TABLE IF EXISTS {table}")
    op.execute("DROP TRIGGER IF EXISTS knowledge_chunks_added")
    op.execute("DROP TRIGGER IF EXISTS knowledge_chunks_removed")
    op.execute("DROP TABLE IF EXISTS knowledge_changes")
    with op.batch_alter_table("knowledge_sites") as batch:
        batch.drop_column("log_floor")
