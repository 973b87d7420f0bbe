"""The abuse gate: checks that run before the graph, so blocked turns cost nothing.

Priority: hack > spam > length. `spam_count` counts consecutive identical messages and
resets on a different one (temporary block); an oversized message blocks only itself.

The hack block (docs/injection.md): only confident detections count
(`counts_toward_block`), a suspected one gets the refusal and nothing more. The count
belongs to a time window: attacks older than `HACK_BLOCK_MINUTES` are forgotten
(`active_hack_count`), so a blocked session recovers by itself after that long without
an attack, and a visitor misread twice in a long conversation is not locked out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from frontdesk.conversation.register import Tone
from frontdesk.conversation.texts import say

BlockKind = Literal["hack", "spam", "length"]

HACK_BLOCK_AT = 2
HACK_BLOCK_MINUTES = 60
# The local detector's CONFIDENT_AT; an LLM classifier reports its own confidence.
HACK_CONFIDENT_AT = 0.85
SPAM_BLOCK_AT = 3
MAX_MESSAGE_CHARS = 15_000


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    message: str


def normalise_input(text: str) -> str:
    """The form two messages are compared in (case-insensitive, trimmed)."""
    return text.strip().casefold()


def next_spam_count(last_input: str | None, message: str, spam_count: int) -> int:
    """Consecutive repeats of the previous message; a different message resets to 0."""
    if last_input is not None and normalise_input(message) == normalise_input(last_input):
        return spam_count + 1
    return 0


def counts_toward_block(confidence: float, confident_at: float = HACK_CONFIDENT_AT) -> bool:
    """Whether a turn classified as an attack adds to the session's hack count."""
    return confidence >= confident_at


def active_hack_count(
    hack_count: int,
    last_hack_at: float | None,
    now: float,
    block_minutes: int = HACK_BLOCK_MINUTES,
) -> int:
    """The attacks that still count at `now` (epoch seconds): all of them while the last
    one is younger than `block_minutes`, none after. A count without a time (a session
    saved before attacks were timed) is forgotten too."""
    if hack_count <= 0 or last_hack_at is None:
        return 0
    return hack_count if now - last_hack_at < block_minutes * 60 else 0


def check_abuse(
    *,
    hack_count: int,
    spam_count: int,
    message: str,
    language: str = "en",
    tone: Tone = "formal",
    hack_block_at: int = HACK_BLOCK_AT,
    spam_block_at: int = SPAM_BLOCK_AT,
    max_chars: int = MAX_MESSAGE_CHARS,
) -> Block | None:
    """The block that applies to this turn, if any (hack > spam > length); `hack_count`
    is the active count (`active_hack_count`)."""
    kind: BlockKind | None = None
    if hack_count >= hack_block_at:
        kind = "hack"
    elif spam_count >= spam_block_at:
        kind = "spam"
    elif len(message) > max_chars:
        kind = "length"
    if kind is None:
        return None
    return Block(kind=kind, message=say(f"abuse.{kind}", language, tone=tone))
