"""knowledge base: documents, chunks with vectors, embedding cache, lexical index

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 11:20:00

Sites are keyed by their exact id (no sanitising), so two ids that would collide after
sanitising stay separate. The lexical index is an FTS5 table on SQLite; PostgreSQL gets
a tsvector column and pgvector in a later revision.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "knowledge_sites",
        sa.Column("site_id", sa.String(255), primary_key=True),
        sa.Column("revision", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "knowledge_documents",
        sa.Column("site_id", sa.String(255), nullable=False),
        sa.Column("doc_id", sa.String(1024), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False, server_default=""),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("site_id", "doc_id"),
    )
    op.create_table(
        "knowledge_chunks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("site_id", sa.String(255), nullable=False),
        sa.Column("doc_id", sa.String(1024), nullable=False),
        sa.Column("chunk_id", sa.String(64), nullable=False),
        sa.Column("chunk_index", sa.Integer(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("heading_path", sa.Text(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False, server_default=""),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("embedding_model", sa.String(255), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["site_id", "doc_id"],
            ["knowledge_documents.site_id", "knowledge_documents.doc_id"],
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("site_id", "chunk_id", name="uq_knowledge_chunks_site_chunk"),
    )
    op.create_index("ix_knowledge_chunks_site_doc", "knowledge_chunks", ["site_id", "doc_id"])
    op.create_table(
        "knowledge_embedding_cache",
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("model", "content_hash"),
    )
    if op.get_bind().dialect.name == "sqlite":
        # rowid = knowledge_chunks.id; site_key is a per-site token so that MATCH only
        # walks that site's postings; body holds the pre-stemmed text.
        op.execute(
            "CREATE VIRTUAL TABLE knowledge_fts USING fts5("
            "site_key, body, tokenize = 'unicode61 remove_diacritics 2')"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE IF EXISTS knowledge_fts")
    op.drop_table("knowledge_embedding_cache")
    op.drop_index("ix_knowledge_chunks_site_doc", table_name="knowledge_chunks")
    op.drop_table("knowledge_chunks")
    op.drop_table("knowledge_documents")
    op.drop_table("knowledge_sites")
