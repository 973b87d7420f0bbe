"""Qualification state machine: fit dimensions, lead level, stall_check.

The qualification state machine and the orchestrator's `stall_check` node (its
`score_router` decision — explicit request, then hot lead — is part of the intent router,
`conversation/routes.py`). Everything here is a pure function of plain values: the graph
nodes call it, persist the result and log what it reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

ConfidenceLevel = Literal["not_detected", "partially_confirmed", "confirmed"]
Dimension = Literal["problem_fit", "authority_fit", "company_fit", "timing_fit"]
SignalType = Literal["explicit", "implicit"]
LeadLevel = Literal["hot", "warm", "cold"]
# high_stakes: an upset customer or a legal/billing dispute goes to a person too.
HandoffReason = Literal["hot_lead", "explicit_request", "stall", "llm_failure", "high_stakes"]
StallRoute = Literal["propose_handoff", "write_state"]
Stage = Literal[1, 2, 3]
StageEvent = Literal["response_delivered", "handoff_proposed", "visitor_continued"]

DIMENSIONS: tuple[Dimension, ...] = ("problem_fit", "authority_fit", "company_fit", "timing_fit")
CONFIDENCE_RANK: Mapping[ConfidenceLevel, int] = {
    "not_detected": 0,
    "partially_confirmed": 1,
    "confirmed": 2,
}
DEFAULT_STALL_TURN_THRESHOLD = 6


def is_at_least(level: ConfidenceLevel, floor: ConfidenceLevel) -> bool:
    """True when `level` is `floor` or higher on not_detected < partially_confirmed < confirmed."""
    return CONFIDENCE_RANK[level] >= CONFIDENCE_RANK[floor]


class SignalEntry(BaseModel):
    """One observed qualification signal: what the visitor said or did, and when.

    One entry of the signal log. `level` is the confidence the signal supports, so that
    `build_summary` can prefer confirmed signals over partial ones.
    """

    model_config = ConfigDict(frozen=True)

    dimension: Dimension
    level: Literal["partially_confirmed", "confirmed"]
    signal_type: SignalType
    evidence: str
    turn_index: int = Field(ge=0)


class QualificationState(BaseModel):
    """The four fit dimensions, the session flags and the signal log.

    Dimensions and flags only move up within a session; change it through
    `apply_delta`, which enforces that.
    """

    model_config = ConfigDict(frozen=True)

    problem_fit: ConfidenceLevel = "not_detected"
    authority_fit: ConfidenceLevel = "not_detected"
    company_fit: ConfidenceLevel = "not_detected"
    timing_fit: ConfidenceLevel = "not_detected"
    is_negative_persona: bool = False
    is_no_fit: bool = False
    is_consultant: bool = False
    referral_mentioned: bool = False
    explicit_human_request: bool = False
    signals_observed: tuple[SignalEntry, ...] = ()

    @field_validator("signals_observed", mode="before")
    @classmethod
    def _missing_log_is_empty(cls, value: object) -> object:
        # A None signal log is treated as an empty one.
        return () if value is None else value


class QualificationDelta(BaseModel):
    """What update_state detected in one visitor message (QualificationDelta).

    A dimension left as None was not affected by the message and keeps its level.
    A flag is True when the message showed it; False means "not seen this turn",
    never "unset".
    """

    model_config = ConfigDict(frozen=True)

    problem_fit: ConfidenceLevel | None = None
    authority_fit: ConfidenceLevel | None = None
    company_fit: ConfidenceLevel | None = None
    timing_fit: ConfidenceLevel | None = None
    is_negative_persona: bool = False
    is_no_fit: bool = False
    is_consultant: bool = False
    referral_mentioned: bool = False
    explicit_human_request: bool = False


class RejectedChange(NamedTuple):
    """A downgrade that `apply_delta` refused; the caller logs it as
    `qualification_monotonicity_violation` at WARN (a detected error, not a crash)."""

    dimension: Dimension
    current: ConfidenceLevel
    proposed: ConfidenceLevel
    turn_index: int
    evidence: str


class AppliedDelta(NamedTuple):
    """The state after a delta, and the downgrades that were refused."""

    state: QualificationState
    rejected: list[RejectedChange]


def apply_delta(
    state: QualificationState,
    delta: QualificationDelta,
    turn_index: int,
    evidence: Mapping[Dimension, str],
) -> AppliedDelta:
    """Merge one turn's delta into the state, monotonically.

    Every non-downgrade dimension observation is logged as a `SignalEntry` with its
    evidence, including re-observations at the same level, so that the summary can
    quote the most recent evidence. A confirmed signal is recorded as explicit and
    a partial one as implicit.

    Flags are sticky: once set they stay set for the session. The exception is
    `explicit_human_request`, which describes the current message only, so one
    request leads to one handoff proposal rather than one on every later turn.

    Raises ValueError when a dimension is raised or re-observed without evidence:
    an invalid delta is discarded, and the caller does that.
    """
    if turn_index < 0:
        raise ValueError(f"turn_index must be >= 0, got {turn_index}")
    levels: dict[str, ConfidenceLevel] = {}
    signals: list[SignalEntry] = []
    rejected: list[RejectedChange] = []
    for dimension in DIMENSIONS:
        current: ConfidenceLevel = getattr(state, dimension)
        proposed: ConfidenceLevel | None = getattr(delta, dimension)
        if proposed is None or (proposed == "not_detected" and current == "not_detected"):
            continue
        text = evidence.get(dimension, "")
        if not is_at_least(proposed, current):
            rejected.append(RejectedChange(dimension, current, proposed, turn_index, text))
            continue
        signals.append(_signal(dimension, proposed, text, turn_index))
        levels[dimension] = proposed
    new_state = state.model_copy(
        update={
            **levels,
            **_merged_flags(state, delta),
            "signals_observed": (*state.signals_observed, *signals),
        }
    )
    return AppliedDelta(new_state, rejected)


def _signal(
    dimension: Dimension, level: ConfidenceLevel, text: str, turn_index: int
) -> SignalEntry:
    if not text.strip():
        raise ValueError(f"evidence missing for {dimension} at turn {turn_index}")
    if level == "confirmed":
        return SignalEntry(
            dimension=dimension,
            level="confirmed",
            signal_type="explicit",
            evidence=text,
            turn_index=turn_index,
        )
    return SignalEntry(
        dimension=dimension,
        level="partially_confirmed",
        signal_type="implicit",
        evidence=text,
        turn_index=turn_index,
    )


def _merged_flags(state: QualificationState, delta: QualificationDelta) -> dict[str, bool]:
    return {
        "is_negative_persona": state.is_negative_persona or delta.is_negative_persona,
        "is_no_fit": state.is_no_fit or delta.is_no_fit,
        "is_consultant": state.is_consultant or delta.is_consultant,
        "referral_mentioned": state.referral_mentioned or delta.referral_mentioned,
        "explicit_human_request": delta.explicit_human_request,
    }


def is_hot_lead(state: QualificationState) -> bool:
    """Problem and authority confirmed, plus company or timing at least partial.

    This is the dimension rule only; `lead_level` adds the disqualifying flags.
    """
    return (
        state.problem_fit == "confirmed"
        and state.authority_fit == "confirmed"
        and (
            is_at_least(state.company_fit, "partially_confirmed")
            or is_at_least(state.timing_fit, "partially_confirmed")
        )
    )


def lead_level(state: QualificationState) -> LeadLevel:
    """Derive the lead level; it is recomputed every turn, never stored as truth.

    Cold whenever the visitor is a negative persona or no-fit (disqualified).
    Warm when any dimension has at least a partial signal, or
    when a referral was mentioned (a referred visitor is worth a rep's attention
    even before they describe a project).
    """
    if state.is_negative_persona or state.is_no_fit:
        return "cold"
    if is_hot_lead(state):
        return "hot"
    if state.referral_mentioned or any(
        is_at_least(getattr(state, dimension), "partially_confirmed") for dimension in DIMENSIONS
    ):
        return "warm"
    return "cold"


class StallCheck(NamedTuple):
    """The incremented turn counter and where stall_check routes."""

    turn_counter: int
    route: StallRoute
    handoff_reason: Literal["stall"] | None


def stall_check(
    turn_counter: int,
    stage3_proposals_issued: int,
    threshold: int = DEFAULT_STALL_TURN_THRESHOLD,
) -> StallCheck:
    """Count the completed turn and detect a stall (`stall_check`).

    Stalled when the counter reaches STALL_TURN_THRESHOLD and no Stage 3 proposal
    has been issued in the session yet.
    """
    if threshold < 1:
        raise ValueError(f"STALL_TURN_THRESHOLD must be >= 1, got {threshold}")
    counted = turn_counter + 1
    if counted >= threshold and stage3_proposals_issued == 0:
        return StallCheck(counted, "propose_handoff", "stall")
    return StallCheck(counted, "write_state", None)


class ConversationProgress(NamedTuple):
    """Where the conversation stands: stage, turns since the last proposal, proposals."""

    stage: Stage = 1
    turn_counter: int = 0
    stage3_proposals_issued: int = 0


def record_stage3_proposal(progress: ConversationProgress) -> ConversationProgress:
    """propose_handoff's side effect on progress: Stage 3, counter reset, one more proposal."""
    return ConversationProgress(
        stage=3,
        turn_counter=0,
        stage3_proposals_issued=progress.stage3_proposals_issued + 1,
    )


def advance_stage(stage: Stage, event: StageEvent) -> Stage:
    """Stage 1 → 2 → 3 → 2.

    - response_delivered: the first substantive response moves Stage 1 to 2.
    - handoff_proposed: the intent router or stall_check chose propose_handoff; any stage
      goes to 3, since an explicit request on the first message must be honoured.
    - visitor_continued: the visitor kept talking without accepting; 3 goes back to 2.
    """
    match event:
        case "handoff_proposed":
            return 3
        case "response_delivered":
            return 2 if stage == 1 else stage
        case "visitor_continued":
            return 2 if stage == 3 else stage
    raise ValueError(f"unknown stage event: {event!r}")
