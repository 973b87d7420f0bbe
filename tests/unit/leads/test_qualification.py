"""Qualification state machine: monotonic deltas, lead level, routing, stall."""

from typing import Any

import pytest
from pydantic import ValidationError

from frontdesk.leads.qualification import (
    ConfidenceLevel,
    ConversationProgress,
    Dimension,
    QualificationDelta,
    QualificationState,
    RejectedChange,
    SignalEntry,
    Stage,
    StageEvent,
    advance_stage,
    apply_delta,
    is_hot_lead,
    lead_level,
    record_stage3_proposal,
    stall_check,
)

pytestmark = pytest.mark.unit

PROBLEM = "we're building a RAG system for our knowledge base"


def state(**fields: Any) -> QualificationState:
    return QualificationState(**fields)


# --- apply_delta -------------------------------------------------------------------------


def test_delta_raises_dimension_and_logs_signal_with_evidence_and_turn() -> None:
    delta = QualificationDelta(problem_fit="confirmed")

    new_state, rejected = apply_delta(state(), delta, 2, {"problem_fit": PROBLEM})

    assert new_state.problem_fit == "confirmed"
    assert rejected == []
    assert new_state.signals_observed == (
        SignalEntry(
            dimension="problem_fit",
            level="confirmed",
            signal_type="explicit",
            evidence=PROBLEM,
            turn_index=2,
        ),
    )


def test_partial_signal_is_logged_as_implicit() -> None:
    delta = QualificationDelta(company_fit="partially_confirmed")

    new_state, _ = apply_delta(state(), delta, 1, {"company_fit": "asked about the fintech case"})

    assert new_state.company_fit == "partially_confirmed"
    assert new_state.signals_observed[0].signal_type == "implicit"


@pytest.mark.parametrize(
    ("current", "proposed"),
    [
        ("confirmed", "partially_confirmed"),
        ("confirmed", "not_detected"),
        ("partially_confirmed", "not_detected"),
    ],
)
def test_downgrade_is_rejected_and_reported(
    current: ConfidenceLevel, proposed: ConfidenceLevel
) -> None:
    before = state(timing_fit=current)
    delta = QualificationDelta(timing_fit=proposed)

    after, rejected = apply_delta(before, delta, 5, {"timing_fit": "no rush really"})

    assert after.timing_fit == current
    assert after.signals_observed == ()
    assert rejected == [RejectedChange("timing_fit", current, proposed, 5, "no rush really")]


def test_downgrade_of_one_dimension_does_not_block_another_upgrade() -> None:
    before = state(problem_fit="confirmed")
    delta = QualificationDelta(problem_fit="partially_confirmed", authority_fit="confirmed")
    evidence: dict[Dimension, str] = {"problem_fit": "maybe", "authority_fit": "I'm the CTO"}

    after, rejected = apply_delta(before, delta, 3, evidence)

    assert (after.problem_fit, after.authority_fit) == ("confirmed", "confirmed")
    assert [change.dimension for change in rejected] == ["problem_fit"]


def test_omitted_dimensions_keep_their_level() -> None:
    before = state(problem_fit="confirmed", company_fit="partially_confirmed")

    after, _ = apply_delta(before, QualificationDelta(), 4, {})

    assert after == before


def test_same_level_reobservation_is_logged_for_fresher_evidence() -> None:
    first, _ = apply_delta(
        state(), QualificationDelta(problem_fit="confirmed"), 1, {"problem_fit": "a chatbot"}
    )

    second, rejected = apply_delta(
        first, QualificationDelta(problem_fit="confirmed"), 3, {"problem_fit": "a RAG bot"}
    )

    assert rejected == []
    assert [s.evidence for s in second.signals_observed] == ["a chatbot", "a RAG bot"]


def test_not_detected_on_not_detected_is_a_no_op() -> None:
    after, rejected = apply_delta(state(), QualificationDelta(problem_fit="not_detected"), 1, {})

    assert after == state()
    assert rejected == []


def test_upgrade_without_evidence_is_an_invalid_delta() -> None:
    with pytest.raises(ValueError, match="evidence missing for authority_fit"):
        apply_delta(state(), QualificationDelta(authority_fit="confirmed"), 1, {})


def test_negative_turn_index_is_rejected() -> None:
    with pytest.raises(ValueError, match="turn_index"):
        apply_delta(state(), QualificationDelta(), -1, {})


def test_apply_delta_does_not_mutate_the_input_state() -> None:
    before = state()

    apply_delta(before, QualificationDelta(problem_fit="confirmed"), 1, {"problem_fit": "x"})

    assert before == state()


def test_state_is_frozen() -> None:
    with pytest.raises(ValidationError):
        state().problem_fit = "confirmed"  # type: ignore[misc]


@pytest.mark.parametrize(
    "flag", ["is_negative_persona", "is_no_fit", "is_consultant", "referral_mentioned"]
)
def test_session_flags_are_sticky(flag: str) -> None:
    set_once, _ = apply_delta(state(), QualificationDelta(**{flag: True}), 1, {})

    later, _ = apply_delta(set_once, QualificationDelta(), 2, {})

    assert getattr(set_once, flag) is True
    assert getattr(later, flag) is True


def test_explicit_human_request_describes_the_current_message_only() -> None:
    asked, _ = apply_delta(state(), QualificationDelta(explicit_human_request=True), 1, {})

    next_turn, _ = apply_delta(asked, QualificationDelta(), 2, {})

    assert asked.explicit_human_request is True
    assert next_turn.explicit_human_request is False


def test_none_signal_log_is_treated_as_empty() -> None:
    assert QualificationState(signals_observed=None).signals_observed == ()


# --- is_hot_lead / lead_level ---------------------------------------------------------------

HOT_CASES: list[tuple[ConfidenceLevel, ConfidenceLevel, ConfidenceLevel, ConfidenceLevel, bool]] = [
    # problem, authority, company, timing, hot?
    ("confirmed", "confirmed", "partially_confirmed", "not_detected", True),
    ("confirmed", "confirmed", "not_detected", "partially_confirmed", True),
    ("confirmed", "confirmed", "confirmed", "confirmed", True),
    ("confirmed", "confirmed", "not_detected", "not_detected", False),
    ("confirmed", "partially_confirmed", "confirmed", "confirmed", False),
    ("partially_confirmed", "confirmed", "confirmed", "confirmed", False),
    ("not_detected", "not_detected", "not_detected", "not_detected", False),
]


@pytest.mark.parametrize(("problem", "authority", "company", "timing", "hot"), HOT_CASES)
def test_is_hot_lead(
    problem: ConfidenceLevel,
    authority: ConfidenceLevel,
    company: ConfidenceLevel,
    timing: ConfidenceLevel,
    hot: bool,
) -> None:
    qualification = state(
        problem_fit=problem, authority_fit=authority, company_fit=company, timing_fit=timing
    )

    assert is_hot_lead(qualification) is hot


HOT = {"problem_fit": "confirmed", "authority_fit": "confirmed", "company_fit": "confirmed"}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "cold"),
        (HOT, "hot"),
        ({"problem_fit": "partially_confirmed"}, "warm"),
        ({"timing_fit": "partially_confirmed"}, "warm"),
        ({"problem_fit": "confirmed", "authority_fit": "confirmed"}, "warm"),
        ({"referral_mentioned": True}, "warm"),
        ({**HOT, "is_negative_persona": True}, "cold"),
        ({**HOT, "is_no_fit": True}, "cold"),
        ({"problem_fit": "confirmed", "is_no_fit": True}, "cold"),
        ({**HOT, "is_consultant": True}, "hot"),
    ],
)
def test_lead_level(fields: dict[str, Any], expected: str) -> None:
    assert lead_level(state(**fields)) == expected


# --- stall_check and stages ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("turn_counter", "proposals", "expected"),
    [
        (0, 0, (1, "write_state", None)),
        (4, 0, (5, "write_state", None)),
        (5, 0, (6, "propose_handoff", "stall")),
        (9, 0, (10, "propose_handoff", "stall")),
        (5, 1, (6, "write_state", None)),
        (20, 2, (21, "write_state", None)),
    ],
)
def test_stall_check_default_threshold(
    turn_counter: int, proposals: int, expected: tuple[int, str, str | None]
) -> None:
    assert stall_check(turn_counter, proposals) == expected


def test_stall_check_configurable_threshold() -> None:
    assert stall_check(1, 0, threshold=2).route == "propose_handoff"
    assert stall_check(0, 0, threshold=2).route == "write_state"


def test_stall_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="STALL_TURN_THRESHOLD"):
        stall_check(0, 0, threshold=0)


def test_stage3_proposal_resets_counter_and_counts_proposal() -> None:
    progress = ConversationProgress(stage=2, turn_counter=6, stage3_proposals_issued=0)

    assert record_stage3_proposal(progress) == ConversationProgress(3, 0, 1)


@pytest.mark.parametrize(
    ("stage", "event", "expected"),
    [
        (1, "response_delivered", 2),
        (2, "response_delivered", 2),
        (3, "response_delivered", 3),
        (2, "handoff_proposed", 3),
        (1, "handoff_proposed", 3),
        (3, "handoff_proposed", 3),
        (3, "visitor_continued", 2),
        (2, "visitor_continued", 2),
        (1, "visitor_continued", 1),
    ],
)
def test_advance_stage(stage: Stage, event: StageEvent, expected: Stage) -> None:
    assert advance_stage(stage, event) == expected


def test_advance_stage_rejects_unknown_event() -> None:
    with pytest.raises(ValueError, match="unknown stage event"):
        advance_stage(2, "teleport")  # type: ignore[arg-type]


def test_session_walks_stage_1_2_3_2() -> None:
    stage: Stage = 1
    events: list[StageEvent] = ["response_delivered", "handoff_proposed", "visitor_continued"]
    visited = [stage]
    for event in events:
        stage = advance_stage(stage, event)
        visited.append(stage)

    assert visited == [1, 2, 3, 2]
