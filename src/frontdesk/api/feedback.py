"""Visitor feedback on answers (👍/👎, an optional comment), stored per site, session and
turn, and shown with the session's messages (the console reads it there)."""

from __future__ import annotations

from typing import Any

from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.widget import AnswerFeedback, FeedbackRepository

Vote = dict[str, Any]


def _vote(row: AnswerFeedback) -> Vote:
    return {
        "turn": row.turn,
        "rating": row.rating,
        "comment": row.comment,
        "updated_at": row.updated_at.isoformat(),
    }


def record_feedback(
    runtime: Runtime, site_id: str, session_id: str, turn: int, rating: str, comment: str | None
) -> Vote:
    with transaction(runtime.sessions) as db:
        return _vote(FeedbackRepository(db).record(site_id, session_id, turn, rating, comment))


def feedback_by_turn(runtime: Runtime, site_id: str, session_id: str) -> dict[int, Vote]:
    with runtime.sessions() as db:
        return {
            row.turn: _vote(row) for row in FeedbackRepository(db).for_session(site_id, session_id)
        }


def with_feedback(messages: list[dict[str, Any]], votes: dict[int, Vote]) -> list[dict[str, Any]]:
    """Each assistant message with the visitor's vote on it (when there is one)."""
    out = []
    for message in messages:
        vote = votes.get(int(message.get("turn") or 0))
        if message.get("role") == "assistant" and vote is not None:
            message = {
                **message,
                "feedback": {"rating": vote["rating"], "comment": vote["comment"]},
            }
        out.append(message)
    return out
