"""knowledge generations: which index answers for a site, and its re-embed in progress

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # One row per site (knowledge/index/generations.py): the index key and embedding model that
    # answer searches, and the re-embed that will replace them (claimed by one process).
    op.create_table(
        "knowledge_generations",
        sa.Column("site_id", sa.String(255), primary_key=True),
        sa.Column("index_key", sa.String(300), nullable=False),
        sa.Column("embedding_model", sa.String(255), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("pending_key", sa.String(300), nullable=True),
        sa.Column("pending_model", sa.String(255), nullable=True),
        sa.Column("pending_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    # Sites indexed before this revision answer from their own id with the model their
    # chunks were embedded with.
    op.execute(
        "INSERT INTO knowledge_generations (site_id, index_key, embedding_model, generation,"
        " updated_at) SELECT site_id, site_id, MIN(embedding_model), 0, CURRENT_TIMESTAMP"
        " FROM knowledge_chunks GROUP BY site_id"
    )


def downgrade() -> None:
    op.drop_table("knowledge_generations")
