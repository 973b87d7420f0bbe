"""per-site admin tokens, stored as SHA-256 hashes only

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 23:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "admin_tokens",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_admin_tokens_token_hash"),
    )
    with op.batch_alter_table("admin_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_admin_tokens_site_id"), ["site_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("admin_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_admin_tokens_site_id"))
    op.drop_table("admin_tokens")
