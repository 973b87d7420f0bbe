"""widget: session keys (hashed secrets, verified identity) and feedback on answers

Revision ID: 0008
Revises: 0007_crawler
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007_crawler"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "widget_session_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=True),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("secret_hash", name="uq_widget_session_keys_secret_hash"),
    )
    op.create_index(
        "ix_widget_session_keys_session", "widget_session_keys", ["site_id", "session_id"]
    )
    op.create_index("ix_widget_session_keys_user", "widget_session_keys", ["site_id", "user_id"])
    op.create_table(
        "answer_feedback",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("rating", sa.String(length=8), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("site_id", "session_id", "turn", name="uq_answer_feedback_turn"),
    )
    op.create_index("ix_answer_feedback_site_id", "answer_feedback", ["site_id"])
    op.create_index("ix_answer_feedback_session_id", "answer_feedback", ["session_id"])


def downgrade() -> None:
    op.drop_index("ix_answer_feedback_session_id", table_name="answer_feedback")
    op.drop_index("ix_answer_feedback_site_id", table_name="answer_feedback")
    op.drop_table("answer_feedback")
    op.drop_index("ix_widget_session_keys_user", table_name="widget_session_keys")
    op.drop_index("ix_widget_session_keys_session", table_name="widget_session_keys")
    op.drop_table("widget_session_keys")
