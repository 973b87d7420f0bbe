"""The abuse gate as the first node of a turn (rules in `guard/abuse.py`).

It runs inside the graph so that a turn reads its checkpoint once: the gate's inputs
(hack and spam counters, the time of the last attack, the previous message, the
language) are in the state LangGraph has just loaded. A blocked turn ends right after
it (`routes.after_abuse_gate`): no model call, no search, and the visitor's message is
not added to the conversation window.
"""

from __future__ import annotations

from langchain_core.messages import RemoveMessage
from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import Update, timed
from frontdesk.conversation.state import ChatState
from frontdesk.guard.abuse import active_hack_count, check_abuse, next_spam_count


@timed
async def abuse_gate(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    site = runtime.context.site
    message = state["input"]
    spam_count = next_spam_count(state.get("last_input"), message, int(state.get("spam_count", 0)))
    hack_count = active_hack_count(
        int(state.get("hack_count", 0)),
        state.get("last_hack_at"),
        runtime.context.now.timestamp(),
        site.abuse.hack_block_minutes,
    )
    block = check_abuse(
        hack_count=hack_count,
        spam_count=spam_count,
        message=message,
        language=state.get("language") or site.default_language,
        tone=site.tone,
        hack_block_at=site.abuse.hack_block_after,
        spam_block_at=site.abuse.spam_block_after,
        max_chars=site.abuse.max_message_chars,
    )
    # An expired hack count is reset here, so the next attack starts a new window.
    update: Update = {"spam_count": spam_count, "last_input": message, "hack_count": hack_count}
    if block is None:
        return update
    # The turn's input message was appended before any node ran: take it back out.
    latest = state["messages"][-1] if state.get("messages") else None
    removed = [RemoveMessage(id=latest.id)] if latest is not None and latest.id else []
    return {**update, "block": block.kind, "answer": block.message, "messages": removed}
