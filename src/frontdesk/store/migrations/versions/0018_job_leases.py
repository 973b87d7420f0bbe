"""scheduled jobs: one lease table for every job, and each job's last run

Revision ID: 0018
Revises: 0017

`crawl_leases` becomes `job_leases`: the same rows (name, holder, expires_at) now also
keep retention and the digest to one process per period when `frontdesk serve` runs
them with several workers or replicas. `job_runs` keeps each job's last run (start,
end, outcome, error) and its next run, for the console's Schedules.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.rename_table("crawl_leases", "job_leases")
    op.create_table(
        "job_runs",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),  # running | succeeded | failed
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("next_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("job_runs")
    op.rename_table("job_leases", "crawl_leases")
