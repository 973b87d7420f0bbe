"""knowledge documents: lines withheld from the index as instructions to the assistant

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # JSON list of {"excerpt", "reason"} (knowledge/injection/instructions.py), for the team's eyes.
    with op.batch_alter_table("knowledge_documents") as batch:
        batch.add_column(sa.Column("withheld", sa.Text(), nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("knowledge_documents") as batch:
        batch.drop_column("withheld")
