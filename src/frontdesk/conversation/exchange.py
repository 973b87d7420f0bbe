"""What a person and the visitor said during a live takeover, as the bot's window reads it.

After a person hands the conversation back, `ChatService.remember_exchange` adds these
messages to the thread, so the bot's next answers can use them.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from frontdesk.conversation.nodes.common import TEAM_MEMBER

TEAM_JOINED = "(a person from the team joined the chat)"


def exchange_messages(exchange: list[Any]) -> list[AnyMessage]:
    """The live log's messages as the bot's window reads them: the visitor's run of
    messages, then the person's reply (the window pairs a visitor message with the
    answer after it, so a person who spoke first is paired with a marker). Each reply
    keeps who wrote it, so the bot can tell the team's words from its own."""
    messages: list[AnyMessage] = []
    visitor: list[str] = []
    team: list[str] = []
    member = ""

    def flush() -> None:
        if team:
            messages.append(HumanMessage(content="\n".join(visitor) or TEAM_JOINED))
            messages.append(
                AIMessage(
                    content="\n".join(team),
                    name="operator",
                    additional_kwargs={TEAM_MEMBER: member or "team"},
                )
            )
        elif visitor:
            messages.append(HumanMessage(content="\n".join(visitor)))
        visitor.clear()
        team.clear()

    for event in exchange:
        body = event.body or {}
        text = str(body.get("text") or "")
        if event.kind == "visitor_message":
            if team:
                flush()
            visitor.append(text)
        elif event.kind == "operator_message":
            name = str(body.get("name") or event.author_name or "")
            if team and name != member:
                flush()
            member = name
            team.append(text)
    flush()
    return messages
