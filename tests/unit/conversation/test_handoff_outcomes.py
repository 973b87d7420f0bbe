"""Why a turn proposes a person, whether the team hears of it at once, and whether the
operators are rung after the turn: pure decisions in `outcomes`, read from plain states."""

from __future__ import annotations

import pytest

from frontdesk.conversation.outcomes import after_kept_turn, proposal_reason, waits_for_yes
from frontdesk.conversation.state import ChatState


def state(**fields: object) -> ChatState:
    return {"messages": [], "input": "", **fields}  # type: ignore[typeddict-item]


def test_a_handoff_route_proposes_for_its_own_reason() -> None:
    assert proposal_reason(state(route="HANDOFF", route_reason="hot_lead")) == "hot_lead"
    accepted = state(route="HANDOFF", route_reason="handoff_accepted")
    assert proposal_reason(accepted) == "handoff_accepted"
    given = state(route="HANDOFF", route_reason="contact_given")
    assert proposal_reason(given) == "contact_given"


def test_an_unknown_handoff_reason_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown handoff reason"):
        proposal_reason(state(route="HANDOFF", route_reason="learn"))


def test_high_stakes_offers_a_person_beside_an_answer_or_instead_of_none() -> None:
    cited = [{"index": 1}]
    answered = state(route="ANSWER", route_reason="high_stakes", citations=cited)
    assert proposal_reason(answered) == "high_stakes_offer"
    unanswered = state(
        route="ANSWER", route_reason="high_stakes", citations=cited, routing="cannot_answer"
    )
    assert proposal_reason(unanswered) == "high_stakes_question"
    assert proposal_reason(state(route="ANSWER", route_reason="high_stakes")) == (
        "high_stakes_question"
    )


def test_any_other_answer_reaches_a_person_through_a_stall() -> None:
    assert proposal_reason(state(route="ANSWER", route_reason="learn")) == "stall"


def test_only_an_offer_waits_for_the_visitors_yes() -> None:
    assert waits_for_yes("stall") and waits_for_yes("high_stakes_offer")
    for reason in ("explicit_request", "hot_lead", "high_stakes_question", "llm_failure"):
        assert not waits_for_yes(reason)  # type: ignore[arg-type]


@pytest.mark.parametrize("reason", ["handoff_accepted", "contact_given", "contact_declined"])
def test_a_visitor_who_waits_for_a_person_rings_the_operators(reason: str) -> None:
    assert after_kept_turn(reason) == "ring_operators"


@pytest.mark.parametrize("reason", [None, "learn", "explicit_request", "contact_ask_again"])
def test_other_turns_ring_nobody(reason: str | None) -> None:
    assert after_kept_turn(reason) == "done"
