"""trust reports: one row per run of a site's trust report (queued, running, done, failed)

Revision ID: 0013
Revises: 0012

At most one run per site is `running`: a partial unique index (SQLite and PostgreSQL both
have them) makes a second claim fail however two workers interleave.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUNNING = sa.text("status = 'running'")


def upgrade() -> None:
    op.create_table(
        "trust_runs",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("trigger", sa.String(length=16), nullable=False),
        sa.Column("requested_by", sa.String(length=320), nullable=True),
        sa.Column("engine", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        # Renewed while the run is alive: a run whose beat stops lost its process.
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("figures", sa.Text(), nullable=True),  # JSON: the headline figures
        sa.Column("report", sa.Text(), nullable=True),  # JSON: examples and every question
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_trust_runs_site_created", "trust_runs", ["site_id", "created_at"])
    op.create_index(
        "uq_trust_runs_one_running",
        "trust_runs",
        ["site_id"],
        unique=True,
        sqlite_where=RUNNING,
        postgresql_where=RUNNING,
    )


def downgrade() -> None:
    op.drop_index("uq_trust_runs_one_running", table_name="trust_runs")
    op.drop_index("ix_trust_runs_site_created", table_name="trust_runs")
    op.drop_table("trust_runs")
