"""A team answer given as the team wrote it (`routes.relevance_gate` chose it): no writer
model, no claim check — the team's words are the source — and cited as the team's."""

from __future__ import annotations

from langgraph.runtime import Runtime

from frontdesk.conversation import outcomes
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.citations import trusted_answer
from frontdesk.conversation.nodes.common import (
    Update,
    emit_words,
    language_of,
    site_say,
    timed,
)
from frontdesk.conversation.state import ChatState
from frontdesk.improvement.team_answers import answer_part


@timed
async def team_answer_writer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    chosen = outcomes.team_answer_of(state)
    if chosen is None:
        raise ValueError("team_answer_writer without a team answer in the retrieval")
    answer = f"{answer_part(chosen.content)} [1]"
    emit_words("team_answer_writer", answer)
    return trusted_answer(answer, [chosen], "the team's own answer to this question")


@timed
async def team_recall_writer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """What a team member told the visitor during a live takeover, quoted as theirs: a
    message of this conversation, never a page of the knowledge base (no citation)."""
    recall = state.get("team_recall")
    if not recall:
        raise ValueError("team_recall_writer without a team member's message")
    answer = site_say(
        runtime,
        "team_recall",
        language_of(state, runtime),
        name=recall["name"],
        text=recall["text"],
    )
    emit_words("team_recall_writer", answer)
    return trusted_answer(answer, [], "what the team member said in this conversation")
