"""site facts: opening hours, address, phone, e-mail, prices and payment methods per page

Revision ID: 0017
Revises: 0016

One row per fact a document states (`frontdesk.facts`), replaced with the document at
ingest and crawl, and removed with it (the foreign key cascades from the knowledge
index's documents, so a page that leaves the index takes its facts along).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "site_facts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("site_id", sa.String(255), nullable=False),
        sa.Column("doc_id", sa.String(1024), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("fact", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["site_id", "doc_id"],
            ["knowledge_documents.site_id", "knowledge_documents.doc_id"],
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_site_facts_site_doc", "site_facts", ["site_id", "doc_id"])


def downgrade() -> None:
    op.drop_index("ix_site_facts_site_doc", table_name="site_facts")
    op.drop_table("site_facts")
