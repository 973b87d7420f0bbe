"""A scripted `ChatBackend` for testing the HTTP layer (not the graph).

Each turn follows a `Reply` script: tokens (with an optional delay between them), then a
`TurnResult` — or an error event, an exception, or a silent end. The backend keeps the
history of each (site, session) so session routes have something real to return, and
records what happened (calls, cancellations, concurrency) for assertions. It is safe
to drive from another thread (a live uvicorn server in the browser tests).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from frontdesk.conversation.payload import (
    CallToAction,
    Citation,
    CompleteEvent,
    ErrorEvent,
    HandoffInfo,
    LeadInfo,
    Source,
    TokenEvent,
    TurnEvent,
    TurnResult,
    VisitorContext,
)
from frontdesk.sites.registry import LoadedSite

DEMO_ANSWER = (
    "**Tessellate Flow** is a workflow-automation and data-sync platform for operations "
    "teams [1]. It connects the systems you already run:\n\n"
    "- CRM and helpdesk tools such as *Salesforce* and *Zendesk* [2]\n"
    "- data warehouses like Snowflake and BigQuery [2]\n\n"
    "Records stay in sync and multi-step processes run automatically [1]."
)
DEMO_CITATIONS = [
    Citation(
        index=1,
        doc_id="product-overview",
        title="Tessellate Flow: Product Overview",
        url="https://tessellate.example/docs/product-overview",
        excerpt="Tessellate Flow is a workflow-automation and data-sync platform for "
        "operations teams.",
    ),
    Citation(
        index=2,
        doc_id="integrations",
        title="Integrations and Connectors",
        url="https://tessellate.example/docs/integrations",
        excerpt="Pre-built connectors for Salesforce, HubSpot, Zendesk, Snowflake and more.",
    ),
]
FOLLOW_UPS = ["How does Data Sync handle conflicts?", "Which integrations are available?"]
FOLLOW_UP_ANSWER = (
    "Two-way syncs resolve conflicts with a policy you choose per sync: the most recent "
    "change wins, or one system is always the source of truth [1]."
)


def split_tokens(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass
class Reply:
    """What one turn does."""

    answer: str = DEMO_ANSWER
    tokens: list[str] | None = None
    token_delay_s: float = 0.0
    delay_before_s: float = 0.0
    routing: str = "answered"
    route: str = "ANSWER"
    intent: str = "learn"
    citations: list[Citation] = field(default_factory=lambda: list(DEMO_CITATIONS))
    follow_ups: list[str] = field(default_factory=lambda: list(FOLLOW_UPS))
    suggested_answers: list[str] = field(default_factory=list)
    cta: CallToAction | None = None
    handoff: HandoffInfo | None = None
    lead_level: str = "cold"
    low_confidence: bool = False
    error: ErrorEvent | None = None
    raise_after_tokens: Exception | None = None
    end_silently: bool = False
    hold: threading.Event | None = None
    """When set, the turn waits (after its first token) until the event is set."""


class ScriptedBackend:
    def __init__(self, replies: list[Reply] | None = None, default: Reply | None = None) -> None:
        self.replies = list(replies or [])
        self.default = default or Reply()
        self.calls: list[tuple[str, str, str, VisitorContext]] = []
        self.cancelled = 0
        self.completed = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.started = threading.Event()
        self._lock = threading.Lock()
        self._store: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def _next(self, message: str) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.pop(0)
        if message == FOLLOW_UPS[0]:
            return Reply(answer=FOLLOW_UP_ANSWER, citations=[DEMO_CITATIONS[0]], follow_ups=[])
        return self.default

    async def stream_turn(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> AsyncIterator[TurnEvent]:
        site_id = site.config.id
        reply = self._next(message)
        with self._lock:
            self.calls.append((site_id, session_id, message, visitor))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.started.set()
        try:
            if reply.delay_before_s:
                await asyncio.sleep(reply.delay_before_s)
            tokens = reply.tokens if reply.tokens is not None else split_tokens(reply.answer)
            for position, token in enumerate(tokens):
                yield TokenEvent(token)
                if position == 0 and reply.hold is not None:
                    # A threading.Event: tests set it from another thread (or loop).
                    while not reply.hold.is_set():  # noqa: ASYNC110
                        await asyncio.sleep(0.01)
                if reply.token_delay_s:
                    await asyncio.sleep(reply.token_delay_s)
            if reply.raise_after_tokens is not None:
                raise reply.raise_after_tokens
            if reply.error is not None:
                yield reply.error
                return
            if reply.end_silently:
                return
            turn = self._persist(site_id, session_id, message, reply)
            yield CompleteEvent(self._result(reply, session_id, turn))
            with self._lock:
                self.completed += 1
        except (asyncio.CancelledError, GeneratorExit):
            with self._lock:
                self.cancelled += 1
            raise
        finally:
            with self._lock:
                self.in_flight -= 1

    async def ask(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> TurnResult:
        async for event in self.stream_turn(site, session_id, message, visitor):
            if isinstance(event, CompleteEvent):
                return event.result
            if isinstance(event, ErrorEvent):
                raise RuntimeError(f"{event.code}: {event.message}")
        raise RuntimeError("turn ended without a result")

    async def history(self, site: LoadedSite, session_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._store.get((site.config.id, session_id), []))

    async def erase(self, site: LoadedSite, session_id: str) -> bool:
        with self._lock:
            return self._store.pop((site.config.id, session_id), None) is not None

    async def export(self, site: LoadedSite, session_id: str) -> dict[str, Any]:
        messages = await self.history(site, session_id)
        return {"site_id": site.config.id, "session_id": session_id, "messages": messages}

    def _persist(self, site_id: str, session_id: str, message: str, reply: Reply) -> int:
        with self._lock:
            messages = self._store.setdefault((site_id, session_id), [])
            turn = len(messages) // 2 + 1
            messages.append({"role": "user", "content": message, "turn": turn})
            messages.append(
                {
                    "role": "assistant",
                    "content": reply.answer,
                    "turn": turn,
                    "route": reply.route,
                    "routing": reply.routing,
                    "citations": [c.model_dump() for c in reply.citations],
                }
            )
            return turn

    @staticmethod
    def _result(reply: Reply, session_id: str, turn: int) -> TurnResult:
        return TurnResult.model_validate(
            {
                "answer": reply.answer,
                "routing": reply.routing,
                "route": reply.route,
                "intent": reply.intent,
                "language": "en",
                "citations": [c.model_dump() for c in reply.citations],
                "sources": [
                    Source(doc_id=c.doc_id, title=c.title, url=c.url).model_dump()
                    for c in reply.citations
                ],
                "suggested_follow_ups": reply.follow_ups,
                "suggested_answers": reply.suggested_answers,
                "cta": reply.cta.model_dump() if reply.cta else None,
                "lead": LeadInfo.model_validate({"level": reply.lead_level}).model_dump(),
                "handoff": reply.handoff.model_dump() if reply.handoff else None,
                "low_confidence": reply.low_confidence,
                "session_id": session_id,
                "turn": turn,
            }
        )
