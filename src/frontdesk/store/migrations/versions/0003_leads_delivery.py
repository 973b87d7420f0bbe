"""leads delivery: handoff completion time, returning visitors by IP hash, analytics events

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 14:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("handoffs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True))

    op.create_table(
        "visitors",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("ip_hash", sa.String(length=128), nullable=False),
        sa.Column("profile", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=True),
        sa.Column("first_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("site_id", "ip_hash", name="uq_visitor_ip_hash"),
    )
    with op.batch_alter_table("visitors", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_visitors_site_id"), ["site_id"], unique=False)

    op.create_table(
        "analytics_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("analytics_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_analytics_events_site_id"), ["site_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_analytics_events_session_id"), ["session_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_analytics_events_created_at"), ["created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("analytics_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analytics_events_created_at"))
        batch_op.drop_index(batch_op.f("ix_analytics_events_session_id"))
        batch_op.drop_index(batch_op.f("ix_analytics_events_site_id"))
    op.drop_table("analytics_events")
    with op.batch_alter_table("visitors", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_visitors_site_id"))
    op.drop_table("visitors")
    with op.batch_alter_table("handoffs", schema=None) as batch_op:
        batch_op.drop_column("completed_at")
