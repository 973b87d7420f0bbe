"""chunk language: each passage's language, detected once at ingest

Revision ID: 0022
Revises: 0021

Searches that weigh a passage by its language (the cross-language offset) read it here
instead of detecting it per process. NULL (chunks written before) is detected at search
time, as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (no table rebuild on SQLite): the chunk table's triggers and
    # full-text rows stay as they are.
    op.add_column("knowledge_chunks", sa.Column("language", sa.String(16), nullable=True))


def downgrade() -> None:
    op.drop_column("knowledge_chunks", "language")
