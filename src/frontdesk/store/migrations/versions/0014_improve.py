"""improvement loop: team answers with their change log, weekly digests sent

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "team_answers",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("versions", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.String(length=320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_team_answers_site_id", "team_answers", ["site_id"])
    op.create_table(
        "team_answer_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("answer_id", sa.String(length=36), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("operator_email", sa.String(length=320), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["answer_id"], ["team_answers.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_team_answer_changes_site_id", "team_answer_changes", ["site_id"])
    op.create_index("ix_team_answer_changes_answer_id", "team_answer_changes", ["answer_id"])
    op.create_table(
        "digest_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site_id", sa.String(length=63), nullable=False),
        sa.Column("period_end", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("site_id", "period_end", name="uq_digest_runs_period"),
    )
    op.create_index("ix_digest_runs_site_id", "digest_runs", ["site_id"])


def downgrade() -> None:
    op.drop_index("ix_digest_runs_site_id", table_name="digest_runs")
    op.drop_table("digest_runs")
    op.drop_index("ix_team_answer_changes_answer_id", table_name="team_answer_changes")
    op.drop_index("ix_team_answer_changes_site_id", table_name="team_answer_changes")
    op.drop_table("team_answer_changes")
    op.drop_index("ix_team_answers_site_id", table_name="team_answers")
    op.drop_table("team_answers")
