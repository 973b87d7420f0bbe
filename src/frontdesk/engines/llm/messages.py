"""What the models read: passages in delimiting tags, history, the visitor's message.

Everything the visitor wrote passes through the turn's `PiiScrubber` first; passages
are knowledge-base content and are only escaped so they cannot close their own tag.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from frontdesk.engines.base import Turn
from frontdesk.guard.pii import PiiScrubber, public_values
from frontdesk.knowledge.models import RetrievedChunk

_TAG = re.compile(r"</?\s*(passage|passages|visitor_message|history)\b[^>]*>", re.IGNORECASE)
PASSAGE_CHARS = 2000


@lru_cache(maxsize=2048)
def _passage_public_values(content: str) -> frozenset[str]:
    return public_values(content)


def passage_scrubber(chunks: Sequence[RetrievedChunk]) -> PiiScrubber:
    """A turn's scrubber that leaves the passages' own emails and phones alone (they are
    public). Scanning a passage costs ~0.1 ms and the writer, verifier, evaluator and
    suggester each scrub against the same passages: each passage is scanned once."""
    keep = frozenset[str]().union(*(_passage_public_values(chunk.content) for chunk in chunks))
    return PiiScrubber(keep=keep)


def neutralise_tags(text: str) -> str:
    """Our delimiting tags inside data become harmless text (no tag break-out)."""
    return _TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)


def _attr(text: str) -> str:
    return neutralise_tags(text).replace('"', "'").replace("\n", " ")[:200]


def format_passages(chunks: Sequence[RetrievedChunk]) -> str:
    """Numbered passages; `[n]` in an answer cites passage n."""
    if not chunks:
        return "<passages>\n(no passages)\n</passages>"
    parts = ["<passages>"]
    for number, chunk in enumerate(chunks, start=1):
        content = neutralise_tags(chunk.content[:PASSAGE_CHARS])
        parts.append(
            f'<passage number="{number}" title="{_attr(chunk.title)}">\n{content}\n</passage>'
        )
    parts.append("</passages>")
    return "\n".join(parts)


def visitor_message(text: str, scrubber: PiiScrubber) -> str:
    return f"<visitor_message>\n{neutralise_tags(scrubber.scrub(text))}\n</visitor_message>"


def format_history(history: Sequence[Turn], scrubber: PiiScrubber) -> str:
    if not history:
        return ""
    lines = ["<history>"]
    for turn in history:
        lines.append(f"Visitor: {neutralise_tags(scrubber.scrub(turn.user))}")
        lines.append(f"Assistant: {neutralise_tags(scrubber.scrub(turn.assistant))}")
    lines.append("</history>")
    return "\n".join(lines)


def history_messages(history: Sequence[Turn], scrubber: PiiScrubber) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    for turn in history:
        messages.append(HumanMessage(content=scrubber.scrub(turn.user)))
        said = f"{turn.team} (team): {turn.assistant}" if turn.team else turn.assistant
        messages.append(AIMessage(content=scrubber.scrub(said)))
    return messages


def task(system: str, *sections: str) -> list[BaseMessage]:
    """A system prompt and one user message made of the non-empty sections."""
    body = "\n\n".join(section for section in sections if section)
    return [SystemMessage(content=system), HumanMessage(content=body)]
