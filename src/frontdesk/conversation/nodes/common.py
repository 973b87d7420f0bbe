"""Helpers every node uses: the run context, history windows, token streaming, timings."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.state import ChatState, ChatUpdate
from frontdesk.conversation.substates import ChunkDump
from frontdesk.conversation.texts import say
from frontdesk.engines.base import Turn
from frontdesk.knowledge.models import RetrievedChunk

Update = ChatUpdate  # what a node writes: a partial of the state
# Where a message of the bot's window written by a person of the team keeps their name.
TEAM_MEMBER = "team_member"
_WORDS = re.compile(r"\w+")
NodeFn = TypeVar("NodeFn", bound=Callable[..., Awaitable[Update]])

STREAMING_NODES = frozenset(
    {
        "answer_writer",
        "team_answer_writer",
        "fact_answer_writer",
        "redirect_handler",
        "booking_handler",
        "propose_handoff",
        "clarify_handler",
        "offer_human",
        "skill_ending_writer",
        "team_recall_writer",
    }
)


def timed(fn: NodeFn) -> NodeFn:
    """Record the node's wall time in the run context (kept for traces)."""

    @functools.wraps(fn)
    async def wrapper(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
        started = time.perf_counter()
        try:
            return await fn(state, runtime)
        finally:
            runtime.context.timings_ms[fn.__name__] = round(
                (time.perf_counter() - started) * 1000, 3
            )

    return wrapper  # type: ignore[return-value]


def emit(node: str, text: str) -> None:
    """Send a piece of the reply to the visitor through LangGraph's "custom" stream (only
    writer nodes stream)."""
    if node not in STREAMING_NODES:
        raise ValueError(f"{node} is not a writer node and may not stream")
    if text:
        get_stream_writer()({"node": node, "token": text})


def emit_words(node: str, text: str) -> None:
    """Stream a fixed reply word by word, as a writer model would."""
    for piece in split_stream_pieces(text):
        emit(node, piece)


def split_stream_pieces(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char == " " and index > start:
            pieces.append(text[start : index + 1])
            start = index + 1
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def history_turns(messages: Sequence[AnyMessage], window: int) -> list[Turn]:
    """The last `window` complete exchanges before the current message."""
    turns: list[Turn] = []
    pending_user: str | None = None
    for message in messages[:-1] if messages else []:
        if isinstance(message, HumanMessage):
            pending_user = str(message.content)
        elif isinstance(message, AIMessage) and pending_user is not None:
            team = message.additional_kwargs.get(TEAM_MEMBER)
            turns.append(
                Turn(
                    user=pending_user,
                    assistant=str(message.content),
                    team=str(team) if team else None,
                )
            )
            pending_user = None
    return turns[-window:] if window > 0 else []


def team_message_named(text: str, turns: Sequence[Turn]) -> Turn | None:
    """The latest thing a team member said in this conversation when the visitor's
    message names them ("Was hat Jana vorgeschlagen?"): any word of their display name."""
    for turn in reversed(turns):
        if turn.team and any(
            len(part) > 1 and names(text, part) for part in _WORDS.findall(turn.team)
        ):
            return turn
    return None


def names(text: str, name: str) -> bool:
    """Pure: `text` names `name` — written as a name (capitalised), and as the first word
    only when addressed ("Tom, …"): an operator called Will or Mark is not named by
    "Will you be open tomorrow?" or "mark my order as urgent"."""
    matches = [m for m in _WORDS.finditer(text) if m.group().casefold() == name.casefold()]
    for match in matches:
        if not match.group()[0].isupper():
            continue
        if match.start() > len(text) - len(text.lstrip()):  # not the message's first word
            return True
        if text[match.end() :].lstrip().startswith(","):
            return True
    return False


def language_of(state: ChatState, runtime: Runtime[TurnContext]) -> str:
    return state.get("language") or runtime.context.site.default_language


def chunks_from(items: Sequence[ChunkDump]) -> list[RetrievedChunk]:
    return [RetrievedChunk.model_validate(item) for item in items]


def topics_text(runtime: Runtime[TurnContext], language: str) -> str:
    """Example questions as a quoted list, e.g. “Do you support SSO?”, “…”."""
    questions = runtime.context.topic_questions(language)
    if not questions:
        return runtime.context.site.name
    return ", ".join(f"“{q}”" for q in questions)


def site_say(runtime: Runtime[TurnContext], key: str, language: str, **values: str) -> str:
    """`say` with the site's own wording (`texts:` in its file) and its name filled in."""
    site = runtime.context.site
    return say(key, language, tone=site.tone, overrides=site.texts, **{"site": site.name, **values})
