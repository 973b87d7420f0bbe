"""A finished turn as a tree of spans, built after the fact from its stored record.

Pure: no OpenTelemetry import, no I/O. `observability/tracing.py` turns the plans into
SDK spans. The tree is one root span `frontdesk.turn`, one child per graph node (named
as the node, in the order the nodes finished) and one `llm:<job>` span per model call,
under the node of the same name when there is one.

The record keeps durations, not start times, so the spans are laid out backwards from
the turn's end: the last node ends when the turn ended, each earlier node ends where the
next one starts. Nodes that ran in parallel therefore show one after the other, and the
graph's own overhead collects before the first node. A node's `frontdesk.node.ms` is
always the measured duration.

Message and answer text are left out unless `content=True` (setting `trace_content`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from frontdesk.conversation.persistence import ModelCall, TurnRecord

AttributeValue = str | bool | int | float | Sequence[str] | Sequence[float]

ROOT = "frontdesk.turn"
# Entries of `timings_ms` that are offsets from the turn's start, not node durations.
OFFSETS = frozenset({"first_token"})
# Entries that time part of a node (`retry_search`: the search inside `retry_retrieval`),
# already inside that node's span: attributes, not spans of their own.
PARTS = frozenset({"retry_search"})
NOT_NODES = OFFSETS | PARTS


@dataclass(frozen=True)
class SpanPlan:
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, AttributeValue]
    parent: int | None = None  # index of the parent plan; None for the root
    ok: bool = True
    events: tuple[tuple[str, int], ...] = field(default_factory=tuple)


def _ns(ms: float) -> int:
    return max(0, round(ms * 1_000_000))


def _attributes(pairs: dict[str, Any]) -> dict[str, AttributeValue]:
    """OpenTelemetry accepts no None: unset values are left out."""
    return {key: value for key, value in pairs.items() if value is not None}


def turn_attributes(record: TurnRecord, *, content: bool = False) -> dict[str, AttributeValue]:
    result = record.result
    retrieval = record.values.get("retrieval")
    chunks = [c for c in (retrieval.get("chunks") or []) if c] if retrieval else []
    handoff = record.values.get("handoff")
    pairs: dict[str, Any] = {
        "frontdesk.site": record.site.id,
        "session.id": record.session_id,
        "frontdesk.turn": result.turn,
        "frontdesk.route": result.route,
        "frontdesk.routing": result.routing,
        "frontdesk.intent": result.intent,
        "frontdesk.language": result.language,
        "frontdesk.engine": record.engine,
        "frontdesk.model": record.model,
        "frontdesk.prompt_version": record.prompt_version,
        "frontdesk.tokens_in": record.tokens_in,
        "frontdesk.tokens_out": record.tokens_out,
        "frontdesk.cost_usd": record.cost_usd,
        "frontdesk.latency_ms": round(record.latency_ms, 3),
        "frontdesk.first_token_ms": record.timings_ms.get("first_token"),
        "frontdesk.nodes": [name for name in record.timings_ms if name not in NOT_NODES],
        "frontdesk.retry_search_ms": record.timings_ms.get("retry_search"),
        "frontdesk.retrieval.count": len(chunks),
        "frontdesk.retrieval.chunk_ids": [str(c.get("chunk_id")) for c in chunks],
        "frontdesk.retrieval.doc_ids": [str(c.get("doc_id")) for c in chunks],
        "frontdesk.retrieval.scores": [float(c.get("score") or 0.0) for c in chunks],
        "frontdesk.citations.count": len(result.citations),
        "frontdesk.citations.doc_ids": [c.doc_id for c in result.citations],
        "frontdesk.lead.level": result.lead.level,
        "frontdesk.handoff": bool(handoff and handoff.get("notify")),
        "frontdesk.low_confidence": result.low_confidence,
    }
    if content:
        pairs["frontdesk.input"] = record.message
        pairs["frontdesk.output"] = result.answer
    return _attributes(pairs)


def turn_spans(record: TurnRecord, *, content: bool = False) -> list[SpanPlan]:
    """The root span, then the node spans in order, then the model-call spans."""
    nodes = [(name, ms) for name, ms in record.timings_ms.items() if name not in NOT_NODES]
    end = record.ended_ns
    latency = record.latency_ms or sum(ms for _, ms in nodes)
    start = end - _ns(latency)
    events: tuple[tuple[str, int], ...] = ()
    if (first_token := record.timings_ms.get("first_token")) is not None:
        events = (("first_token", min(end, start + _ns(first_token))),)
    plans = [SpanPlan(ROOT, start, end, turn_attributes(record, content=content), events=events)]

    windows: list[tuple[int, int]] = []
    cursor = end
    for _, ms in reversed(nodes):
        node_start = max(start, cursor - _ns(ms))
        windows.append((node_start, cursor))
        cursor = node_start
    windows.reverse()
    by_name: dict[str, int] = {}
    for order, ((name, ms), (node_start, node_end)) in enumerate(zip(nodes, windows, strict=True)):
        by_name[name] = len(plans)
        plans.append(
            SpanPlan(
                name,
                node_start,
                node_end,
                {"frontdesk.node": name, "frontdesk.node.order": order, "frontdesk.node.ms": ms},
                parent=0,
            )
        )

    # Model calls end with the node that made them, the last call last.
    cursors = {index: plans[index].end_ns for index in [0, *by_name.values()]}
    calls = [_llm_span(call, by_name, cursors, plans) for call in reversed(record.llm_calls)]
    return plans + calls[::-1]


def _llm_span(
    call: ModelCall,
    by_name: dict[str, int],
    cursors: dict[int, int],
    plans: list[SpanPlan],
) -> SpanPlan:
    name = str(call.get("node") or "llm:llm")
    job = name.removeprefix("llm:")
    parent = by_name.get(job, 0)
    ms = float(call.get("ms") or 0.0)
    call_end = cursors[parent]
    call_start = max(plans[parent].start_ns, call_end - _ns(ms))
    cursors[parent] = call_start
    model = str(call.get("model") or "")
    provider, _, model_name = model.rpartition(":")
    return SpanPlan(
        name,
        call_start,
        call_end,
        _attributes(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.system": provider or None,
                "gen_ai.request.model": model_name or None,
                "gen_ai.usage.input_tokens": int(call.get("tokens_in") or 0),
                "gen_ai.usage.output_tokens": int(call.get("tokens_out") or 0),
                "frontdesk.llm.job": job,
                "frontdesk.llm.ms": ms,
            }
        ),
        parent=parent,
        ok=bool(call.get("ok", True)),
    )
