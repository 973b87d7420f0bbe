"""Tables of the improvement loop: team answers, their change log, and the weekly digests
sent (one row per site and period, so two workers never send the same digest)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from frontdesk.store.db import Repository
from frontdesk.store.models import Base, new_id, utcnow


class TeamAnswer(Base):
    """An answer the team wrote: per language, question variants and the answer text
    (`versions`: [{"language", "questions", "answer"}]). Retired answers stay, unindexed."""

    __tablename__ = "team_answers"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    site_id: Mapped[str] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active | retired
    versions: Mapped[list[Any]] = mapped_column(JSON, default=list)
    created_by: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TeamAnswerChange(Base):
    """One change to a team answer: who, when, what it was before and after."""

    __tablename__ = "team_answer_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    site_id: Mapped[str] = mapped_column(String(63), index=True)
    answer_id: Mapped[str] = mapped_column(
        ForeignKey("team_answers.id", ondelete="CASCADE"), index=True
    )
    action: Mapped[str] = mapped_column(String(16))  # created | edited | retired | restored
    operator_email: Mapped[str] = mapped_column(String(320))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class DigestRun(Base):
    """A weekly digest of one site and period: claimed before sending, then marked sent."""

    __tablename__ = "digest_runs"
    __table_args__ = (UniqueConstraint("site_id", "period_end", name="uq_digest_runs_period"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    site_id: Mapped[str] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    period_end: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default="sending")  # sending|sent|failed
    recipients: Mapped[list[Any]] = mapped_column(JSON, default=list)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


def snapshot(answer: TeamAnswer) -> dict[str, Any]:
    """What the change log keeps of an answer (before/after)."""
    return {"status": answer.status, "versions": list(answer.versions or [])}


class TeamAnswerRepository(Repository):
    def get(self, site_id: str, answer_id: str) -> TeamAnswer | None:
        return self.session.scalar(
            select(TeamAnswer).where(TeamAnswer.site_id == site_id, TeamAnswer.id == answer_id)
        )

    def for_site(self, site_id: str) -> Sequence[TeamAnswer]:
        return self.session.scalars(
            select(TeamAnswer)
            .where(TeamAnswer.site_id == site_id)
            .order_by(TeamAnswer.status, TeamAnswer.updated_at.desc())
        ).all()

    def _log(
        self,
        answer: TeamAnswer,
        action: str,
        who: str,
        before: dict[str, Any] | None,
    ) -> None:
        self.session.add(
            TeamAnswerChange(
                site_id=answer.site_id,
                answer_id=answer.id,
                action=action,
                operator_email=who,
                at=utcnow(),
                before=before,
                after=snapshot(answer),
            )
        )

    def create(self, site_id: str, versions: list[dict[str, Any]], who: str) -> TeamAnswer:
        now = utcnow()
        answer = TeamAnswer(
            id=new_id(),
            site_id=site_id,
            status="active",
            versions=versions,
            created_by=who,
            created_at=now,
            updated_at=now,
        )
        self._insert(answer)
        self._log(answer, "created", who, None)
        return answer

    def update(
        self,
        answer: TeamAnswer,
        who: str,
        *,
        versions: list[dict[str, Any]] | None = None,
        status: str | None = None,
    ) -> TeamAnswer:
        before = snapshot(answer)
        action = "edited"
        if versions is not None:
            answer.versions = versions
        if status is not None and status != answer.status:
            action = "retired" if status == "retired" else "restored"
            answer.status = status
        answer.updated_at = utcnow()
        self.session.flush()
        self._log(answer, action, who, before)
        return answer

    def changes(self, site_id: str, answer_id: str | None = None) -> Sequence[TeamAnswerChange]:
        query = select(TeamAnswerChange).where(TeamAnswerChange.site_id == site_id)
        if answer_id is not None:
            query = query.where(TeamAnswerChange.answer_id == answer_id)
        return self.session.scalars(
            query.order_by(TeamAnswerChange.at.desc(), TeamAnswerChange.id.desc()).limit(200)
        ).all()


class DigestRepository(Repository):
    def last(self, site_id: str) -> DigestRun | None:
        return self.session.scalar(
            select(DigestRun)
            .where(DigestRun.site_id == site_id)
            .order_by(DigestRun.started_at.desc())
            .limit(1)
        )

    def claim(self, site_id: str, period_end: datetime) -> DigestRun | None:
        """The run of this site and period, or None when another worker claimed it."""
        run = DigestRun(site_id=site_id, period_end=period_end, started_at=utcnow())
        try:
            with self.session.begin_nested():
                self.session.add(run)
                self.session.flush()
        except IntegrityError:
            return None
        return run
