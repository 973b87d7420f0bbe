"""Running dataset items through the real conversation graph, one fresh session each.

A single-turn item sends its query to an empty session. A multi-turn item first gets
its history written into the session's checkpoint (`replay.inject`), then
only the final query is sent. Either way the turn goes through `ChatService.ask`, the
same path as the API, and the outcome is read from the graph's final state. The
session is erased afterwards.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from frontdesk.conversation.markers import form_field_ids
from frontdesk.conversation.payload import VisitorContext
from frontdesk.evals.dataset import ABSTAIN_ROUTINGS, EvalItem
from frontdesk.evals.replay import inject, reconstruct
from frontdesk.sites.registry import LoadedSite

Progress = Callable[[], None]


@dataclass
class Outcome:
    """What the product did with one item (all read from the graph state after the turn)."""

    item: EvalItem
    intent: str | None = None
    high_stakes: bool = False
    route: str | None = None
    route_reason: str | None = None
    routing: str | None = None
    skills: tuple[str, ...] = ()
    language: str | None = None
    answer: str = ""
    cited_doc_ids: tuple[str, ...] = ()
    chunks: dict[int, str] = field(default_factory=dict)  # [n] → text of the chunk it cites
    retrieved: tuple[str, ...] = ()  # document ranking of the turn's retrieval
    handoff: str | None = None
    cta: bool = False
    collected: dict[str, str] = field(default_factory=dict)
    latency_ms: float = 0.0
    injected: dict[str, Any] | None = None  # the replayed state, for the report
    error: str | None = None
    judge: dict[str, Any] | None = None  # LLM-as-judge scores, when a judge ran
    site_support: dict[str, Any] | None = None  # the on-topic check, when it ran
    # The answer path's own view, for the report: the self-evaluation, the claim check's
    # factuality and the best cosine of the turn's search.
    evaluation: dict[str, Any] | None = None
    factuality: float | None = None
    top_score: float | None = None

    @property
    def injection_detected(self) -> bool:
        return self.intent == "HACK" or self.route_reason == "hack"

    @property
    def abstained(self) -> bool:
        return self.routing in ABSTAIN_ROUTINGS or self.route == "HANDOFF"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.item.id,
            "query": self.item.query,
            "multi_turn": self.item.multi_turn,
            "intent": self.intent,
            "high_stakes": self.high_stakes,
            "route": self.route,
            "route_reason": self.route_reason,
            "routing": self.routing,
            "skills": list(self.skills),
            "language": self.language,
            "answer": self.answer,
            "cited_doc_ids": list(self.cited_doc_ids),
            "retrieved": list(self.retrieved[:10]),
            "handoff": self.handoff,
            "cta": self.cta,
            "collected": self.collected,
            "latency_ms": round(self.latency_ms, 1),
            "injected": self.injected,
            "error": self.error,
            "judge": self.judge,
            "site_support": self.site_support,
            "evaluation": self.evaluation,
            "factuality": self.factuality,
            "top_score": self.top_score,
        }


def document_ranking(retrieval: dict[str, Any] | None) -> tuple[str, ...]:
    """Distinct document ids in the order of their best chunk."""
    chunks = (retrieval or {}).get("chunks") or []
    return tuple(dict.fromkeys(str(c.get("doc_id")) for c in chunks))


def outcome_from_state(item: EvalItem, values: dict[str, Any], latency_ms: float) -> Outcome:
    intent = values.get("intent") or {}
    retrieval = values.get("retrieval") or {}
    graded = values.get("graded_chunks") or []
    citations = values.get("citations") or []
    handoff = values.get("handoff") or {}
    collected = (values.get("form_collection") or {}).get("collected_values") or {}
    return Outcome(
        item=item,
        intent=intent.get("label"),
        high_stakes=bool(intent.get("high_stakes")),
        route=values.get("route"),
        route_reason=values.get("route_reason"),
        routing=values.get("routing"),
        skills=tuple((values.get("skill_selection") or {}).get("skills") or ()),
        language=values.get("language"),
        answer=str(values.get("answer") or ""),
        cited_doc_ids=tuple(dict.fromkeys(str(c.get("doc_id")) for c in citations)),
        chunks={n: str(c.get("content", "")) for n, c in enumerate(graded, start=1)},
        retrieved=document_ranking(retrieval),
        handoff=handoff.get("reason") if handoff else None,
        cta=bool(values.get("cta")),
        collected={str(k): str(v) for k, v in collected.items()},
        latency_ms=latency_ms,
        site_support=dict(values["site_support"]) if values.get("site_support") else None,
        evaluation=dict(values["evaluation"]) if values.get("evaluation") else None,
        factuality=(values.get("verification") or {}).get("factuality_score"),
        top_score=retrieval.get("top_score"),
    )


async def run_item(service: Any, site: LoadedSite, item: EvalItem) -> Outcome:
    """One item through the graph in a fresh session (history injected first, if any)."""
    session_id = f"eval-{uuid.uuid4()}"
    graph = await service.graph()
    config = {"configurable": {"thread_id": f"{site.config.id}:{session_id}"}}
    injected: dict[str, Any] | None = None
    try:
        if item.multi_turn:
            rebuilt = reconstruct(
                item.metadata.history, item.query, form_field_ids(site.config.qualification.forms)
            )
            await inject(graph, config, rebuilt)
            update = rebuilt.state_update()
            injected = {
                "messages": len(rebuilt.turns),
                "turn_number": rebuilt.turn_number,
                "dialog_supervision": update.get("dialog_supervision"),
                "form_collection": update.get("form_collection"),
            }
        started = time.perf_counter()
        await service.ask(site, session_id, item.query, VisitorContext())
        latency = (time.perf_counter() - started) * 1000.0
        values = (await graph.aget_state(config)).values
        outcome = outcome_from_state(item, values, latency)
        outcome.injected = injected
        return outcome
    except Exception as exc:  # one broken item must not end the run
        return Outcome(item=item, error=f"{type(exc).__name__}: {exc}", injected=injected)
    finally:
        drain = getattr(service.knowledge, "drain", None)
        if drain is not None:
            await drain()  # a fast path's cancelled search still runs in its thread
        await service.erase(site, session_id)


async def run_items(
    service: Any,
    site: LoadedSite,
    items: Sequence[EvalItem],
    *,
    advance: Progress | None = None,
) -> list[Outcome]:
    """Every item, in order (sequentially: the local engine is CPU-bound anyway)."""
    outcomes = []
    for item in items:
        outcomes.append(await run_item(service, site, item))
        if advance is not None:
            advance()
    return outcomes


@dataclass(frozen=True)
class SearchOutcome:
    """Retrieval of one query straight from the site's knowledge base."""

    item: EvalItem
    ranking: tuple[str, ...]
    context: str  # the top-k chunks the answer writer would see
    status: str
    latency_ms: float


async def search_item(service: Any, site: LoadedSite, item: EvalItem, depth: int) -> SearchOutcome:
    started = time.perf_counter()
    result = await service.knowledge.asearch(site.config, item.query, top_k=depth)
    latency = (time.perf_counter() - started) * 1000.0
    top_k = site.config.knowledge.top_k
    return SearchOutcome(
        item=item,
        ranking=tuple(dict.fromkeys(c.doc_id for c in result.chunks)),
        context="\n".join(c.content for c in result.chunks[:top_k]),
        status=result.status,
        latency_ms=latency,
    )
