"""Turning the graph's final state into the visitor-facing `TurnResult` (pure)."""

from __future__ import annotations

from frontdesk.conversation.payload import (
    CallToAction,
    Citation,
    HandoffInfo,
    LeadInfo,
    Source,
    TurnResult,
)
from frontdesk.conversation.state import ChatUpdate, TurnValues
from frontdesk.leads.qualification import QualificationState, lead_level


def build_result(values: TurnValues, session_id: str) -> TurnResult:
    low_confidence = bool(values.get("low_confidence")) and values.get("routing") == (
        "low_confidence"
    )
    # A low-confidence answer shows a disclaimer and omits source links.
    citations = (
        []
        if low_confidence
        else [
            Citation(
                index=c["index"],
                doc_id=c["doc_id"],
                title=c["title"],
                url=c.get("url", ""),
                excerpt=c.get("excerpt", ""),
                language=c.get("language", ""),
                translated=bool(c.get("translated", False)),
            )
            for c in values.get("citations") or []
        ]
    )
    if values.get("routing") == "partially_answered":
        citations = citations[:1]  # one "related article" with a partial answer
    sources: dict[str, Source] = {}
    for citation in citations:
        sources.setdefault(
            citation.doc_id, Source(doc_id=citation.doc_id, title=citation.title, url=citation.url)
        )
    qualification = QualificationState.model_validate(values.get("qualification") or {})
    handoff = values.get("handoff")
    cta = values.get("cta")
    return TurnResult(
        answer=values.get("answer") or "",
        routing=values.get("routing") or "answered",
        route=values.get("route") or "REDIRECT",
        intent=(values.get("intent") or {}).get("label", "OTHER"),
        language=values.get("language") or "en",
        citations=citations,
        sources=list(sources.values()),
        suggested_follow_ups=list(values.get("suggested_follow_ups") or []),
        suggested_answers=list(values.get("suggested_answers") or []),
        cta=CallToAction(**cta) if cta else None,
        lead=LeadInfo(level=lead_level(qualification)),
        handoff=HandoffInfo(reason=handoff["reason"], status=handoff.get("status", "proposed"))
        if handoff
        else None,
        low_confidence=low_confidence,
        session_id=session_id,
        turn=int(values.get("turn_number") or 0),
    )


# Fields that describe one turn only: reset at the start of every turn so nothing leaks.
TURN_RESET: ChatUpdate = {
    "block": None,
    "route": None,
    "route_reason": None,
    "site_support": None,
    "search_query": None,
    "retrieval": None,
    "graded_chunks": [],
    "fact_reply": None,
    "team_match": None,
    "team_recall": None,
    "answer": "",
    "citations": [],
    "verification": None,
    "evaluation": None,
    "retries": 0,
    "routing": None,
    "low_confidence": False,
    "writer_failed": False,
    "handoff": None,
    "lead_capture": None,
    "stall": False,
    "suggested_follow_ups": [],
    "suggested_answers": [],
    "cta": None,
    "relayed": None,
}
