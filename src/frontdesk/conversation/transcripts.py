"""A conversation's transcript as the widget, the export and erasure read it."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.store.db import transaction
from frontdesk.store.repositories import ConversationRepository, TraceRepository


class Transcripts:
    """The stored messages and traces of a site's sessions."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def history(self, site_id: str, session_id: str) -> list[dict[str, Any]]:
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
