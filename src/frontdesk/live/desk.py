"""`LiveDesk`: who owns a conversation, what was said while a person did, who is online.

Every change is one store transaction that appends to the event log (`store/live.py`) and
updates the ownership row together; the bus wakes subscribers only after the commit.
Times come from `clock` (tests freeze it); nothing here sleeps.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, TypeVar

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.api.errors import ApiError
from frontdesk.conversation import routes
from frontdesk.leads.hours import is_business_hours
from frontdesk.live.bus import LiveBus, session_channel, site_channel, wake_ups
from frontdesk.live.names import safe_display_name
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.live import LiveConversation, LiveEvent, LiveRepository, Owner
from frontdesk.store.widget import WidgetSessionRepository

log = logging.getLogger(__name__)

T = TypeVar("T")
Clock = Callable[[], datetime]

# What the visitor's widget is sent: everything but the visitor's own words and typing.
VISITOR_HIDDEN_AUTHOR = "visitor"
# Event kinds of the per-site operator stream (ringing and its end).
SITE_KINDS = ("handoff_waiting", "operator_joined", "handoff_async", "closed", "released")
MAX_TEXT = 4000


def utc_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Operator:
    """An operator acting on a conversation (id from the console session)."""

    id: str
    name: str


@dataclass(frozen=True)
class Published:
    """One event as a stream sends it."""

    id: int
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Ownership:
    state: Owner
    operator_id: str | None = None
    operator_name: str | None = None
    wait_until: datetime | None = None


def as_published(event: LiveEvent) -> Published:
    data = {
        "type": event.kind,
        "id": event.id,
        "session_id": event.session_id,
        "at": _utc(event.created_at).isoformat(),
        **event.body,
    }
    return Published(event.id, event.kind, data)


def _site_events(repo: LiveRepository, *, site_id: str, after: int) -> list[LiveEvent]:
    return repo.site_events(site_id, after, SITE_KINDS)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def clean_message(text: str) -> str:
    from frontdesk.guard.charset import clean_text

    cleaned = clean_text(text).strip()
    if not cleaned:
        raise ApiError(422, "empty_message", "The message is empty.")
    if len(cleaned) > MAX_TEXT:
        raise ApiError(422, "message_too_long", f"Messages are at most {MAX_TEXT} characters.")
    return cleaned


def in_business_hours(site: SiteConfig, now: datetime) -> bool:
    return is_business_hours(now, site.business_hours.hours())


class LiveDesk:
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

    @staticmethod
    def _require_session(db: Session, site_id: str, session_id: str) -> None:
        if not WidgetSessionRepository(db).keys(site_id, session_id):
            raise ApiError(404, "session_not_found", "No conversation is stored for this session.")

    def _owned(
        self, repo: LiveRepository, site_id: str, session_id: str, operator: Operator
    ) -> LiveConversation:
        """The ownership row, locked, when `operator` owns the conversation (else a
        clear error: unknown session, nobody joined, someone else did)."""
        row = repo.conversation(site_id, session_id, for_update=True)
        if row is None:
            self._require_session(repo.session, site_id, session_id)
            raise ApiError(409, "not_joined", "Join the conversation first.")
        self._require_owner(row, operator)
        return row

    @staticmethod
    def _require_owner(row: LiveConversation, operator: Operator) -> None:
        if row.state != "human":
            raise ApiError(409, "not_joined", "Join the conversation first.")
        if row.operator_id != operator.id:
            raise ApiError(
                409, "owned_by_other", f"{row.operator_name or 'Another operator'} has joined it."
            )

    # -- ownership ---------------------------------------------------------------------
    async def require_session(self, site_id: str, session_id: str) -> None:
        """404 unless the site stores this session (another site's ids find nothing)."""
        await self._read(lambda repo: self._require_session(repo.session, site_id, session_id))

    async def ownership(self, site_id: str, session_id: str) -> Ownership:
        row = await self._read(lambda repo: repo.conversation(site_id, session_id))
        if row is None:
            return Ownership("bot")
        return Ownership(row.state, row.operator_id, row.operator_name, row.wait_until)  # type: ignore[arg-type]

    def owner_now(self, site_id: str, session_id: str) -> Owner:
        """Blocking: who owns the conversation (the chat service asks before a turn)."""
        with self.sessions() as db:
            return LiveRepository(db).owner(site_id, session_id)

    async def join(self, site: SiteConfig, session_id: str, operator: Operator) -> Published:
        def work(repo: LiveRepository, now: datetime) -> tuple[Published, list[str]]:
            self._require_session(repo.session, site.id, session_id)
            row = repo.claim(site.id, session_id, now)
            if row.state == "human" and row.operator_id != operator.id:
                raise ApiError(
                    409,
                    "owned_by_other",
                    f"{row.operator_name or 'Another operator'} has already joined.",
                )
            event = repo.append(
                site.id,
                session_id,
                "operator_joined",
                {"name": operator.name, "company": site.name},
                author_kind="operator",
                author_id=operator.id,
                author_name=operator.name,
                at=now,
            )
            if row.state != "human":  # a second tab of the same operator keeps the exchange
                row.exchange_from = event.id
            row.state, row.operator_id, row.operator_name = "human", operator.id, operator.name
            row.wait_until, row.updated_at = None, now
            return as_published(event), self._channels(site.id, session_id, event.kind)

        return await self._write(work)

    async def reply(
        self, site: SiteConfig, session_id: str, operator: Operator, text: str
    ) -> Published:
        body = clean_message(text)

        def work(repo: LiveRepository, now: datetime) -> tuple[Published, list[str]]:
            row = self._owned(repo, site.id, session_id, operator)
            name = row.operator_name or operator.name
            event = repo.append(
                site.id,
                session_id,
                "operator_message",
                {"text": body, "name": name},
                author_kind="operator",
                author_id=operator.id,
                author_name=name,
                at=now,
            )
            return as_published(event), self._channels(site.id, session_id, event.kind)

        return await self._write(work)

    async def operator_typing(
        self, site: SiteConfig, session_id: str, operator: Operator, active: bool
    ) -> Published:
        def work(repo: LiveRepository, now: datetime) -> tuple[Published, list[str]]:
            self._owned(repo, site.id, session_id, operator)
            event = repo.append(
                site.id,
                session_id,
                "typing",
                {"who": "operator", "active": active, "name": operator.name},
                author_kind="operator",
                author_id=operator.id,
                author_name=operator.name,
                at=now,
            )
            return as_published(event), self._channels(site.id, session_id, event.kind)

        return await self._write(work)

    async def hand_back(
        self, site: SiteConfig, session_id: str, operator: Operator, *, close: bool
    ) -> tuple[Published, list[LiveEvent]]:
        """Release (back to the bot) or close: the event, and the exchange to remember."""

        def work(
            repo: LiveRepository, now: datetime
        ) -> tuple[tuple[Published, list[LiveEvent]], list[str]]:
            row = self._owned(repo, site.id, session_id, operator)
            exchange = repo.exchange(site.id, session_id, row.exchange_from or 0)
            kind = "closed" if close else "released"
            event = repo.append(
                site.id,
                session_id,
                kind,
                {"name": row.operator_name or operator.name},
                author_kind="operator",
                author_id=operator.id,
                author_name=operator.name,
                at=now,
            )
            row.state = "closed" if close else "bot"
            row.operator_id = row.operator_name = None
            row.exchange_from, row.updated_at = None, now
            return (as_published(event), exchange), self._channels(site.id, session_id, kind)

        return await self._write(work)

    # -- the visitor's side ------------------------------------------------------------
    async def relay_visitor(self, site_id: str, session_id: str, text: str) -> int:
        """A visitor's message while a person owns the conversation (the graph's
        `human_relay` node): kept in the log for the operator. Returns its event id."""

        def work(repo: LiveRepository, now: datetime) -> tuple[int, list[str]]:
            event = repo.append(
                site_id,
                session_id,
                "visitor_message",
                {"text": text},
                author_kind="visitor",
                at=now,
            )
            return event.id, self._channels(site_id, session_id, event.kind)

        return await self._write(work)

    async def visitor_typing(self, site_id: str, session_id: str, active: bool) -> Published:
        def work(repo: LiveRepository, now: datetime) -> tuple[Published, list[str]]:
            event = repo.append(
                site_id,
                session_id,
                "typing",
                {"who": "visitor", "active": active},
                author_kind="visitor",
                at=now,
            )
            return as_published(event), self._channels(site_id, session_id, event.kind)

        return await self._write(work)

    # -- ringing and the wait limit ----------------------------------------------------
    async def offer_person(self, site: SiteConfig, session_id: str) -> Published | None:
        """The visitor accepted a person: ring the operators online during business
        hours (and tell the visitor the expected wait), else say it goes by email.
        None when a person already owns or is being rung for the conversation."""

        def work(repo: LiveRepository, now: datetime) -> tuple[Published | None, list[str]]:
            row = repo.claim(site.id, session_id, now)
            if row.state in ("waiting", "human"):
                return None, []
            since = now - timedelta(seconds=self.presence_ttl_s)
            online = len(repo.online(site.id, since))
            decision = routes.live_handoff_route(
                in_hours=in_business_hours(site, now), operators_online=online
            )
            wait_s = site.handoff.live_wait_seconds
            body: dict[str, Any]
            if decision == "ring":
                row.state, row.wait_until, row.updated_at = (
                    "waiting",
                    now + timedelta(seconds=wait_s),
                    now,
                )
                kind = "handoff_waiting"
                body = {"expected_wait_seconds": wait_s, "contact": site.handoff.contact}
            else:
                kind = "handoff_async"
                body = {"reason": decision, "contact": site.handoff.contact}
            event = repo.append(site.id, session_id, kind, body, at=now)
            return as_published(event), self._channels(site.id, session_id, kind)

        return await self._write(work)

    async def expire_waits(self) -> list[Published]:
        """Conversations rung for longer than the wait limit go to the asynchronous path
        (the handoff was already delivered; the visitor is told so). Any replica may run
        this: the conditional UPDATE lets exactly one of them write the event."""

        def work(repo: LiveRepository, now: datetime) -> tuple[list[Published], list[str]]:
            published: list[Published] = []
            channels: list[str] = []
            for row in repo.overdue_waits(now):
                if not repo.stop_waiting(row, now):
                    continue
                event = repo.append(
                    row.site_id,
                    row.session_id,
                    "handoff_async",
                    {"reason": "no_operator"},
                    at=now,
                )
                published.append(as_published(event))
                channels += self._channels(row.site_id, row.session_id, event.kind)
            return published, channels

        return await self._write(work)

    # -- presence ----------------------------------------------------------------------
    async def heartbeat(self, site_id: str, operator: Operator) -> None:
        def work(repo: LiveRepository, now: datetime) -> tuple[None, list[str]]:
            changed = repo.seen(site_id, operator.id, operator.name, now)
            return None, [site_channel(site_id)] if changed else []

        await self._write(work)

    async def offline(self, site_id: str, operator: Operator) -> None:
        def work(repo: LiveRepository, now: datetime) -> tuple[None, list[str]]:
            repo.gone(site_id, operator.id)
            return None, [site_channel(site_id)]

        await self._write(work)

    async def online(self, site_id: str) -> list[dict[str, str]]:
        since = self.clock() - timedelta(seconds=self.presence_ttl_s)
        rows = await self._read(lambda repo: repo.online(site_id, since))
        return [{"id": row.operator_id, "name": row.display_name} for row in rows]

    async def active(self, site_id: str) -> list[dict[str, Any]]:
        rows = await self._read(lambda repo: repo.active(site_id))
        return [
            {
                "session_id": row.session_id,
                "state": row.state,
                "operator_id": row.operator_id,
                "operator_name": row.operator_name,
                "wait_until": _utc(row.wait_until).isoformat() if row.wait_until else None,
            }
            for row in rows
        ]

    # -- reading -----------------------------------------------------------------------
    async def session_log(
        self, site_id: str, session_id: str, after: int = 0, *, for_visitor: bool = False
    ) -> list[Published]:
        hide = VISITOR_HIDDEN_AUTHOR if for_visitor else None
        rows = await self._read(
            lambda repo: repo.session_events(site_id, session_id, after, hide_author=hide)
        )
        return [as_published(row) for row in rows]

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
                    if len(batch) < 200:
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

    # -- Slack bridge ------------------------------------------------------------------
    async def slack_thread(self, site_id: str, ts: str, session_id: str) -> bool:
        def work(repo: LiveRepository, now: datetime) -> tuple[bool, list[str]]:
            if not WidgetSessionRepository(repo.session).keys(site_id, session_id):
                return False, []  # not a session of this site: nothing to bridge
            return repo.slack_mark(site_id, ts, session_id, "thread"), []

        return await self._write(work)

    async def slack_reply(
        self, site: SiteConfig, thread_ts: str, ts: str, user: str, name: str, text: str
    ) -> Published | None:
        """A reply in a handoff message's thread: the Slack user joins (unless a person
        already owns the conversation) and the text reaches the widget. None: not a
        bridged thread, or a retry of a reply already relayed."""
        body = clean_message(text)
        operator = Operator(f"slack:{user}"[:36], safe_display_name(name[:80], site.name))

        def work(repo: LiveRepository, now: datetime) -> tuple[Published | None, list[str]]:
            session_id = repo.slack_session(site.id, thread_ts)
            if session_id is None or not repo.slack_mark(site.id, ts, session_id, "reply"):
                return None, []
            row = repo.claim(site.id, session_id, now)
            channels = self._channels(site.id, session_id, "operator_joined")
            if row.state != "human":
                joined = repo.append(
                    site.id,
                    session_id,
                    "operator_joined",
                    {"name": operator.name, "company": site.name},
                    author_kind="operator",
                    author_id=operator.id,
                    author_name=operator.name,
                    at=now,
                )
                row.state, row.operator_id, row.operator_name = "human", operator.id, operator.name
                row.exchange_from, row.wait_until, row.updated_at = joined.id, None, now
            event = repo.append(
                site.id,
                session_id,
                "operator_message",
                {"text": body, "name": operator.name, "via": "slack"},
                author_kind="operator",
                author_id=operator.id,
                author_name=operator.name,
                at=now,
            )
            return as_published(event), channels

        return await self._write(work)

    async def erase(self, site_id: str, session_id: str) -> int:
        def work(repo: LiveRepository, now: datetime) -> tuple[int, list[str]]:
            return repo.erase_session(site_id, session_id), []

        return await self._write(work)


async def expire_waits(desk: LiveDesk, every_s: float = 1.0) -> None:
    """Each replica's loop for the wait limit (one of them wins each expiry)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            await desk.expire_waits()
        except Exception as exc:
            log.warning("live wait limit check failed (%s)", exc)
