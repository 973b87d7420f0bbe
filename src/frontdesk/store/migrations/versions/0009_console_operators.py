"""console: operators, their per-site roles, sessions and invitations; lead status;
indexes for the inbox and analytics pages

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "operators",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email", name="uq_operators_email"),
    )
    op.create_table(
        "operator_roles",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("operator_id", sa.String(length=36), nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["operator_id"], ["operators.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("operator_id", "site_id", name="uq_operator_role_site"),
    )
    op.create_index("ix_operator_roles_operator_id", "operator_roles", ["operator_id"])
    op.create_index("ix_operator_roles_site_id", "operator_roles", ["site_id"])
    op.create_table(
        "operator_sessions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("operator_id", sa.String(length=36), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["operator_id"], ["operators.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_operator_sessions_token_hash"),
    )
    op.create_index("ix_operator_sessions_operator_id", "operator_sessions", ["operator_id"])
    op.create_table(
        "operator_invites",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("site_id", sa.String(length=63), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_operator_invites_token_hash"),
    )
    with op.batch_alter_table("leads") as batch:
        batch.add_column(
            sa.Column("status", sa.String(length=16), nullable=False, server_default="new")
        )
    # The inbox lists one site's conversations newest first; analytics reads a site's turns
    # by day. Without these, both scan every site's rows.
    op.create_index(
        "ix_conversations_site_activity", "conversations", ["site_id", "last_activity_at"]
    )
    op.create_index("ix_traces_site_created", "traces", ["site_id", "created_at"])
    # Inbox route filter and analytics' count of blocked turns (a rare route).
    op.create_index("ix_messages_route", "messages", ["route"])


def downgrade() -> None:
    op.drop_index("ix_messages_route", table_name="messages")
    op.drop_index("ix_traces_site_created", table_name="traces")
    op.drop_index("ix_conversations_site_activity", table_name="conversations")
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("status")
    op.drop_table("operator_invites")
    op.drop_index("ix_operator_sessions_operator_id", table_name="operator_sessions")
    op.drop_table("operator_sessions")
    op.drop_index("ix_operator_roles_site_id", table_name="operator_roles")
    op.drop_index("ix_operator_roles_operator_id", table_name="operator_roles")
    op.drop_table("operator_roles")
    op.drop_table("operators")
