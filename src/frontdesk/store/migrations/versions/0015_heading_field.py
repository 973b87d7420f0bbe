"""knowledge: a heading field in the lexical indexes (title and headings of each chunk)

Revision ID: 0015
Revises: 0014

The hybrid search's third list ranks chunks by BM25 over their heading paths alone
(benchmarks/RESULTS.md, "A heading field in the lexical indexes"). Existing chunks get the
field from what is stored: a chunk's lexical text is its stemmed heading path followed by
its stemmed passage, so the heading field is the first terms of that text
(`lexical.heading_terms`) — the same terms a fresh ingest writes, with no re-embedding
and no language detection.

- SQLite: a `knowledge_heading_<digest>` FTS5 table per site, beside the site's
  `knowledge_fts_<digest>`, with the same rowids.
- PostgreSQL (where revision 0004 added the tsvector columns): `heading` (tsvector with
  positions) and `heading_length`, GIN-indexed, rebuilt in order from the positions of
  the `lexical` tsvector.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

from frontdesk.knowledge.index.lexicon import create_statements, fts_table, heading_table
from frontdesk.knowledge.index.postgres_sql import tsvector_literal
from frontdesk.text.lexical import heading_terms

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels = None
depends_on = None

_BATCH = 2_000


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        _upgrade_sqlite(bind)
    elif bind.dialect.name == "postgresql" and _has_lexical_column(bind):
        _upgrade_postgres(bind)


def _upgrade_sqlite(bind: sa.Connection) -> None:
    sites = list(bind.execute(sa.text("SELECT DISTINCT site_id FROM knowledge_chunks")).scalars())
    for site_id in sites:
        table, bodies = heading_table(site_id), fts_table(site_id)
        for statement in create_statements(table, "heading"):
            op.execute(statement)
        found = bind.execute(
            sa.text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"),
            {"name": bodies},
        ).scalar()
        if found is None:
            continue  # no lexical rows to take the headings from
        rows = bind.execute(
            sa.text(
                f"SELECT f.rowid, f.body, c.heading_path FROM {bodies} f"
                " JOIN knowledge_chunks c ON c.id = f.rowid WHERE c.site_id = :site"
                " ORDER BY f.rowid"
            ),
            {"site": site_id},
        ).all()
        insert = sa.text(f"INSERT INTO {table} (rowid, heading) VALUES (:id, :heading)")
        for start in range(0, len(rows), _BATCH):
            bind.execute(
                insert,
                [
                    {"id": row_id, "heading": heading_terms(body or "", json.loads(path))}
                    for row_id, body, path in rows[start : start + _BATCH]
                ],
            )


def _has_lexical_column(bind: sa.Connection) -> bool:
    found = bind.execute(
        sa.text(
            "SELECT 1 FROM information_schema.columns WHERE table_name = 'knowledge_chunks'"
            " AND column_name = 'lexical'"
        )
    ).scalar()
    return found is not None


def _upgrade_postgres(bind: sa.Connection) -> None:
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN heading tsvector NOT NULL DEFAULT ''")
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN heading_length integer NOT NULL DEFAULT 0")
    last = 0
    while True:
        ids = list(
            bind.execute(
                sa.text(
                    "SELECT id FROM knowledge_chunks WHERE id > :last AND heading_path <> '[]'"
                    " ORDER BY id LIMIT :n"
                ),
                {"last": last, "n": _BATCH},
            ).scalars()
        )
        if not ids:
            break
        last = ids[-1]
        rows = bind.execute(
            sa.text(
                "SELECT c.id, c.heading_path, u.lexeme, u.positions FROM knowledge_chunks c,"
                " unnest(c.lexical) u WHERE c.id >= :first AND c.id <= :last"
                " AND c.heading_path <> '[]'"
            ),
            {"first": ids[0], "last": last},
        ).all()
        paths: dict[int, str] = {}
        lexemes: dict[int, dict[int, str]] = defaultdict(dict)
        for row_id, path, lexeme, positions in rows:
            paths[row_id] = path
            for position in positions or ():
                lexemes[row_id][int(position)] = lexeme
        updates = []
        for row_id, path in paths.items():
            at = lexemes[row_id]
            body = " ".join(at[position] for position in sorted(at))
            literal, length = tsvector_literal(heading_terms(body, json.loads(path)))
            if length:
                updates.append({"id": row_id, "heading": literal, "length": length})
        if updates:
            bind.execute(
                sa.text(
                    "UPDATE knowledge_chunks SET heading = CAST(:heading AS tsvector),"
                    " heading_length = :length WHERE id = :id"
                ),
                updates,
            )
    op.execute("CREATE INDEX ix_knowledge_chunks_heading ON knowledge_chunks USING gin (heading)")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        tables = bind.execute(
            sa.text(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name LIKE 'knowledge_heading_%'"
            )
        ).scalars()
        for table in [t for t in tables if re.fullmatch(r"knowledge_heading_[0-9a-f]{16}", t)]:
            op.execute(f"DROP TABLE IF EXISTS {table}")
    elif bind.dialect.name == "postgresql" and _has_lexical_column(bind):
        op.execute("DROP INDEX IF EXISTS ix_knowledge_chunks_heading")
        for column in ("heading_length", "heading"):
            op.execute(f"ALTER TABLE knowledge_chunks DROP COLUMN IF EXISTS {column}")
