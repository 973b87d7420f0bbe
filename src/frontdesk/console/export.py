"""A conversation as a JSON document or Markdown (pure: a `Transcript` in, text out).

The Markdown is meant to be opened in any viewer, so every text in it is escaped
(`console.links`): a visitor's `<img onerror=…>`, `[link](javascript:…)` or a line that
imitates a turn heading stays text, messages are block quotes, and only http(s) addresses
become links.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from frontdesk.console.links import markdown_link, markdown_quote, markdown_text
from frontdesk.store.inbox import Transcript, TranscriptTurn


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.isoformat()


def _trace(turn: TranscriptTurn) -> dict[str, Any] | None:
    trace = turn.trace
    if trace is None:
        return None
    return {
        "engine": trace.engine,
        "model": trace.model,
        "prompt_version": trace.prompt_version,
        "latency_ms": trace.latency_ms,
        "tokens_in": trace.tokens_in,
        "tokens_out": trace.tokens_out,
        "cost_usd": trace.cost_usd,
        "nodes": trace.nodes,
        "retrieval": trace.retrieval,
    }


def transcript_document(site_id: str, transcript: Transcript) -> dict[str, Any]:
    conversation = transcript.conversation
    return {
        "site_id": site_id,
        "session_id": conversation.session_id,
        "language": conversation.language,
        "started_at": _iso(conversation.started_at),
        "last_activity_at": _iso(conversation.last_activity_at),
        "visitor": {
            "pages": transcript.pages(),
            "referrers": transcript.referrers(),
            "enrichment": transcript.enrichment(),
        },
        "turns": [
            {
                "turn": turn.number,
                "at": _iso(turn.at),
                "page": turn.page or None,
                "referrer": turn.referrer or None,
                "enrichment": turn.details.get("enrichment") or None,
                "visitor": turn.visitor,
                "assistant": turn.assistant,
                "route": turn.route,
                "routing": turn.routing,
                "intent": turn.intent,
                # The decision beside the label: the route's reason, a conversation act,
                # and whether the site's own pages cover the message.
                "reason": turn.details.get("reason"),
                "act": turn.details.get("act"),
                "site_support": turn.details.get("site_support"),
                "lead_level": turn.details.get("lead"),
                "citations": turn.details.get("citations") or [],
                "trace": _trace(turn),
                "feedback": (
                    {"rating": turn.feedback.rating, "comment": turn.feedback.comment}
                    if turn.feedback is not None
                    else None
                ),
            }
            for turn in transcript.turns
        ],
        "handoffs": [
            {
                "id": h.id,
                "reason": h.reason,
                "status": h.status,
                "created_at": _iso(h.created_at),
                "packet": h.packet,
            }
            for h in transcript.handoffs
        ],
        "leads": [
            {
                "id": lead.id,
                "email": lead.email,
                "name": lead.name,
                "company": lead.company,
                "level": lead.level,
                "status": lead.status,
            }
            for lead in transcript.leads
        ],
    }


def transcript_markdown(site_id: str, transcript: Transcript) -> str:
    document = transcript_document(site_id, transcript)
    text = markdown_text
    lines = [
        f"# Conversation {text(document['session_id'])}",
        "",
        f"- Site: {text(site_id)}",
        f"- Started: {text(document['started_at'])}",
        f"- Language: {text(document['language'] or 'unknown')}",
    ]
    visitor = document["visitor"]
    for label, values in (("Page", visitor["pages"]), ("Referrer", visitor["referrers"])):
        lines += [f"- {label}: {markdown_link(value)}" for value in values]
    if visitor["enrichment"]:
        known = ", ".join(f"{key} {value}" for key, value in visitor["enrichment"].items())
        lines.append(f"- Enrichment: {text(known)}")
    lines.append("")
    for turn in document["turns"]:
        named = [
            f"{name} {turn[name]}" for name in ("route", "routing", "reason", "act") if turn[name]
        ]
        support = turn["site_support"]
        if support is not None:
            named.append(("" if support.get("supported") else "not ") + "covered by the site")
        elif not turn["act"] and turn["intent"]:
            named.append(f"intent {turn['intent']}")
        labels = ", ".join(named)
        lines += [f"## Turn {turn['turn']}" + (f" ({text(labels)})" if labels else ""), ""]
        lines += ["**Visitor:**", "", *markdown_quote(turn["visitor"]), ""]
        lines += ["**Assistant:**", "", *markdown_quote(turn["assistant"]), ""]
        for citation in turn["citations"]:
            title = citation.get("title") or citation.get("doc_id") or "source"
            shown = markdown_link(citation.get("url"), title)
            lines.append(f"- \\[{text(citation.get('index', '?'))}\\] {shown}")
        if turn["citations"]:
            lines.append("")
    for handoff in document["handoffs"]:
        lines.append(text(f"Handoff ({handoff['reason']}): {handoff['status']}"))
    return "\n".join(lines).rstrip() + "\n"
