"""operator language: the console language each operator picked

Revision ID: 0021
Revises: 0020

NULL (every existing operator) means the console follows the browser's Accept-Language.
Stored on the operator rather than in a cookie, so the choice follows the person to every
browser they sign in from.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("operators") as batch:
        batch.add_column(sa.Column("language", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("operators") as batch:
        batch.drop_column("language")
