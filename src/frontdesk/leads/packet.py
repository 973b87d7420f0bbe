"""Context packet for the sales team at handoff, and its template summary.

Both are deterministic functions of a session snapshot: no model, no I/O, the same
snapshot always gives the same packet.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from frontdesk.leads.qualification import (
    DIMENSIONS,
    ConfidenceLevel,
    Dimension,
    HandoffReason,
    LeadLevel,
    QualificationState,
    SignalEntry,
)

logger = logging.getLogger(__name__)

LEAD_LEVELS: tuple[LeadLevel, ...] = ("hot", "warm", "cold")


class ContextPacketGenerationError(ValueError):
    """The snapshot lacks a required field; the caller aborts delivery."""


class SessionSnapshot(BaseModel):
    """The session fields the generator reads, taken when the handoff fires.

    Loosely typed on purpose where the generator validates (`session_id`, `lead_level`,
    `handoff_reason`, `last_updated_at`), so a bad snapshot reaches the generator and
    fails with the generator's message instead of somewhere upstream.
    """

    model_config = ConfigDict(frozen=True)

    session_id: str
    last_updated_at: datetime | None
    lead_level: str
    handoff_reason: HandoffReason | None
    qualification: QualificationState = QualificationState()
    visitor_email: str | None = None
    visitor_name: str | None = None
    visitor_company: str | None = None
    visitor_role: str | None = None
    last_turn_index: int = Field(
        default=0, ge=0, description="turn_index of the newest message; 0 with no messages"
    )
    stage3_proposals_issued: int = Field(default=0, ge=0)


class QualificationSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    problem_fit: ConfidenceLevel
    authority_fit: ConfidenceLevel
    company_fit: ConfidenceLevel
    timing_fit: ConfidenceLevel
    is_consultant: bool
    referral_mentioned: bool


class VisitorData(BaseModel):
    model_config = ConfigDict(frozen=True)

    email: str | None
    name: str | None
    company: str | None
    role: str | None


class ConversationMeta(BaseModel):
    model_config = ConfigDict(frozen=True)

    turn_count: int
    stage3_proposals_issued: int
    signals_observed: tuple[SignalEntry, ...]


class ContextPacket(BaseModel):
    """What the rep receives (ContextPacket)."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    triggered_at: datetime
    lead_level: LeadLevel
    handoff_reason: HandoffReason
    qualification: QualificationSummary
    visitor: VisitorData
    conversation: ConversationMeta
    conversation_summary: str


def generate_context_packet(state: SessionSnapshot) -> ContextPacket:
    """Build the packet field by field from the snapshot.

    Raises ContextPacketGenerationError when a required field is missing or invalid.
    A failing summary never blocks delivery: the default summary is used instead.
    """
    handoff_reason, lead_level, triggered_at = _validated(state)
    qualification = state.qualification
    return ContextPacket(
        session_id=state.session_id,
        triggered_at=triggered_at,
        lead_level=lead_level,
        handoff_reason=handoff_reason,
        # The state's four fits and two flags; its signal log goes with the conversation.
        qualification=QualificationSummary.model_validate(qualification, from_attributes=True),
        visitor=VisitorData(
            email=state.visitor_email,
            name=state.visitor_name,
            company=state.visitor_company,
            role=state.visitor_role,
        ),
        conversation=ConversationMeta(
            turn_count=state.last_turn_index,
            stage3_proposals_issued=state.stage3_proposals_issued,
            signals_observed=qualification.signals_observed,
        ),
        conversation_summary=_summary_or_default(state, handoff_reason),
    )


def _validated(state: SessionSnapshot) -> tuple[HandoffReason, LeadLevel, datetime]:
    if not state.session_id:
        raise ContextPacketGenerationError("session_id missing or empty")
    if state.handoff_reason is None:
        raise ContextPacketGenerationError(
            "handoff_reason not set — must be set by propose_handoff before generator is called"
        )
    lead_level = next((level for level in LEAD_LEVELS if level == state.lead_level), None)
    if lead_level is None:
        raise ContextPacketGenerationError(f"invalid lead_level: {state.lead_level}")
    if state.last_updated_at is None:
        raise ContextPacketGenerationError("last_updated_at missing")
    if state.last_updated_at.utcoffset() is None:
        # The packet promises a UTC timestamp; a naive one cannot be converted honestly.
        raise ContextPacketGenerationError("last_updated_at must be timezone-aware")
    return state.handoff_reason, lead_level, state.last_updated_at.astimezone(UTC)


def _summary_or_default(state: SessionSnapshot, handoff_reason: HandoffReason) -> str:
    qualification = state.qualification
    try:
        return build_summary(
            qualification.signals_observed,
            handoff_reason=handoff_reason,
            visitor_role=state.visitor_role,
            is_consultant=qualification.is_consultant,
            referral_mentioned=qualification.referral_mentioned,
        )
    except Exception:
        logger.warning("context_packet_summary_failure", exc_info=True)
        return default_summary(handoff_reason)


def default_summary(handoff_reason: str) -> str:
    """The summary when the conversation produced no qualification signal."""
    return (
        "Conversation did not produce sufficient qualification signals before "
        f"handoff was triggered. Trigger reason: {handoff_reason}."
    )


def build_summary(
    signals: Sequence[SignalEntry] | None,
    *,
    handoff_reason: HandoffReason,
    visitor_role: str | None = None,
    is_consultant: bool = False,
    referral_mentioned: bool = False,
) -> str:
    """A 2–4 sentence plain-text summary from the signal log (a fixed template).

    Problem, then authority and company, then timing, then the consultant/referral
    note; a sentence is omitted when its dimensions have no signal. The flags and
    the role are not signals, so they are passed in; the trigger reason is only
    used by the default summary.
    """
    chosen = {dimension: summary_signal(signals or (), dimension) for dimension in DIMENSIONS}
    if all(signal is None for signal in chosen.values()):
        return default_summary(handoff_reason)
    sentences = (
        _problem_sentence(chosen["problem_fit"]),
        _role_and_company_sentence(chosen["authority_fit"], chosen["company_fit"], visitor_role),
        _timing_sentence(chosen["timing_fit"]),
        _flags_sentence(is_consultant=is_consultant, referral_mentioned=referral_mentioned),
    )
    return " ".join(sentence for sentence in sentences if sentence)


def summary_signal(signals: Sequence[SignalEntry], dimension: Dimension) -> SignalEntry | None:
    """The signal the summary quotes for a dimension.

    The most recent confirmed signal, explicit preferred over implicit; without one,
    the most recent partially confirmed signal. Within a turn, the later entry wins.
    """
    logged = [(position, s) for position, s in enumerate(signals) if s.dimension == dimension]
    confirmed = [(position, s) for position, s in logged if s.level == "confirmed"]
    if confirmed:
        return max(confirmed, key=_explicit_then_latest)[1]
    if logged:
        return max(logged, key=_latest)[1]
    return None


def _latest(entry: tuple[int, SignalEntry]) -> tuple[int, int]:
    position, signal = entry
    return signal.turn_index, position


def _explicit_then_latest(entry: tuple[int, SignalEntry]) -> tuple[bool, int, int]:
    return entry[1].signal_type == "explicit", *_latest(entry)


def _evidence(signal: SignalEntry) -> str:
    # Verbatim; quoted when it is the visitor's own words (an explicit signal).
    return f"'{signal.evidence}'" if signal.signal_type == "explicit" else signal.evidence


def _problem_sentence(problem: SignalEntry | None) -> str | None:
    if problem is None:
        return None
    if problem.signal_type == "explicit":
        return f"Visitor is building / evaluating {_evidence(problem)}."
    return (
        f"Visitor appears to have a requirement related to {_evidence(problem)}, "
        "though the specific initiative was not stated directly."
    )


def _role_and_company_sentence(
    authority: SignalEntry | None, company: SignalEntry | None, visitor_role: str | None
) -> str | None:
    if authority is not None and company is not None:
        if authority.level == "confirmed":
            role = visitor_role or "in a senior role"
            return f"They are {role} at a {_evidence(company)} company."
        # There is no template for partial authority with a company; say only
        # what is known rather than promote the visitor to "a senior role".
        role = visitor_role or _evidence(authority)
        return f"They identified as {role} at a {_evidence(company)} company."
    if authority is not None:
        return f"They identified as {visitor_role or _evidence(authority)}."
    if company is not None:
        return f"They are at a {_evidence(company)} company; their role was not stated."
    return None


def _timing_sentence(timing: SignalEntry | None) -> str | None:
    if timing is None:
        return None
    if timing.level == "confirmed":
        return f"They have a concrete timeline: {_evidence(timing)}."
    return f"There are signals of urgency: {_evidence(timing)}."


def _flags_sentence(*, is_consultant: bool, referral_mentioned: bool) -> str | None:
    if is_consultant and referral_mentioned:
        return (
            "Note: this visitor is a consultant evaluating on behalf of a client "
            "and mentioned a referral."
        )
    if is_consultant:
        return "Note: this visitor is a consultant evaluating on behalf of a client."
    if referral_mentioned:
        return "Note: the visitor mentioned a referral."
    return None
