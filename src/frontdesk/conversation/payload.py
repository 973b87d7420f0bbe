"""What one turn sends back to the visitor: token events, then a `complete` payload.

This is the contract between the conversation graph and the API/widget (the
streaming architecture, /api/ask fields, routing values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from frontdesk.conversation.vocabulary import LeadLevel, Routing, TurnRoute

# The vocabulary the widget renders by (`conversation/vocabulary.py`); HUMAN: a person owns
# the conversation, the message was relayed to them, no bot answer.
Route = TurnRoute


class Citation(BaseModel):
    index: int = Field(description="The n of [n] in the answer text.")
    doc_id: str
    title: str
    url: str = ""
    excerpt: str = Field(description="The passage the claim rests on (shortened).")
    language: str = Field(default="", description="The language the passage is written in.")
    translated: bool = Field(
        default=False,
        description="The answer gives this passage translated into the reply's language "
        "(an LLM writer); false: quoted as written, in its own language when that differs.",
    )


class Source(BaseModel):
    doc_id: str
    title: str
    url: str = ""


class CallToAction(BaseModel):
    label: str
    url: str


class LeadInfo(BaseModel):
    level: LeadLevel = "cold"


class HandoffInfo(BaseModel):
    reason: Literal["explicit_request", "hot_lead", "stall", "high_stakes", "llm_failure"]
    status: Literal["proposed", "accepted", "queued", "delivered"] = "proposed"


class TurnResult(BaseModel):
    """The `complete` event's metadata (and the whole body of `POST /v1/ask`)."""

    answer: str
    routing: Routing
    route: Route
    intent: str
    language: str
    citations: list[Citation] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    suggested_follow_ups: list[str] = Field(default_factory=list)
    suggested_answers: list[str] = Field(default_factory=list)
    cta: CallToAction | None = None
    lead: LeadInfo = Field(default_factory=LeadInfo)
    handoff: HandoffInfo | None = None
    low_confidence: bool = Field(
        default=False, description="Show the low-confidence disclaimer above the answer."
    )
    session_id: str
    turn: int


@dataclass(frozen=True)
class TokenEvent:
    content: str
    type: Literal["token"] = "token"
    # A hint for transports: the backend already holds the next event, so a writer may
    # put this one in the same network write (each event stays its own SSE event).
    more: bool = False


@dataclass(frozen=True)
class CompleteEvent:
    result: TurnResult
    type: Literal["complete"] = "complete"


@dataclass(frozen=True)
class ErrorEvent:
    code: str
    message: str
    type: Literal["error"] = "error"


@dataclass(frozen=True)
class RelayedEvent:
    """The message went to the person who owns the conversation (live takeover): no bot
    answer; `event_id` is its id in the session's live event log."""

    result: TurnResult
    event_id: int
    type: Literal["relayed"] = "relayed"


TurnEvent = TokenEvent | CompleteEvent | ErrorEvent | RelayedEvent


@dataclass(frozen=True)
class VisitorContext:
    """Facts about the requester that are not conversation state (never a raw IP)."""

    ip_hash: str = ""
    user_agent: str = ""
    page_url: str = ""
    referrer: str = ""  # the page that led the visitor to the site
    reveal: dict[str, str] = field(default_factory=dict)
