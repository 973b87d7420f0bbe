"""`EventJournal`: the takeover's event log in the store, written and followed.

Every change is one store transaction that appends to the event log (`store/live.py`) and
updates the ownership row together; the bus wakes subscribers only after the commit. A
stream re-reads the log above the last id it sent, so a wake-up lost or repeated costs a
read, never a message. Times come from `clock` (tests freeze it); nothing here sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from functools import partial
from typing import TypeVar

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.store.db import transaction
from frontdesk.store.live import LiveConversation, LiveEvent, LiveRepository
from frontdesk.store.widget import WidgetSessionRepository
from frontdesk.takeover.bus import LiveBus, session_channel, site_channel, wake_ups
from frontdesk.takeover.errors import NotJoined, OwnedByOther, UnknownSession
from frontdesk.takeover.events import (
    SITE_KINDS,
    VISITOR_HIDDEN_AUTHOR,
    Clock,
    Operator,
    Published,
    as_published,
    utc_clock,
)

T = TypeVar("T")

# Events read per query; a shorter page is the end of the log.
PAGE = 200


def _site_events(repo: LiveRepository, *, site_id: str, after: int) -> list[LiveEvent]:
    return repo.site_events(site_id, after, SITE_KINDS)


class EventJournal:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        bus: LiveBus | None = None,
        *,
        clock: Clock = utc_clock,
        poll_s: float = 5.0,
        presence_ttl_s: float = 30.0,
    ) -> None:
        self.sessions = sessions
        self.bus = bus or LiveBus()
        self.clock = clock
        self.poll_s = poll_s
        self.presence_ttl_s = presence_ttl_s

    # -- writing -----------------------------------------------------------------------
    async def _write(self, work: Callable[[LiveRepository, datetime], tuple[T, list[str]]]) -> T:
        """Run `work` in one transaction; publish its channels after the commit."""
        now = self.clock()

        def run() -> tuple[T, list[str]]:
            with transaction(self.sessions) as db:
                result, channels = work(LiveRepository(db), now)
                if channels:
                    self.bus.in_transaction(db.connection(), channels)
                return result, channels

        result, channels = await asyncio.to_thread(run)
        if channels:
            await self.bus.publish(channels)
        return result

    def _read(self, work: Callable[[LiveRepository], T]) -> asyncio.Future[T]:
        def run() -> T:
            with self.sessions() as db:
                return work(LiveRepository(db))

        return asyncio.ensure_future(asyncio.to_thread(run))

    @staticmethod
    def _channels(site_id: str, session_id: str, kind: str) -> list[str]:
        channels = [session_channel(site_id, session_id)]
        if kind in SITE_KINDS:
            channels.append(site_channel(site_id))
        return channels

    # -- who may act -------------------------------------------------------------------
    @staticmethod
    def _require_session(db: Session, site_id: str, session_id: str) -> None:
        if not WidgetSessionRepository(db).keys(site_id, session_id):
            raise UnknownSession("No conversation is stored for this session.")

    def _owned(
        self, repo: LiveRepository, site_id: str, session_id: str, operator: Operator
    ) -> LiveConversation:
        """The ownership row, locked, when `operator` owns the conversation (else a
        clear error: unknown session, nobody joined, someone else did)."""
        row = repo.conversation(site_id, session_id, for_update=True)
        if row is None:
            self._require_session(repo.session, site_id, session_id)
            raise NotJoined("Join the conversation first.")
        self._require_owner(row, operator)
        return row

    @staticmethod
    def _require_owner(row: LiveConversation, operator: Operator) -> None:
        if row.state != "human":
            raise NotJoined("Join the conversation first.")
        if row.operator_id != operator.id:
            raise OwnedByOther(f"{row.operator_name or 'Another operator'} has joined it.")

    async def require_session(self, site_id: str, session_id: str) -> None:
        """`UnknownSession` unless the site stores this session (another site's ids find
        nothing)."""
        await self._read(lambda repo: self._require_session(repo.session, site_id, session_id))

    # -- reading -----------------------------------------------------------------------
    async def session_log(
        self, site_id: str, session_id: str, after: int = 0, *, for_visitor: bool = False
    ) -> list[Published]:
        """One page (`PAGE` events) of the session's log above `after`."""
        hide = VISITOR_HIDDEN_AUTHOR if for_visitor else None
        rows = await self._read(
            lambda repo: repo.session_events(site_id, session_id, after, hide_author=hide)
        )
        return [as_published(row) for row in rows]

    async def whole_log(
        self, site_id: str, session_id: str, *, for_visitor: bool = False
    ) -> list[Published]:
        """The session's whole log, read page by page."""
        log: list[Published] = []
        while True:
            batch = await self.session_log(
                site_id, session_id, log[-1].id if log else 0, for_visitor=for_visitor
            )
            log.extend(batch)
            if len(batch) < PAGE:
                return log

    async def follow_session(
        self, site_id: str, session_id: str, after: int, *, for_visitor: bool
    ) -> AsyncIterator[Published]:
        """Events above `after`, then each new one as it is committed, forever."""
        last = after
        with self.bus.waiters.waiter(session_channel(site_id, session_id)) as waiter:
            async for _ in wake_ups(waiter, self.poll_s):
                while True:
                    batch = await self.session_log(
                        site_id, session_id, last, for_visitor=for_visitor
                    )
                    for event in batch:
                        last = event.id
                        yield event
                    if len(batch) < PAGE:
                        break

    async def follow_site(self, site_id: str, after: int | None) -> AsyncIterator[Published]:
        """Ringing and its end on one site, from `after` (None: from now)."""
        last = after
        if last is None:
            last = await self._read(lambda repo: repo.last_id(site_id))
        with self.bus.waiters.waiter(site_channel(site_id)) as waiter:
            async for _ in wake_ups(waiter, self.poll_s):
                rows = await self._read(partial(_site_events, site_id=site_id, after=last))
                for row in rows:
                    last = row.id
                    yield as_published(row)
                yield Published(0, "presence", {"type": "presence"})  # the caller fills it
