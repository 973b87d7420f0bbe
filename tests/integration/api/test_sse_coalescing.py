"""Tokens the backend had ready together leave in one network write, each still its own
SSE event; nothing is held back past a token without `more`, a complete or an error."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from api_support import parse_sse

from frontdesk.api.metrics import ApiMetrics
from frontdesk.api.sse import turn_events
from frontdesk.api.turns import Admission
from frontdesk.conversation.payload import (
    CompleteEvent,
    ErrorEvent,
    TokenEvent,
    TurnEvent,
    TurnResult,
)
from frontdesk.guard.limits import LimitDecision
from frontdesk.guard.locks import InMemorySessionLocks

pytestmark = pytest.mark.integration


async def _admission() -> Admission:
    locks = InMemorySessionLocks()
    token = await locks.acquire("demo:s1")
    assert token is not None
    return Admission(locks, "demo:s1", token, LimitDecision(True, "session", 10, 9, 60))


async def _writes(events: list[TurnEvent]) -> tuple[list[bytes], Admission]:
    async def backend() -> AsyncIterator[TurnEvent]:
        for event in events:
            yield event

    admission = await _admission()
    chunks = [
        chunk
        async for chunk in turn_events(
            backend(), site_id="demo", admission=admission, metrics=ApiMetrics()
        )
    ]
    return chunks, admission


def _result() -> TurnResult:
    return TurnResult(
        answer="Hello there",
        routing="answered",
        route="ANSWER",
        intent="LEARN",
        language="en",
        session_id="s1",
        turn=1,
    )


async def test_ready_tokens_share_a_write_and_keep_their_own_events() -> None:
    chunks, admission = await _writes(
        [
            TokenEvent("Hel", more=True),
            TokenEvent("lo ", more=True),
            TokenEvent("there"),  # the backend had nothing more: this write goes out now
            TokenEvent("!", more=True),
            CompleteEvent(_result()),  # a held token leaves with the complete event
        ]
    )
    assert len(chunks) == 2
    first = parse_sse(chunks[0].decode())
    assert [data["content"] for _, data in first] == ["Hel", "lo ", "there"]
    second = parse_sse(chunks[1].decode())
    assert [name for name, _ in second] == ["token", "complete"]
    assert second[0][1]["content"] == "!"
    assert admission.released, "the session slot is freed when the stream ends"


async def test_tokens_without_the_hint_are_written_one_by_one() -> None:
    chunks, _ = await _writes(
        [TokenEvent("a "), TokenEvent("b "), TokenEvent("c"), CompleteEvent(_result())]
    )
    assert len(chunks) == 4  # an LLM streaming slowly: every token as soon as it exists


async def test_held_tokens_are_not_lost_when_the_turn_fails() -> None:
    chunks, _ = await _writes(
        [TokenEvent("partial ", more=True), ErrorEvent("turn_failed", "Sorry, try again.")]
    )
    events = parse_sse(b"".join(chunks).decode())
    assert [name for name, _ in events] == ["token", "error"]
    assert events[0][1]["content"] == "partial "


async def test_a_stream_that_ends_early_still_flushes_and_reports_it() -> None:
    chunks, _ = await _writes([TokenEvent("cut ", more=True)])
    events = parse_sse(b"".join(chunks).decode())
    assert [name for name, _ in events] == ["token", "error"]
    assert events[1][1]["code"] == "incomplete_turn"
