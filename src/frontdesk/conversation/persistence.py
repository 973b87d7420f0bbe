"""Writing a finished turn to the app store in one transaction: messages, trace,
handoff and its outbox rows, captured leads (seed 004: nothing acknowledged unsaved)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.conversation.payload import TurnResult
from frontdesk.handoff.outbox import enqueue_handoff, handoff_channels, record_lead_capture
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.repositories import (
    ConversationRepository,
    StoredTurn,
    TraceRepository,
)


@dataclass
class TurnRecord:
    site: SiteConfig
    session_id: str
    message: str
    result: TurnResult
    values: dict[str, Any]
    timings_ms: dict[str, float] = field(default_factory=dict)
    latency_ms: float = 0.0
    engine: str = "local"
    # Accounting of the turn's model calls (engines/llm/accounting.py).
    model: str | None = None
    prompt_version: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    llm_calls: list[dict[str, Any]] = field(default_factory=list)
    # Wall-clock end of the turn (the record is built as the graph finishes); exported
    # spans are laid out backwards from it (observability/tracing.py).
    ended_ns: int = field(default_factory=time.time_ns)


__all__ = ["TurnRecord", "TurnWriter", "handoff_channels"]


class TurnWriter:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def write(self, record: TurnRecord) -> None:
        result, values, site = record.result, record.values, record.site
        with transaction(self.sessions) as session:
            turn = ConversationRepository(session).record_turn(
                site.id,
                record.session_id,
                StoredTurn(
                    user_text=record.message,
                    assistant_text=result.answer,
                    route=result.route,
                    routing=result.routing,
                    intent=result.intent,
                    language=result.language,
                    details={
                        "citations": [c.model_dump() for c in result.citations],
                        "lead": result.lead.level,
                        "handoff": result.handoff.model_dump() if result.handoff else None,
                    },
                ),
            )
            retrieval = values.get("retrieval") or {}
            TraceRepository(session).append(
                site_id=site.id,
                session_id=record.session_id,
                turn=turn,
                route=result.route,
                routing=result.routing,
                intent=result.intent,
                engine=record.engine,
                model=record.model,
                prompt_version=record.prompt_version,
                tokens_in=record.tokens_in,
                tokens_out=record.tokens_out,
                cost_usd=record.cost_usd,
                latency_ms=round(record.latency_ms, 3),
                nodes=[
                    *({"node": name, "ms": ms} for name, ms in record.timings_ms.items()),
                    *record.llm_calls,
                ],
                retrieval=[
                    {
                        "chunk_id": c.get("chunk_id"),
                        "doc_id": c.get("doc_id"),
                        "score": c.get("score"),
                    }
                    for c in retrieval.get("chunks") or []
                ],
                citations=[c.model_dump() for c in result.citations],
            )
            self._handoff(session, record, turn)
            self._lead_capture(session, record)

    def _handoff(self, session: Session, record: TurnRecord, turn: int) -> None:
        handoff = record.values.get("handoff")
        if not handoff or not handoff.get("notify"):
            return
        enqueue_handoff(
            session,
            site=record.site,
            session_id=record.session_id,
            turn=turn,
            handoff={"lead_level": record.result.lead.level, **handoff},
            values=record.values,
            message=record.message,
            language=record.result.language,
        )

    def _lead_capture(self, session: Session, record: TurnRecord) -> None:
        capture = record.values.get("lead_capture")
        if not capture:
            return
        record_lead_capture(
            session,
            site=record.site,
            session_id=record.session_id,
            capture=capture,
            level=record.result.lead.level,
            form=(record.values.get("form_collection") or {}).get("collected_values"),
            profile=record.values.get("visitor_profile"),
        )

    def write_failure(
        self, site: SiteConfig, session_id: str, message: str, partial: str, fallback: str
    ) -> None:
        with transaction(self.sessions) as session:
            ConversationRepository(session).record_turn(
                site.id,
                session_id,
                StoredTurn(
                    user_text=message,
                    assistant_text=(partial + "\n\n" + fallback).strip(),
                    route=None,
                    routing="cannot_answer",
                    details={"error": True},
                ),
            )

    def write_blocked(
        self, site: SiteConfig, session_id: str, message: str, result: TurnResult, kind: str
    ) -> None:
        with transaction(self.sessions) as session:
            ConversationRepository(session).record_turn(
                site.id,
                session_id,
                StoredTurn(
                    user_text=message[:20_000],
                    assistant_text=result.answer,
                    route="BLOCKED",
                    routing=result.routing,
                    intent=result.intent,
                    details={"block": kind},
                ),
            )

    def history(self, site_id: str, session_id: str) -> list[dict[str, Any]]:
        with self.sessions() as session:
            return [
                {
                    "turn": m.turn,
                    "role": m.role,
                    "content": m.content,
                    "route": m.route,
                    "routing": m.routing,
                    "created_at": m.created_at.isoformat(),
                }
                for m in ConversationRepository(session).messages(site_id, session_id)
            ]

    def export(self, site_id: str, session_id: str) -> dict[str, Any]:
        with self.sessions() as session:
            traces = TraceRepository(session).for_session(site_id, session_id)
            return {
                "site_id": site_id,
                "session_id": session_id,
                "messages": self.history(site_id, session_id),
                "traces": [
                    {
                        "turn": t.turn,
                        "route": t.route,
                        "routing": t.routing,
                        "intent": t.intent,
                        "latency_ms": t.latency_ms,
                        "engine": t.engine,
                        "model": t.model,
                        "prompt_version": t.prompt_version,
                        "tokens_in": t.tokens_in,
                        "tokens_out": t.tokens_out,
                        "cost_usd": t.cost_usd,
                        "nodes": t.nodes,
                        "citations": t.citations,
                    }
                    for t in traces
                ],
            }

    def erase(self, site_id: str, session_id: str) -> bool:
        with transaction(self.sessions) as session:
            removed = ConversationRepository(session).delete(site_id, session_id)
            traces = TraceRepository(session).delete_session(site_id, session_id)
            return removed or traces > 0
