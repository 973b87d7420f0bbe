"""What the gap report reads: a site's turns in a period with the visitor's question,
how the assistant routed it, the visitor's vote and the passages its search found.

Conversations are picked by activity (`ix_conversations_last_activity_at`), then their
messages, votes and traces in three queries; the newest `limit` turns are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from frontdesk.store.db import Repository
from frontdesk.store.models import Conversation, Message, Trace
from frontdesk.store.widget import AnswerFeedback

MAX_GAP_TURNS = 2000


@dataclass
class StoredGapTurn:
    session_id: str
    turn: int
    at: datetime
    question: str
    language: str | None
    route: str | None
    routing: str | None
    intent: str | None = None
    rating: str | None = None
    comment: str | None = None
    next_route: str | None = None  # the route of the conversation's next turn
    next_routing: str | None = None
    retrieval: list[dict[str, Any]] = field(default_factory=list)


class GapRepository(Repository):
    def turns(
        self, site_id: str, start: datetime, end: datetime, limit: int = MAX_GAP_TURNS
    ) -> list[StoredGapTurn]:
        conversations = {
            c.id: c
            for c in self.session.scalars(
                select(Conversation).where(
                    Conversation.site_id == site_id,
                    Conversation.last_activity_at >= start,
                    Conversation.started_at < end,
                )
            )
        }
        if not conversations:
            return []
        by_turn: dict[tuple[str, int], StoredGapTurn] = {}
        questions: dict[tuple[str, int], str] = {}
        replies: list[tuple[str, int, Message]] = []
        ids = list(conversations)
        for chunk in range(0, len(ids), 500):
            for message in self.session.scalars(
                select(Message)
                .where(Message.conversation_id.in_(ids[chunk : chunk + 500]))
                .order_by(Message.id)
            ):
                key = (message.conversation_id, message.turn)
                if message.role == "user":
                    questions[key] = message.content
                elif message.role == "assistant":
                    replies.append((message.conversation_id, message.turn, message))
        for conversation_id, turn, message in replies:
            conversation = conversations[conversation_id]
            by_turn[(conversation.session_id, turn)] = StoredGapTurn(
                session_id=conversation.session_id,
                turn=turn,
                at=message.created_at,
                question=questions.get((conversation_id, turn), ""),
                language=conversation.language,
                route=message.route,
                routing=message.routing,
                intent=message.intent,
            )
        for (session_id, turn), row in by_turn.items():
            following = by_turn.get((session_id, turn + 1))
            if following is not None:
                row.next_route, row.next_routing = following.route, following.routing
        sessions = list({session_id for session_id, _turn in by_turn})
        for chunk in range(0, len(sessions), 500):
            batch = sessions[chunk : chunk + 500]
            for vote in self.session.scalars(
                select(AnswerFeedback).where(
                    AnswerFeedback.site_id == site_id, AnswerFeedback.session_id.in_(batch)
                )
            ):
                voted = by_turn.get((vote.session_id, vote.turn))
                if voted is not None:
                    voted.rating, voted.comment = vote.rating, vote.comment
            for trace in self.session.scalars(
                select(Trace).where(Trace.site_id == site_id, Trace.session_id.in_(batch))
            ):
                traced = by_turn.get((trace.session_id, trace.turn))
                if traced is not None:
                    traced.retrieval = [r for r in trace.retrieval or [] if isinstance(r, dict)]
        in_period = [row for row in by_turn.values() if _within(row.at, start, end)]
        in_period.sort(key=lambda row: row.at, reverse=True)
        return in_period[:limit]


def _within(at: datetime, start: datetime, end: datetime) -> bool:
    if at.tzinfo is None:  # SQLite hands back naive UTC
        at = at.replace(tzinfo=start.tzinfo)
    return start <= at < end
