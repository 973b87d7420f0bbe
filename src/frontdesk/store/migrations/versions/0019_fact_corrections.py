"""fact corrections: the team's own version of a site's facts, kept apart from the crawl

Revision ID: 0019
Revises: 0018

One row per correction made in the console (set, remove, revert), with its author and
time. A correction names the fact it stands for by a key (a weekday's hours, a service's
price, a phone number by its digits), not by a page, so it outlives every re-crawl; the
newest revision of a key applies. (site_id, key, revision) is unique: two operators who
correct the same fact from the same revision at once cannot both succeed, and the one who
loses is told instead of silently overwritten.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "site_fact_corrections",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("site_id", sa.String(255), nullable=False),
        sa.Column("key", sa.String(512), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),  # set | remove | revert
        sa.Column("fact", sa.Text(), nullable=False),  # the team's fact as JSON ("" if none)
        sa.Column("author", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("site_id", "key", "revision", name="uq_fact_corrections_revision"),
    )
    op.create_index("ix_fact_corrections_site", "site_fact_corrections", ["site_id"])


def downgrade() -> None:
    op.drop_index("ix_fact_corrections_site", table_name="site_fact_corrections")
    op.drop_table("site_fact_corrections")
