"""Live takeover tables: the per-session event log, who owns each conversation, and the
operators online per site. Sync repository (callers run it in the threadpool).

The event log is the only source of what a visitor or an operator is shown: a message is
written here and committed before anyone is woken (`frontdesk.takeover.bus`), and every
subscriber re-reads `id > last seen`, so a resumed stream loses and repeats nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import JSON, DateTime, Index, Integer, String, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from frontdesk.store.db import Repository
from frontdesk.store.models import Base, utcnow

Owner = Literal["bot", "waiting", "human", "closed"]
AuthorKind = Literal["visitor", "operator", "system"]


class LiveEvent(Base):
    __tablename__ = "live_events"
    __table_args__ = (
        Index("ix_live_events_session", "site_id", "session_id", "id"),
        Index("ix_live_events_site", "site_id", "id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    site_id: Mapped[str] = mapped_column(String(63))
    session_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    author_kind: Mapped[str] = mapped_column(String(16))
    author_id: Mapped[str | None] = mapped_column(String(64))
    author_name: Mapped[str | None] = mapped_column(String(200))
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LiveConversation(Base):
    __tablename__ = "live_conversations"
    __table_args__ = (Index("ix_live_conversations_state", "state", "wait_until"),)

    site_id: Mapped[str] = mapped_column(String(63), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))
    operator_id: Mapped[str | None] = mapped_column(String(36))
    operator_name: Mapped[str | None] = mapped_column(String(200))
    exchange_from: Mapped[int | None] = mapped_column(Integer)
    wait_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LivePresence(Base):
    __tablename__ = "live_presence"

    site_id: Mapped[str] = mapped_column(String(63), primary_key=True)
    operator_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(200))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LiveSlack(Base):
    """Slack bridge: `kind` "thread" maps a handoff message's ts to its session; "reply"
    marks a thread reply already relayed (Slack retries deliveries)."""

    __tablename__ = "live_slack"

    site_id: Mapped[str] = mapped_column(String(63), primary_key=True)
    ts: Mapped[str] = mapped_column(String(40), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))


class LiveRepository(Repository):
    # -- events ----------------------------------------------------------------------
    def append(
        self,
        site_id: str,
        session_id: str,
        kind: str,
        body: dict[str, Any],
        *,
        author_kind: AuthorKind = "system",
        author_id: str | None = None,
        author_name: str | None = None,
        at: datetime | None = None,
    ) -> LiveEvent:
        # The insert sets the event's id: the SSE event id.
        return self._insert(
            LiveEvent(
                site_id=site_id,
                session_id=session_id,
                kind=kind,
                author_kind=author_kind,
                author_id=author_id,
                author_name=author_name,
                body=body,
                created_at=at or utcnow(),
            )
        )

    def session_events(
        self,
        site_id: str,
        session_id: str,
        after: int,
        *,
        hide_author: str | None = None,
        limit: int = 200,
    ) -> list[LiveEvent]:
        query = select(LiveEvent).where(
            LiveEvent.site_id == site_id, LiveEvent.session_id == session_id, LiveEvent.id > after
        )
        if hide_author is not None:
            query = query.where(LiveEvent.author_kind != hide_author)
        return list(self.session.scalars(query.order_by(LiveEvent.id).limit(limit)))

    def site_events(
        self, site_id: str, after: int, kinds: Sequence[str], limit: int = 200
    ) -> list[LiveEvent]:
        query = select(LiveEvent).where(
            LiveEvent.site_id == site_id, LiveEvent.id > after, LiveEvent.kind.in_(kinds)
        )
        return list(self.session.scalars(query.order_by(LiveEvent.id).limit(limit)))

    def last_id(self, site_id: str) -> int:
        query = select(LiveEvent.id).where(LiveEvent.site_id == site_id)
        found = self.session.scalar(query.order_by(LiveEvent.id.desc()).limit(1))
        return int(found or 0)

    def exchange(self, site_id: str, session_id: str, first: int) -> list[LiveEvent]:
        """The messages of one human exchange, in order (for the assistant's memory)."""
        query = select(LiveEvent).where(
            LiveEvent.site_id == site_id,
            LiveEvent.session_id == session_id,
            LiveEvent.id >= first,
            LiveEvent.kind.in_(("visitor_message", "operator_message")),
        )
        return list(self.session.scalars(query.order_by(LiveEvent.id)))

    # -- ownership -------------------------------------------------------------------
    def conversation(
        self, site_id: str, session_id: str, *, for_update: bool = False
    ) -> LiveConversation | None:
        query = select(LiveConversation).where(
            LiveConversation.site_id == site_id, LiveConversation.session_id == session_id
        )
        if for_update:
            query = query.with_for_update()
        return self.session.scalar(query)

    def owner(self, site_id: str, session_id: str) -> Owner:
        row = self.conversation(site_id, session_id)
        return row.state if row is not None else "bot"  # type: ignore[return-value]

    def claim(self, site_id: str, session_id: str, at: datetime) -> LiveConversation:
        """The ownership row, created (as the bot's) when missing, locked for this
        transaction so two operators or replicas change it one after the other (two who
        take over at once: the second finds the first's)."""
        self._insert_if_missing(
            LiveConversation, site_id=site_id, session_id=session_id, state="bot", updated_at=at
        )
        row = self.conversation(site_id, session_id, for_update=True)
        if row is None:
            raise LookupError(f"no ownership row for {site_id}/{session_id} after inserting it")
        return row

    def active(self, site_id: str) -> list[LiveConversation]:
        query = select(LiveConversation).where(
            LiveConversation.site_id == site_id,
            LiveConversation.state.in_(("waiting", "human")),
        )
        return list(self.session.scalars(query.order_by(LiveConversation.updated_at.desc())))

    def overdue_waits(self, now: datetime) -> list[LiveConversation]:
        query = select(LiveConversation).where(
            LiveConversation.state == "waiting", LiveConversation.wait_until <= now
        )
        return list(self.session.scalars(query))

    def stop_waiting(self, row: LiveConversation, now: datetime) -> bool:
        """Back to the bot if still waiting: one replica wins (conditional UPDATE)."""
        expired = self._changed(
            update(LiveConversation)
            .where(
                LiveConversation.site_id == row.site_id,
                LiveConversation.session_id == row.session_id,
                LiveConversation.state == "waiting",
            )
            .values(state="bot", wait_until=None, updated_at=now)
            .execution_options(synchronize_session=False)
        )
        return expired == 1

    # -- presence --------------------------------------------------------------------
    def seen(self, site_id: str, operator_id: str, name: str, at: datetime) -> bool:
        """Mark an operator online; True when they were not (a presence change).

        One UPDATE, then an INSERT if there was no row: another stream of the same operator
        (a second tab, the page they just left) may remove or add the row at the same
        moment, and a row read first and written later would then fail to update."""
        if self._touch(site_id, operator_id, name, at):
            return False
        try:
            with self.session.begin_nested():
                self.session.add(
                    LivePresence(
                        site_id=site_id, operator_id=operator_id, display_name=name, seen_at=at
                    )
                )
                self.session.flush()
        except IntegrityError:  # their other stream added it first
            self._touch(site_id, operator_id, name, at)
            return False
        return True

    def _touch(self, site_id: str, operator_id: str, name: str, at: datetime) -> bool:
        touched = self._changed(
            update(LivePresence)
            .where(LivePresence.site_id == site_id, LivePresence.operator_id == operator_id)
            .values(seen_at=at, display_name=name)
            .execution_options(synchronize_session=False)
        )
        return bool(touched)

    def gone(self, site_id: str, operator_id: str) -> None:
        self.session.execute(
            delete(LivePresence).where(
                LivePresence.site_id == site_id, LivePresence.operator_id == operator_id
            )
        )

    def online(self, site_id: str, since: datetime) -> list[LivePresence]:
        query = select(LivePresence).where(
            LivePresence.site_id == site_id, LivePresence.seen_at >= since
        )
        return list(self.session.scalars(query.order_by(LivePresence.display_name)))

    # -- Slack bridge ----------------------------------------------------------------
    def slack_session(self, site_id: str, ts: str) -> str | None:
        row = self.session.get(LiveSlack, (site_id, ts))
        return row.session_id if row is not None and row.kind == "thread" else None

    def slack_mark(self, site_id: str, ts: str, session_id: str, kind: str) -> bool:
        """Record a ts once; False when it was already recorded."""
        if self.session.get(LiveSlack, (site_id, ts)) is not None:
            return False
        self.session.add(LiveSlack(site_id=site_id, ts=ts, session_id=session_id, kind=kind))
        self.session.flush()
        return True

    def erase_session(self, site_id: str, session_id: str) -> int:
        removed = self._changed(
            delete(LiveEvent).where(
                LiveEvent.site_id == site_id, LiveEvent.session_id == session_id
            )
        )
        self.session.execute(
            delete(LiveSlack).where(
                LiveSlack.site_id == site_id, LiveSlack.session_id == session_id
            )
        )
        self.session.execute(
            delete(LiveConversation).where(
                LiveConversation.site_id == site_id, LiveConversation.session_id == session_id
            )
        )
        return removed
