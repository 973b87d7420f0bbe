"""The takeover's values: operators, ownership, published events and the message rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from frontdesk.guard.charset import clean_text
from frontdesk.store.live import LiveEvent, Owner
from frontdesk.takeover.errors import BadMessage

Clock = Callable[[], datetime]

# What the visitor's widget is sent: everything but the visitor's own words and typing.
VISITOR_HIDDEN_AUTHOR = "visitor"
# Event kinds of the per-site operator stream (ringing and its end).
SITE_KINDS = ("handoff_waiting", "operator_joined", "handoff_async", "closed", "released")
MAX_TEXT = 4000


def utc_clock() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """`value` with its zone (SQLite gives naive datetimes back: they are UTC)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


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
        "at": as_utc(event.created_at).isoformat(),
        **event.body,
    }
    return Published(event.id, event.kind, data)


def clean_message(text: str) -> str:
    """`text` as it is sent: cleaned and trimmed, never empty, at most `MAX_TEXT`."""
    cleaned = clean_text(text).strip()
    if not cleaned:
        raise BadMessage("The message is empty.", code="empty_message")
    if len(cleaned) > MAX_TEXT:
        raise BadMessage(f"Messages are at most {MAX_TEXT} characters.", code="message_too_long")
    return cleaned
