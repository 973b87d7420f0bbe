"""What a kept turn writes beside its messages: its trace row, its handoff with the outbox
rows, the captured lead, and the decision the team reads in the console.

The handoff and the lead are written in the turn's transaction, also when a spooled turn
is replayed (`conversation/replay.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from sqlalchemy.orm import Session

from frontdesk.conversation.payload import TurnResult
from frontdesk.conversation.state import TurnValues
from frontdesk.handoff.outbox import complete_handoff, enqueue_handoff, record_lead_capture
from frontdesk.handoff.packets import HandoffRequest
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.repositories import TraceRepository

if TYPE_CHECKING:
    from frontdesk.conversation.persistence import TurnRecord


def turn_side_effects(
    session: Session,
    site: SiteConfig,
    session_id: str,
    turn: int,
    message: str,
    values: TurnValues,
    lead_level: str,
) -> None:
    """The handoff with its outbox rows and the captured lead, in the turn's
    transaction (also when a spooled turn is replayed)."""
    handoff = values.get("handoff")
    if handoff and handoff.get("notify"):
        # The visitor's answer to a contact question completes the handoff that asked.
        completes = handoff.get("completes_turn") is not None
        write = complete_handoff if completes else enqueue_handoff
        request = HandoffRequest(
            site=site,
            session_id=session_id,
            turn=turn,
            handoff={"lead_level": lead_level, **handoff},
            values=values,
            message=message,
            language=values.get("language") or site.default_language,
        )
        write(session, request)
    capture = values.get("lead_capture")
    if capture:
        record_lead_capture(
            session,
            site=site,
            session_id=session_id,
            capture=capture,
            level=lead_level,
            form=(values.get("form_collection") or {}).get("collected_values"),
            profile=values.get("visitor_profile"),
        )


def append_trace(session: Session, record: TurnRecord, turn: int) -> None:
    """The turn's trace row: labels, engine and usage, node timings, passages, citations."""
    result = record.result
    retrieval = record.values.get("retrieval")
    chunks = (retrieval.get("chunks") or []) if retrieval else []
    TraceRepository(session).append(
        site_id=record.site.id,
        session_id=record.session_id,
        turn=turn,
        **turn_labels(result),
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
            for c in chunks
        ],
        citations=[c.model_dump() for c in result.citations],
    )


def turn_decision(values: TurnValues) -> dict[str, object]:
    """Pure: why the turn went where it went, for the team. The intent label only names the
    kind of message; whether it is about this business is the site's content's call
    (`site_support`, when it was asked), and a conversation act is named as such."""
    decision: dict[str, object] = {"reason": values.get("route_reason")}
    act = (values.get("intent") or {}).get("act")
    if act:
        decision["act"] = act
    support = values.get("site_support")
    if support:
        decision["site_support"] = {
            "supported": bool(support.get("supported")),
            "score": support.get("score"),
            "threshold": support.get("threshold"),
        }
    return decision


class TurnLabels(TypedDict):
    route: str
    routing: str
    intent: str


def turn_labels(result: TurnResult) -> TurnLabels:
    """How the turn was routed, as both the message and its trace record it."""
    return {"route": result.route, "routing": result.routing, "intent": result.intent}
