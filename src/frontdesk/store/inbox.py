"""What the console's inbox reads: a site's conversations, filtered and searched, newest
first, and one conversation with its turns, traces, handoffs and leads.

The site's conversations are walked newest first (`ix_conversations_site_activity`);
filters on turns are `IN` subqueries read once (route: indexed; text: one scan) or
`EXISTS` probes (routing value, lead level); the shown page's details take three queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, or_, select

from frontdesk.store.db import Repository
from frontdesk.store.models import (
    Conversation,
    Handoff,
    Lead,
    Message,
    Trace,
)
from frontdesk.store.widget import AnswerFeedback, FeedbackRepository

PAGE_SIZE = 50


@dataclass(frozen=True)
class InboxFilters:
    route: str | None = None
    routing: str | None = None
    lead_level: str | None = None
    handoff: bool | None = None
    language: str | None = None
    since: date | None = None
    until: date | None = None
    text: str | None = None
    feedback: str | None = None  # "up", "down", "any" (a vote of either kind) or "none"

    def active(self) -> bool:
        return any(value not in (None, "") for value in vars(self).values())


@dataclass(frozen=True)
class InboxRow:
    session_id: str
    started_at: datetime
    last_activity_at: datetime
    turn_count: int
    language: str | None
    preview: str
    last_route: str | None
    last_routing: str | None
    lead_level: str | None
    handed_off: bool
    # How the team can reach the visitor, as the conversation's latest handoff says
    # (`visitor_contact.status`: provided, asked, declined); None without a handoff.
    contact: str | None = None


@dataclass
class TranscriptTurn:
    number: int
    visitor: str
    assistant: str
    route: str | None
    routing: str | None
    intent: str | None
    details: dict[str, Any]
    at: datetime
    trace: Trace | None = None
    page: str = ""  # the page the visitor wrote from
    referrer: str = ""  # the page that led the visitor to the site (`document.referrer`)
    feedback: AnswerFeedback | None = None  # the visitor's vote on this answer


@dataclass
class Transcript:
    conversation: Conversation
    turns: list[TranscriptTurn] = field(default_factory=list)
    handoffs: Sequence[Handoff] = ()
    leads: Sequence[Lead] = ()

    def pages(self) -> list[str]:
        """The pages the visitor wrote from, first seen first."""
        return list(dict.fromkeys(turn.page for turn in self.turns if turn.page))

    def referrers(self) -> list[str]:
        """The pages that led the visitor to the site, first seen first."""
        return list(dict.fromkeys(turn.referrer for turn in self.turns if turn.referrer))

    def enrichment(self) -> dict[str, Any]:
        """What enrichment knew of the visitor at their latest answered turn."""
        for turn in reversed(self.turns):
            known = {
                key: value
                for key, value in (turn.details.get("enrichment") or {}).items()
                if value not in (None, "", "unknown")
            }
            if known:
                return known
        return {}


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _any_message(*conditions: ColumnElement[bool]) -> ColumnElement[bool]:
    """Conversations with a matching message, as an uncorrelated `IN (SELECT …)`: the
    matching messages are read once (an index for the route, one scan for text)."""
    return Conversation.id.in_(select(Message.conversation_id).where(*conditions))


def _has_message(*conditions: ColumnElement[bool]) -> ColumnElement[bool]:
    """The same as a correlated `EXISTS`, probed per conversation while the newest-first
    walk fills a page: cheaper for common values, and for JSON fields it parses only the
    probed conversations' messages."""
    return exists(select(Message.id).where(Message.conversation_id == Conversation.id, *conditions))


def _feedback_condition(site_id: str, wanted: str) -> ColumnElement[bool]:
    """Conversations with (or without) a visitor's vote, probed per conversation through
    the feedback table's session index."""
    votes = [
        AnswerFeedback.site_id == site_id,
        AnswerFeedback.session_id == Conversation.session_id,
    ]
    if wanted in ("up", "down"):
        votes.append(AnswerFeedback.rating == wanted)
    voted = exists(select(AnswerFeedback.id).where(*votes))
    return ~voted if wanted == "none" else voted


def _conditions(site_id: str, filters: InboxFilters) -> list[ColumnElement[bool]]:
    found: list[ColumnElement[bool]] = [Conversation.site_id == site_id]
    if filters.route:
        found.append(_any_message(Message.route == filters.route))
    if filters.routing:
        found.append(_has_message(Message.routing == filters.routing))
    if filters.lead_level:
        found.append(
            _has_message(
                Message.role == "assistant",
                Message.details["lead"].as_string() == filters.lead_level,
            )
        )
    if filters.handoff is not None:
        handed = exists(
            select(Handoff.id).where(
                Handoff.site_id == site_id, Handoff.session_id == Conversation.session_id
            )
        )
        found.append(handed if filters.handoff else ~handed)
    if filters.language:
        found.append(Conversation.language == filters.language)
    if filters.since:
        found.append(Conversation.last_activity_at >= _day_start(filters.since))
    if filters.until:
        found.append(Conversation.started_at < _day_start(filters.until + timedelta(days=1)))
    if filters.feedback:
        found.append(_feedback_condition(site_id, filters.feedback))
    if filters.text:
        pattern = "%" + filters.text.replace("%", "").replace("_", "").strip() + "%"
        found.append(
            or_(
                Conversation.session_id.like(filters.text.strip() + "%"),
                _any_message(Message.content.ilike(pattern)),
            )
        )
    return found


class InboxRepository(Repository):
    def conversations(
        self,
        site_id: str,
        filters: InboxFilters = InboxFilters(),
        *,
        before: datetime | None = None,
        limit: int = PAGE_SIZE,
    ) -> list[InboxRow]:
        """One page of the site's conversations, latest activity first (`before`: the
        last activity of the previous page's last row)."""
        conditions = _conditions(site_id, filters)
        if before is not None:
            conditions.append(Conversation.last_activity_at < before)
        rows = self.session.scalars(
            select(Conversation)
            .where(and_(*conditions))
            .order_by(Conversation.last_activity_at.desc(), Conversation.id)
            .limit(limit)
        ).all()
        return self._rows(site_id, rows)

    def _rows(self, site_id: str, conversations: Sequence[Conversation]) -> list[InboxRow]:
        if not conversations:
            return []
        ids = [c.id for c in conversations]
        first: dict[str, str] = {}
        last: dict[str, Message] = {}
        for message in self.session.scalars(
            select(Message).where(Message.conversation_id.in_(ids)).order_by(Message.id)
        ):
            if message.role == "user":
                first.setdefault(message.conversation_id, message.content)
            else:
                last[message.conversation_id] = message
        sessions = [c.session_id for c in conversations]
        contact: dict[str, str | None] = {}
        for session_id, packet in self.session.execute(
            select(Handoff.session_id, Handoff.packet)
            .where(Handoff.site_id == site_id, Handoff.session_id.in_(sessions))
            .order_by(Handoff.created_at)
        ):
            contact[session_id] = ((packet or {}).get("visitor_contact") or {}).get("status")
        handed = set(contact)
        listed = []
        for c in conversations:
            reply = last.get(c.id)
            lead = (reply.details or {}).get("lead") if reply is not None else None
            listed.append(
                InboxRow(
                    session_id=c.session_id,
                    started_at=c.started_at,
                    last_activity_at=c.last_activity_at,
                    turn_count=c.turn_count,
                    language=c.language,
                    preview=first.get(c.id, "")[:160],
                    last_route=reply.route if reply is not None else None,
                    last_routing=reply.routing if reply is not None else None,
                    lead_level=str(lead) if lead else None,
                    handed_off=c.session_id in handed,
                    contact=contact.get(c.session_id),
                )
            )
        return listed

    def latest_activity(self, site_id: str) -> datetime | None:
        """When the site's newest conversation last moved (the live inbox polls this)."""
        return self.session.scalar(
            select(func.max(Conversation.last_activity_at)).where(Conversation.site_id == site_id)
        )

    def languages(self, site_id: str) -> list[str]:
        return sorted(
            language
            for language in self.session.scalars(
                select(Conversation.language)
                .where(Conversation.site_id == site_id, Conversation.language.is_not(None))
                .distinct()
            )
            if language
        )

    def transcript(self, site_id: str, session_id: str) -> Transcript | None:
        conversation = self.session.scalar(
            select(Conversation).where(
                Conversation.site_id == site_id, Conversation.session_id == session_id
            )
        )
        if conversation is None:
            return None
        traces = {
            t.turn: t
            for t in self.session.scalars(
                select(Trace).where(Trace.site_id == site_id, Trace.session_id == session_id)
            )
        }
        turns: dict[int, TranscriptTurn] = {}
        for message in self.session.scalars(
            select(Message).where(Message.conversation_id == conversation.id).order_by(Message.id)
        ):
            turn = turns.setdefault(
                message.turn,
                TranscriptTurn(
                    number=message.turn,
                    visitor="",
                    assistant="",
                    route=None,
                    routing=None,
                    intent=None,
                    details={},
                    at=message.created_at,
                    trace=traces.get(message.turn),
                ),
            )
            if message.role == "user":
                turn.visitor = message.content
                turn.page = str((message.details or {}).get("page") or "")
                turn.referrer = str((message.details or {}).get("referrer") or "")
            else:
                turn.assistant = message.content
                turn.route, turn.routing, turn.intent = (
                    message.route,
                    message.routing,
                    message.intent,
                )
                turn.details = dict(message.details or {})
        for vote in FeedbackRepository(self.session).for_session(site_id, session_id):
            if vote.turn in turns:
                turns[vote.turn].feedback = vote
        handoffs = self.session.scalars(
            select(Handoff)
            .where(Handoff.site_id == site_id, Handoff.session_id == session_id)
            .order_by(Handoff.created_at)
        ).all()
        leads = self.session.scalars(
            select(Lead).where(Lead.site_id == site_id, Lead.session_id == session_id)
        ).all()
        return Transcript(
            conversation=conversation,
            turns=[turns[n] for n in sorted(turns)],
            handoffs=handoffs,
            leads=leads,
        )
