"""A conversation's transcript as the widget, the export and erasure read it."""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.conversation.state import TurnValues
from frontdesk.conversation.substates import (
    Booking,
    FormCollection,
    InterestSignals,
    Qualification,
    VisitorProfile,
)
from frontdesk.engines.base import ModelCall
from frontdesk.store.db import transaction
from frontdesk.store.repositories import ConversationRepository, TraceRepository


class StoredCitation(TypedDict):
    """A citation as the store keeps it (`payload.Citation.model_dump()`)."""

    index: int
    doc_id: str
    title: str
    url: str
    excerpt: str
    # Kept since citations name their passage's language; older rows have neither.
    language: NotRequired[str]
    translated: NotRequired[bool]


class HistoryMessage(TypedDict):
    """One stored message of a session, as the widget restores it."""

    turn: int
    role: str  # user | assistant
    content: str
    route: str | None
    routing: str | None
    citations: list[StoredCitation]
    created_at: str  # ISO 8601


class NodeTiming(TypedDict):
    """A graph node's time in a turn, as its trace lists it."""

    node: str
    ms: float


class TraceRow(TypedDict):
    """One turn's trace in a session's export."""

    turn: int
    route: str | None
    routing: str | None
    intent: str | None
    latency_ms: float
    engine: str | None
    model: str | None
    prompt_version: str | None
    tokens_in: int
    tokens_out: int
    cost_usd: float
    nodes: list[NodeTiming | ModelCall]  # the graph's nodes, then the model calls
    citations: list[StoredCitation]


class ExportedState(TypedDict, total=False):
    """What the conversation remembers of the visitor (its checkpoint), as exported."""

    language: str
    turn_number: int
    qualification: Qualification
    visitor_profile: VisitorProfile
    interest_signals: InterestSignals
    booking: Booking
    form_collection: FormCollection


class SessionExport(TypedDict):
    """Everything stored for a session, as JSON-ready data."""

    site_id: str
    session_id: str
    messages: list[HistoryMessage]
    traces: list[TraceRow]
    state: NotRequired[ExportedState]  # the chat service's (`ChatService.export`)


def exported_state(values: TurnValues) -> ExportedState:
    """The parts of a conversation's state a session's export shows."""
    shown = ExportedState.__optional_keys__
    return cast(ExportedState, {key: value for key, value in values.items() if key in shown})


class Transcripts:
    """The stored messages and traces of a site's sessions."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def history(self, site_id: str, session_id: str) -> list[HistoryMessage]:
        with self.sessions() as session:
            return [
                {
                    "turn": m.turn,
                    "role": m.role,
                    "content": m.content,
                    "route": m.route,
                    "routing": m.routing,
                    # The widget restores an answer with its source pills.
                    "citations": (m.details or {}).get("citations") or [],
                    "created_at": m.created_at.isoformat(),
                }
                for m in ConversationRepository(session).messages(site_id, session_id)
            ]

    def export(self, site_id: str, session_id: str) -> SessionExport:
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
