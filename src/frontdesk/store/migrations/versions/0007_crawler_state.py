"""crawler: per-page crawl state, sync runs, start URLs added on the command line, leases

Revision ID: 0007_crawler
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007_crawler"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # One row per URL a web source reached: how to ask for it again (ETag, Last-Modified),
    # what it held (body and document hashes, links), and how many syncs it has been gone.
    op.create_table(
        "crawl_pages",
        sa.Column("site_id", sa.String(63), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("source_url", sa.String(2048), nullable=False),
        sa.Column("doc_id", sa.String(1024), nullable=True),
        sa.Column("etag", sa.String(512), nullable=False, server_default=""),
        sa.Column("last_modified", sa.String(128), nullable=False, server_default=""),
        sa.Column("body_hash", sa.String(64), nullable=False, server_default=""),
        sa.Column("links", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("missed", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("error", sa.Text(), nullable=False, server_default=""),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("site_id", "url"),
    )
    op.create_index("ix_crawl_pages_source", "crawl_pages", ["site_id", "source_url"])
    op.create_table(
        "crawl_runs",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("site_id", sa.String(63), nullable=False),
        sa.Column("source_url", sa.String(2048), nullable=False),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("error", sa.Text(), nullable=False, server_default=""),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_crawl_runs_site", "crawl_runs", ["site_id", "started_at"])
    op.create_table(
        "crawl_sources",
        sa.Column("site_id", sa.String(63), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("allow_private_network", sa.Boolean(), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("site_id", "url"),
    )
    # Database lease that keeps one scheduled sync per source across replicas (no Redis).
    op.create_table(
        "crawl_leases",
        sa.Column("name", sa.String(2200), nullable=False),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("crawl_leases")
    op.drop_table("crawl_sources")
    op.drop_index("ix_crawl_runs_site", table_name="crawl_runs")
    op.drop_table("crawl_runs")
    op.drop_index("ix_crawl_pages_source", table_name="crawl_pages")
    op.drop_table("crawl_pages")
