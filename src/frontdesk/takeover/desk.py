"""`TakeoverDesk`: who owns a conversation, what was said while a person did, who is online.

The event log and its streams are `EventJournal`'s (`journal.py`); this module decides
what each action writes: joining, replying, typing, handing back, ringing and its wait
limit, presence, and the Slack bridge.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any, Protocol

from frontdesk.leads.hours import is_business_hours
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.live import LiveConversation, LiveEvent, LiveRepository, Owner
from frontdesk.store.widget import WidgetSessionRepository
from frontdesk.takeover.bus import site_channel
from frontdesk.takeover.errors import OwnedByOther
from frontdesk.takeover.events import (
    Operator,
    Ownership,
    Published,
    as_published,
    as_utc,
    clean_message,
)
from frontdesk.takeover.journal import EventJournal
from frontdesk.takeover.names import safe_display_name

log = logging.getLogger(__name__)


class RingPolicy(Protocol):
    """Whether to ring the operators for a visitor who accepted a person (the
    conversation's routing decides: `conversation.outcomes.live_handoff_route`)."""

    def __call__(self, *, in_hours: bool, operators_online: int) -> str: ...


def in_business_hours(site: SiteConfig, now: datetime) -> bool:
    return is_business_hours(now, site.business_hours.hours())


class TakeoverDesk(EventJournal):
    """The takeover's actions; each is one transaction on the event log."""

    # -- ownership ---------------------------------------------------------------------
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
                name = row.operator_name or "Another operator"
                raise OwnedByOther(f"{name} has already joined.")
            event = _take_over(repo, row, site, operator, now)
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
    async def offer_person(
        self, site: SiteConfig, session_id: str, *, policy: RingPolicy
    ) -> Published | None:
        """The visitor accepted a person: ring the operators online when `policy` (the
        conversation's routing) says so, and tell the visitor the expected wait; else say
        it goes by email. None when a person already owns or is being rung for it."""

        def work(repo: LiveRepository, now: datetime) -> tuple[Published | None, list[str]]:
            row = repo.claim(site.id, session_id, now)
            if row.state in ("waiting", "human"):
                return None, []
            since = now - timedelta(seconds=self.presence_ttl_s)
            online = len(repo.online(site.id, since))
            decision = policy(in_hours=in_business_hours(site, now), operators_online=online)
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
                "wait_until": as_utc(row.wait_until).isoformat() if row.wait_until else None,
            }
            for row in rows
        ]

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
                _take_over(repo, row, site, operator, now)
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


def _take_over(
    repo: LiveRepository,
    row: LiveConversation,
    site: SiteConfig,
    operator: Operator,
    now: datetime,
) -> LiveEvent:
    """The operator joins: an `operator_joined` event, and the conversation is theirs. A
    conversation a person did not own yet starts a new exchange at that event (a second
    tab of the same operator keeps the exchange)."""
    event = repo.append(
        site.id,
        row.session_id,
        "operator_joined",
        {"name": operator.name, "company": site.name},
        author_kind="operator",
        author_id=operator.id,
        author_name=operator.name,
        at=now,
    )
    if row.state != "human":
        row.exchange_from = event.id
    row.state, row.operator_id, row.operator_name = "human", operator.id, operator.name
    row.wait_until, row.updated_at = None, now
    return event


async def expire_waits(desk: TakeoverDesk, every_s: float = 1.0) -> None:
    """Each replica's loop for the wait limit (one of them wins each expiry)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            await desk.expire_waits()
        except Exception as exc:
            log.warning("live wait limit check failed (%s)", exc)
