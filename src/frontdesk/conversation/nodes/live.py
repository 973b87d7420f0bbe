"""Live takeover inside the graph: while a person owns the conversation, the visitor's
message goes to them and the bot says nothing (`routes.after_abuse_gate`)."""

from __future__ import annotations

from langchain_core.messages import RemoveMessage
from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import Update, timed
from frontdesk.conversation.state import ChatState


@timed
async def human_relay(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Keep the message in the live log for the operator; no answer. The message leaves
    the bot's window for now: the whole human exchange is written back into it, in order,
    when the operator hands the conversation back (`ChatService.remember_exchange`)."""
    relay = runtime.context.relay
    if relay is None:
        raise RuntimeError("a person owns this conversation but the turn cannot reach them")
    event_id = await relay(state["input"])
    latest = state["messages"][-1] if state.get("messages") else None
    removed = [RemoveMessage(id=latest.id)] if latest is not None and latest.id else []
    return {"relayed": event_id, "answer": "", "messages": removed}
