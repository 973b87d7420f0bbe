"""site settings changes: the audit of site settings edited in the console

Revision ID: 0020
Revises: 0019

One row per saved change: the operator (id and e-mail, kept when the operator is later
removed), the time, the fields with their values before and after (secrets only as "set"
or "not set") and the site file's content hash before and after.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "site_settings_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "site_id",
            sa.String(63),
            sa.ForeignKey("sites.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("operator_id", sa.String(36), nullable=True),
        sa.Column("author", sa.String(320), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.Column("version_before", sa.String(64), nullable=False),
        sa.Column("version_after", sa.String(64), nullable=False),
    )
    op.create_index("ix_site_settings_changes_site_id", "site_settings_changes", ["site_id"])


def downgrade() -> None:
    op.drop_index("ix_site_settings_changes_site_id", table_name="site_settings_changes")
    op.drop_table("site_settings_changes")
