"""The console's live chat column: the assistant's turns and the takeover's live log in
one time order, a relayed message once, typing left out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from frontdesk.store.inbox import Transcript, TranscriptTurn
from frontdesk.store.models import Conversation
from frontdesk.takeover.events import Published
from frontdesk.takeover.web.pages import timeline

START = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)


def turn(number: int, visitor: str, assistant: str, route: str, minute: int) -> TranscriptTurn:
    return TranscriptTurn(
        number=number,
        visitor=visitor,
        assistant=assistant,
        route=route,
        routing=None,
        intent=None,
        details={},
        # SQLite hands back naive datetimes (UTC): the timeline must still order them.
        at=(START + timedelta(minutes=minute)).replace(tzinfo=None),
    )


def event(event_id: int, kind: str, minute: int, **body: Any) -> Published:
    at = (START + timedelta(minutes=minute)).isoformat()
    return Published(event_id, kind, {"type": kind, "id": event_id, "at": at, **body})


def test_turns_and_live_events_interleave_in_time_order_and_a_relayed_message_shows_once() -> None:
    transcript = Transcript(
        conversation=Conversation(session_id="s1", site_id="demo"),
        turns=[
            turn(1, "How do I sync?", "Open Settings [1].", "ANSWER", 0),
            turn(2, "Thanks Dana", "", "HUMAN", 3),  # relayed: also a visitor_message
            turn(3, "What code did Dana give me?", "KESTREL-9041.", "ANSWER", 6),
        ],
    )
    log = [
        event(7, "operator_joined", 1, name="Dana", company="Acme"),
        event(8, "operator_message", 2, name="Dana", text="Your code is KESTREL-9041."),
        event(9, "typing", 2, who="visitor", active=True),
        event(10, "visitor_message", 3, text="Thanks Dana"),
        event(11, "released", 5, name="Dana"),
    ]
    lines = timeline(transcript, log)
    assert [(line.kind, line.text) for line in lines] == [
        ("visitor", "How do I sync?"),
        ("assistant", "Open Settings [1]."),
        ("note", "Dana from Acme joined"),
        ("operator", "Your code is KESTREL-9041."),
        ("visitor", "Thanks Dana"),
        ("note", "Back to the assistant (Dana released the chat)"),
        ("visitor", "What code did Dana give me?"),
        ("assistant", "KESTREL-9041."),
    ]
    assert [line.event_id for line in lines if line.event_id] == [7, 8, 10, 11]
    assert lines[3].who == "Dana"
