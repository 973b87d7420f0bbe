"""Request and response bodies of the HTTP API (what OpenAPI documents)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from frontdesk.guard.charset import clean_text

CleanText = Annotated[str, AfterValidator(clean_text)]
"""A request string normalised at the API boundary (`clean_text`); every request model
uses it for every string it accepts."""


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable error code.")
    message: str = Field(description="What went wrong, for a human.")
    hint: str | None = Field(
        default=None,
        description="What to change to fix it; only for a caller that may see the site's "
        "configuration (a refused origin on the developer's own machine).",
    )


class ErrorResponse(BaseModel):
    error: ErrorDetail


Responses = dict[int | str, dict[str, Any]]
"""A route's documented `responses` (FastAPI's type for them)."""


def error_responses(descriptions: Mapping[int, str]) -> Responses:
    """Documented error statuses, each with an `ErrorResponse` body and what it means."""
    return {
        status: {"model": ErrorResponse, "description": description}
        for status, description in descriptions.items()
    }


class IdentityClaim(BaseModel):
    """Who the host page says the visitor is: `user_hash` is the hex HMAC-SHA256 of
    `user_id` made with the site's identity secret (docs/widget.md, "Known visitors")."""

    model_config = ConfigDict(extra="forbid")

    user_id: CleanText = Field(min_length=1, max_length=200)
    email: CleanText | None = Field(default=None, max_length=320)
    name: CleanText | None = Field(default=None, max_length=200)
    user_hash: CleanText = Field(default="", max_length=128)


class TurnRequest(BaseModel):
    """One visitor message (`POST /v1/chat` and `POST /v1/ask`)."""

    model_config = ConfigDict(extra="forbid")

    message: CleanText = Field(
        description="The visitor's message. Must not be blank (NUL characters are removed "
        "and unpaired surrogates become U+FFFD before anything else sees it); very long "
        "messages are answered by the abuse gate, not refused here."
    )
    session_id: UUID | None = Field(
        default=None,
        description="The session to continue; omit on the first turn and the server issues "
        "a UUID v4 (returned in `X-Frontdesk-Session` and in the result).",
    )
    session_secret: CleanText | None = Field(
        default=None,
        max_length=200,
        description="The secret issued with the session (`X-Frontdesk-Session-Secret` of "
        "its first response); required to continue an existing session. May be sent in "
        "that header instead.",
    )
    identity: IdentityClaim | None = Field(
        default=None,
        description="A signed-in visitor, vouched for by the site (ignored unless the "
        "signature verifies).",
    )
    site_key: CleanText | None = Field(
        default=None,
        max_length=200,
        description="The site's public key, when it is not sent in `X-Frontdesk-Key`.",
    )
    page_url: CleanText | None = Field(
        default=None, max_length=2048, description="The page the visitor is on."
    )
    referrer: CleanText | None = Field(
        default=None,
        max_length=2048,
        description="The page that led the visitor to the site (`document.referrer`).",
    )
    reveal: dict[CleanText, CleanText] | None = Field(
        default=None,
        max_length=20,
        description="Company data the page already knows (e.g. from a reveal script): "
        "company, domain, sector… Used for this session's enrichment only (untrusted: never "
        "cached for the IP nor remembered for a returning visitor); unknown keys are "
        "ignored, control characters and markup are removed.",
    )

    @field_validator("reveal")
    @classmethod
    def _short_reveal(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value and any(len(k) > 64 or len(v) > 300 for k, v in value.items()):
            raise ValueError("reveal keys must be ≤ 64 and values ≤ 300 characters")
        return value

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message must not be empty")
        return value


class SessionHistory(BaseModel):
    session_id: str
    messages: list[dict[str, Any]] = Field(
        description="Oldest first; an assistant message carries `citations` and, once the "
        "visitor rated it, `feedback` ({rating: up|down, comment})."
    )
    expires_at: datetime | None = Field(
        default=None, description="When the session expires unless a message keeps it alive."
    )
    live: dict[str, Any] | None = Field(
        default=None,
        description="The live takeover: `owner` (bot|waiting|human|closed), `name` (of the "
        "operator who owns it) and `last_event_id` (resume the event stream after it). "
        "`messages` then also holds the live log the visitor saw (role `operator` for an "
        "operator's message, `event` for a notice), each with its `event_id`.",
    )


class SessionGrantOut(BaseModel):
    """A session and its secret (the only response that carries the secret)."""

    session_id: str
    session_secret: str = Field(description="Send it in `X-Frontdesk-Session-Secret`.")
    expires_at: datetime = Field(description="Unless a message keeps the session alive.")


class SessionStart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    identity: IdentityClaim | None = None


class SessionResume(BaseModel):
    model_config = ConfigDict(extra="forbid")

    identity: IdentityClaim


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn: int = Field(ge=1, le=100_000, description="The answer's turn number.")
    rating: Literal["up", "down"]
    comment: CleanText | None = Field(
        default=None, max_length=1000, description="Optional, usually after a 👎."
    )


class FeedbackOut(BaseModel):
    turn: int
    rating: str
    comment: str | None


class SessionErased(BaseModel):
    session_id: str
    erased: bool = Field(description="True when anything was stored and is now deleted.")


class LeadOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    session_id: str
    email: str | None
    name: str | None
    company: str | None
    level: str
    reason: str | None
    capture_context: str | None
    details: dict[str, Any]
    created_at: datetime


class HandoffAttemptOut(BaseModel):
    """One delivery attempt on one channel (HandoffRecord)."""

    model_config = ConfigDict(from_attributes=True)

    channel: str
    attempt: int
    status: str = Field(
        description="sending (under way), delivered, failed, or interrupted (the "
        "dispatcher stopped before recording an outcome; the next attempt has the next "
        "number)"
    )
    error: str | None
    created_at: datetime


class HandoffChannelOut(BaseModel):
    """Where one channel's delivery stands (its outbox row)."""

    model_config = ConfigDict(from_attributes=True)

    channel: str = Field(description="crm, slack, webhook:<i> or email (the fallback)")
    status: str = Field(description="pending, delivered or failed")
    attempts: int
    last_error: str | None
    next_attempt_at: datetime
    delivered_at: datetime | None


class HandoffOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    session_id: str
    reason: str
    business_hours: bool
    status: str = Field(
        description="pending, awaiting_contact (waits for the visitor's contact, docs/leads.md), "
        "complete, partial_failure, total_failure (or packet_failed)"
    )
    packet: dict[str, Any]
    created_at: datetime
    completed_at: datetime | None = None
    channels: list[HandoffChannelOut] = Field(default_factory=list)
    attempts: list[HandoffAttemptOut] = Field(default_factory=list)


class TraceOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    turn: int
    route: str | None
    routing: str | None
    intent: str | None
    engine: str | None
    model: str | None
    prompt_version: str | None
    latency_ms: float
    tokens_in: int
    tokens_out: int
    cost_usd: float
    nodes: list[Any]
    retrieval: list[Any]
    citations: list[Any]
    created_at: datetime


class SessionTraces(BaseModel):
    session_id: str
    traces: list[TraceOut]


class QuestionCount(BaseModel):
    question: str
    count: int


class GapPassage(BaseModel):
    doc_id: str
    chunk_id: str
    title: str
    score: float = Field(description="Cosine similarity of the passage to the question.")


class GapClusterOut(BaseModel):
    label: str = Field(description="The most asked question of the cluster.")
    size: int = Field(description="Questions in the period.")
    previous: int = Field(description="Questions in the period before, of the same length.")
    trend: str = Field(description="new, up, down or same.")
    examples: dict[str, list[str]] = Field(description="Example questions per language.")
    reasons: dict[str, int] = Field(
        description="cannot_answer, followup, low_confidence, refused, thumbs_down, handed_off."
    )
    passages: list[GapPassage] = Field(description="The best passages the search found.")
    comments: list[str] = Field(description="Visitors' comments with their 👎.")


class SiteStats(BaseModel):
    site_id: str
    conversations: int
    turns: int
    routes: dict[str, int] = Field(description="Assistant turns per graph route.")
    routing: dict[str, int] = Field(description="Assistant turns per routing value.")
    unanswered_questions: list[QuestionCount] = Field(
        description="Content gaps of the period: each cluster's most asked question and its "
        "size (questions the assistant could not answer well, grouped by meaning)."
    )
    top_questions: list[QuestionCount]
    gap_days: int = Field(default=30, description="The period of the content gaps, in days.")
    gaps: list[GapClusterOut] = Field(
        default_factory=list, description="Content gaps clustered by meaning, largest first."
    )


class IngestResult(BaseModel):
    site_id: str
    files: list[str]
    summary: dict[str, Any] = Field(description="What ingestion reports (ingested/skipped/failed).")


class CrawlRequest(BaseModel):
    url: str | None = Field(
        default=None,
        description="Sync only this start URL (a public site, crawled with the default "
        "rules). Default: every web source of the site.",
    )


class CrawlRun(BaseModel):
    id: str
    site_id: str
    source_url: str
    trigger: str = Field(description="cli, api or schedule.")
    status: str = Field(description="running, succeeded or failed.")
    summary: dict[str, Any] = Field(
        default_factory=dict,
        description="found, fetched, unchanged, changed, removed, skipped and failed (URL → "
        "reason), chunks_embedded, seconds.",
    )
    error: str = ""
    started_at: str
    finished_at: str | None = None


class CrawlRuns(BaseModel):
    site_id: str
    runs: list[CrawlRun]
