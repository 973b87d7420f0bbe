"""Context Packet Generator and build_summary (cases CPG-001 … CPG-010)."""

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from frontdesk.leads.packet import (
    ContextPacketGenerationError,
    SessionSnapshot,
    build_summary,
    generate_context_packet,
    summary_signal,
)
from frontdesk.leads.qualification import QualificationState, SignalEntry

pytestmark = pytest.mark.unit

TRIGGERED_AT = datetime(2025, 3, 12, 14, 5, tzinfo=UTC)
PROBLEM = "we're building a RAG system for our knowledge base"
AUTHORITY = "I lead the platform team"
COMPANY = "200-person fintech"
TIMING = "we need this live before Q3"


def explicit(dimension: Any, evidence: str, turn: int) -> SignalEntry:
    return SignalEntry(
        dimension=dimension,
        level="confirmed",
        signal_type="explicit",
        evidence=evidence,
        turn_index=turn,
    )


def implicit(
    dimension: Any, evidence: str, turn: int, level: Any = "partially_confirmed"
) -> SignalEntry:
    return SignalEntry(
        dimension=dimension, level=level, signal_type="implicit", evidence=evidence, turn_index=turn
    )


ALL_EXPLICIT = (
    explicit("problem_fit", PROBLEM, 2),
    explicit("authority_fit", AUTHORITY, 3),
    explicit("company_fit", COMPANY, 3),
    explicit("timing_fit", TIMING, 5),
)
ALL_CONFIRMED = QualificationState(
    problem_fit="confirmed",
    authority_fit="confirmed",
    company_fit="confirmed",
    timing_fit="confirmed",
    referral_mentioned=True,
    signals_observed=ALL_EXPLICIT,
)


def snapshot(**overrides: Any) -> SessionSnapshot:
    fields: dict[str, Any] = {
        "session_id": "sess-42",
        "last_updated_at": TRIGGERED_AT,
        "lead_level": "hot",
        "handoff_reason": "hot_lead",
        "qualification": ALL_CONFIRMED,
        "visitor_email": "ana@example.com",
        "visitor_name": "Ana García",
        "visitor_company": "Pagos SL",
        "visitor_role": "Head of Platform",
        "last_turn_index": 6,
        "stage3_proposals_issued": 1,
    }
    return SessionSnapshot(**{**fields, **overrides})


def test_cpg_001_all_confirmed_all_visitor_fields_full_summary() -> None:
    packet = generate_context_packet(snapshot())

    assert packet.conversation_summary == (
        "Visitor is building / evaluating "
        "'we're building a RAG system for our knowledge base'. "
        "They are Head of Platform at a '200-person fintech' company. "
        "They have a concrete timeline: 'we need this live before Q3'. "
        "Note: the visitor mentioned a referral."
    )
    qualification = packet.qualification
    assert {
        qualification.problem_fit,
        qualification.authority_fit,
        qualification.company_fit,
        qualification.timing_fit,
    } == {"confirmed"}
    assert packet.visitor.model_dump() == {
        "email": "ana@example.com",
        "name": "Ana García",
        "company": "Pagos SL",
        "role": "Head of Platform",
    }
    assert packet.session_id == "sess-42"
    assert packet.triggered_at == TRIGGERED_AT
    assert (packet.lead_level, packet.handoff_reason) == ("hot", "hot_lead")
    assert packet.conversation.turn_count == 6
    assert packet.conversation.stage3_proposals_issued == 1
    assert packet.conversation.signals_observed == ALL_EXPLICIT


def test_cpg_002_problem_confirmed_authority_partial_two_sentences() -> None:
    qualification = QualificationState(
        problem_fit="confirmed",
        authority_fit="partially_confirmed",
        signals_observed=(
            explicit("problem_fit", PROBLEM, 1),
            implicit("authority_fit", "asked about procurement and security review", 2),
        ),
    )

    packet = generate_context_packet(
        snapshot(qualification=qualification, visitor_role=None, lead_level="warm")
    )

    assert packet.conversation_summary == (
        "Visitor is building / evaluating "
        "'we're building a RAG system for our knowledge base'. "
        "They identified as asked about procurement and security review."
    )
    assert packet.qualification.company_fit == "not_detected"
    assert packet.qualification.timing_fit == "not_detected"


def test_cpg_003_no_signals_stall_gives_default_summary_with_reason() -> None:
    packet = generate_context_packet(
        snapshot(qualification=QualificationState(), handoff_reason="stall", lead_level="cold")
    )

    assert packet.conversation_summary == (
        "Conversation did not produce sufficient qualification signals before "
        "handoff was triggered. Trigger reason: stall."
    )


def test_cpg_004_consultant_note() -> None:
    qualification = ALL_CONFIRMED.model_copy(
        update={"is_consultant": True, "referral_mentioned": False}
    )

    packet = generate_context_packet(snapshot(qualification=qualification))

    assert packet.conversation_summary.endswith(
        "Note: this visitor is a consultant evaluating on behalf of a client."
    )
    assert packet.qualification.is_consultant is True


def test_cpg_005_referral_note_without_consultant() -> None:
    summary = generate_context_packet(snapshot()).conversation_summary

    assert summary.endswith("Note: the visitor mentioned a referral.")
    assert "consultant" not in summary


def test_cpg_006_missing_email_passes_through_as_none() -> None:
    packet = generate_context_packet(snapshot(visitor_email=None))

    assert packet.visitor.email is None
    assert (packet.visitor.name, packet.visitor.company, packet.visitor.role) == (
        "Ana García",
        "Pagos SL",
        "Head of Platform",
    )


def test_cpg_007_missing_handoff_reason_raises() -> None:
    with pytest.raises(ContextPacketGenerationError, match="handoff_reason not set"):
        generate_context_packet(snapshot(handoff_reason=None))


def test_cpg_008_empty_session_id_raises() -> None:
    with pytest.raises(ContextPacketGenerationError, match="session_id missing or empty"):
        generate_context_packet(snapshot(session_id=""))


def test_cpg_009_same_input_same_output() -> None:
    state = snapshot()

    assert generate_context_packet(state) == generate_context_packet(state)
    assert (
        generate_context_packet(state).model_dump_json()
        == generate_context_packet(snapshot()).model_dump_json()
    )


def test_cpg_010_most_recent_explicit_signal_preferred() -> None:
    signals = (
        implicit("problem_fit", "asked about the insurance case study", 1),
        explicit("problem_fit", "we need an internal support bot", 2),
        explicit("problem_fit", PROBLEM, 4),
        implicit("problem_fit", "asked how citations work", 5, level="confirmed"),
    )

    summary = build_summary(signals, handoff_reason="hot_lead")

    assert summary == f"Visitor is building / evaluating '{PROBLEM}'."


# --- validation beyond the CPG cases ------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"lead_level": "lukewarm"}, "invalid lead_level: lukewarm"),
        ({"last_updated_at": None}, "last_updated_at missing"),
        ({"last_updated_at": datetime(2025, 3, 12, 14, 5)}, "timezone-aware"),
    ],
)
def test_invalid_snapshot_raises(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ContextPacketGenerationError, match=message):
        generate_context_packet(snapshot(**overrides))


def test_triggered_at_is_normalised_to_utc() -> None:
    madrid_time = datetime(2025, 3, 12, 15, 5, tzinfo=timezone(timedelta(hours=1)))

    packet = generate_context_packet(snapshot(last_updated_at=madrid_time))

    assert packet.triggered_at == TRIGGERED_AT
    assert packet.triggered_at.tzinfo == UTC


def test_none_signal_log_gives_default_summary() -> None:
    qualification = QualificationState(signals_observed=None)

    packet = generate_context_packet(
        snapshot(qualification=qualification, handoff_reason="explicit_request")
    )

    assert packet.conversation_summary.endswith("Trigger reason: explicit_request.")
    assert packet.conversation.signals_observed == ()


def test_no_messages_means_turn_count_zero() -> None:
    packet = generate_context_packet(snapshot(last_turn_index=0))

    assert packet.conversation.turn_count == 0


# --- build_summary templates --------------------------------------------------------------


@pytest.mark.parametrize(
    ("signals", "role", "expected"),
    [
        pytest.param(
            (implicit("problem_fit", "asked detailed questions about the RAG case study", 1),),
            None,
            "Visitor appears to have a requirement related to asked detailed questions about "
            "the RAG case study, though the specific initiative was not stated directly.",
            id="implicit-problem",
        ),
        pytest.param(
            (explicit("authority_fit", AUTHORITY, 1), explicit("company_fit", COMPANY, 1)),
            None,
            "They are in a senior role at a '200-person fintech' company.",
            id="authority-confirmed-company-no-role",
        ),
        pytest.param(
            (explicit("authority_fit", AUTHORITY, 1),),
            None,
            f"They identified as '{AUTHORITY}'.",
            id="authority-only-evidence",
        ),
        pytest.param(
            (explicit("authority_fit", AUTHORITY, 1),),
            "CTO",
            "They identified as CTO.",
            id="authority-only-role",
        ),
        pytest.param(
            (explicit("company_fit", COMPANY, 1),),
            "CTO",
            "They are at a '200-person fintech' company; their role was not stated.",
            id="company-only",
        ),
        pytest.param(
            (
                implicit("authority_fit", "mentioned signing off budgets", 1),
                explicit("company_fit", COMPANY, 1),
            ),
            None,
            "They identified as mentioned signing off budgets at a '200-person fintech' company.",
            id="authority-partial-with-company",
        ),
        pytest.param(
            (implicit("timing_fit", "asked how fast onboarding is", 3),),
            None,
            "There are signals of urgency: asked how fast onboarding is.",
            id="timing-partial",
        ),
        pytest.param(
            (explicit("timing_fit", TIMING, 3),),
            None,
            "They have a concrete timeline: 'we need this live before Q3'.",
            id="timing-confirmed",
        ),
    ],
)
def test_build_summary_templates(
    signals: tuple[SignalEntry, ...], role: str | None, expected: str
) -> None:
    assert build_summary(signals, handoff_reason="hot_lead", visitor_role=role) == expected


def test_build_summary_consultant_and_referral_note() -> None:
    summary = build_summary(
        (explicit("problem_fit", PROBLEM, 1),),
        handoff_reason="hot_lead",
        is_consultant=True,
        referral_mentioned=True,
    )

    assert summary.endswith(
        "Note: this visitor is a consultant evaluating on behalf of a client "
        "and mentioned a referral."
    )


@pytest.mark.parametrize(
    ("signals", "expected_evidence"),
    [
        pytest.param((), None, id="none"),
        pytest.param(
            (implicit("problem_fit", "early", 1), implicit("problem_fit", "late", 4)),
            "late",
            id="partial-only-most-recent",
        ),
        pytest.param(
            (explicit("problem_fit", "confirmed early", 1), implicit("problem_fit", "partial", 4)),
            "confirmed early",
            id="confirmed-beats-later-partial",
        ),
        pytest.param(
            (explicit("problem_fit", "first", 2), explicit("problem_fit", "second", 2)),
            "second",
            id="same-turn-later-entry-wins",
        ),
        pytest.param(
            (explicit("timing_fit", "other dimension", 9),),
            None,
            id="other-dimension-ignored",
        ),
    ],
)
def test_summary_signal_selection(
    signals: tuple[SignalEntry, ...], expected_evidence: str | None
) -> None:
    chosen = summary_signal(signals, "problem_fit")

    assert (chosen.evidence if chosen else None) == expected_evidence


def test_summary_failure_falls_back_to_default(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("template bug")

    monkeypatch.setattr("frontdesk.leads.packet.build_summary", broken)

    packet = generate_context_packet(snapshot())

    assert packet.conversation_summary.startswith("Conversation did not produce sufficient")
    assert packet.conversation_summary.endswith("Trigger reason: hot_lead.")
