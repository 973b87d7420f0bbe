"""live takeover: the per-session event log a person and the visitor talk through, who
owns each conversation (bot, waiting, human, closed), operators online per site, and the
Slack threads of handoff messages (the Slack bridge)

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_events",
        # The SSE event id: increasing across the whole table, so "id > last seen" resumes.
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("author_kind", sa.String(length=16), nullable=False),
        sa.Column("author_id", sa.String(length=64), nullable=True),
        sa.Column("author_name", sa.String(length=200), nullable=True),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_live_events_session", "live_events", ["site_id", "session_id", "id"])
    op.create_index("ix_live_events_site", "live_events", ["site_id", "id"])
    op.create_table(
        "live_conversations",
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("operator_id", sa.String(length=36), nullable=True),
        sa.Column("operator_name", sa.String(length=200), nullable=True),
        # The first event of the current human exchange (kept for the assistant's memory).
        sa.Column("exchange_from", sa.Integer(), nullable=True),
        sa.Column("wait_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("site_id", "session_id"),
    )
    op.create_index("ix_live_conversations_state", "live_conversations", ["state", "wait_until"])
    op.create_table(
        "live_presence",
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("operator_id", sa.String(length=36), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("site_id", "operator_id"),
    )
    # Slack bridge: a handoff message's ts → its session; replies already relayed.
    op.create_table(
        "live_slack",
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("ts", sa.String(length=40), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("site_id", "ts"),
    )


def downgrade() -> None:
    op.drop_table("live_slack")
    op.drop_table("live_presence")
    op.drop_index("ix_live_conversations_state", table_name="live_conversations")
    op.drop_table("live_conversations")
    op.drop_index("ix_live_events_site", table_name="live_events")
    op.drop_index("ix_live_events_session", table_name="live_events")
    op.drop_table("live_events")
