"""Local skill selector and the deterministic skill_applier rules."""

from __future__ import annotations

import asyncio

import pytest

from frontdesk.engines.base import (
    Intent,
    IntentResult,
    SignalsResult,
    SkillChoice,
    SkillSelectorJob,
)
from frontdesk.engines.local.skills import (
    SKILLS,
    LocalSkillSelector,
    apply_skill_rules,
    select_skills,
)

pytestmark = pytest.mark.unit

THRESHOLD = 0.7

# --- selection ----------------------------------------------------------------------------

SELECTION: list[tuple[Intent, float, int, tuple[str, ...]]] = [
    # redirected intents end without a skill, whatever the interest
    ("SUPPORT", 5.0, 3, ()),
    ("OFFTOPIC", 5.0, 3, ()),
    ("HACK", 5.0, 3, ()),
    ("OTHER", 5.0, 3, ()),
    # a booking intent always proposes the demo
    ("BOOKING", 0.0, 0, ("propose_demo",)),
    ("STOP_BOOKING", 5.0, 3, ("suggest_follow_up",)),
    # interest at or above the threshold proposes the demo
    ("LEARN", 0.7, 2, ("propose_demo",)),
    ("CONTEXT", 1.4, 5, ("propose_demo",)),
    # mid-level interest: content gating
    ("LEARN", 0.35, 2, ("collect_email",)),
    ("LEARN", 0.69, 2, ("collect_email",)),
    ("CONTEXT", 0.4, 2, ("collect_email", "share_case_study")),
    # low interest: help, qualify from the second turn
    ("LEARN", 0.0, 0, ("suggest_follow_up",)),
    ("LEARN", 0.2, 1, ("ask_profiling_question", "suggest_follow_up")),
    ("CONTEXT", 0.1, 0, ("ask_profiling_question", "share_case_study")),
]


@pytest.mark.parametrize(("intent", "score", "turn", "expected"), SELECTION)
def test_select_skills(intent: Intent, score: float, turn: int, expected: tuple[str, ...]) -> None:
    choice = select_skills(intent, score, THRESHOLD, turn)
    assert choice.skills == expected
    assert choice.reasoning


def test_selector_implements_the_job_interface() -> None:
    selector: SkillSelectorJob = LocalSkillSelector()
    choice = asyncio.run(selector.select(IntentResult("BOOKING", 0.9), 0.0, THRESHOLD, 0))
    assert choice.skills == ("propose_demo",)


def test_selected_skills_are_known_and_in_canonical_order() -> None:
    for intent, score, turn, _ in SELECTION:
        skills = select_skills(intent, score, THRESHOLD, turn).skills
        assert all(skill in SKILLS for skill in skills)
        assert list(skills) == sorted(skills, key=SKILLS.index)


# --- skill_applier --------------------------------------------------------------------------


def apply(
    skills: tuple[str, ...],
    intent: Intent = "LEARN",
    signals: tuple[str, ...] = (),
    turn: int = 3,
    cta_min_turn: int = 2,
    booking_status: str = "idle",
) -> tuple[str, ...]:
    return apply_skill_rules(
        SkillChoice(skills, "selector"),
        intent=intent,
        current_signals=signals,
        turn_number=turn,
        cta_min_turn=cta_min_turn,
        booking_status=booking_status,
    ).skills


RULES: list[tuple[str, dict[str, object], tuple[str, ...]]] = [
    # demo forcing on booking intent, even before cta_min_turn and over the selector
    ("booking forces the demo", {"skills": (), "intent": "BOOKING", "turn": 0}, ("propose_demo",)),
    (
        "booking forces the demo over an email ask",
        {"skills": ("collect_email",), "intent": "BOOKING"},
        ("propose_demo",),
    ),
    # CTA timing
    (
        "no CTA before cta_min_turn",
        {"skills": ("propose_demo",), "turn": 1},
        ("suggest_follow_up",),
    ),
    (
        "no email ask before cta_min_turn",
        {"skills": ("collect_email", "share_case_study"), "turn": 0},
        ("share_case_study",),
    ),
    ("CTA allowed at cta_min_turn", {"skills": ("propose_demo",), "turn": 2}, ("propose_demo",)),
    (
        "cta_min_turn 0 allows a CTA on the first reply",
        {"skills": ("collect_email",), "turn": 0, "cta_min_turn": 0},
        ("collect_email",),
    ),
    # current-turn overrides: the visitor asked
    (
        "pricing interest this turn proposes the demo, even early",
        {"skills": ("suggest_follow_up",), "signals": ("pricing_interest",), "turn": 0},
        ("propose_demo", "suggest_follow_up"),
    ),
    (
        "demo interest this turn proposes the demo",
        {"skills": ("ask_profiling_question",), "signals": ("demo_interest",), "turn": 1},
        ("propose_demo",),
    ),
    (
        "other signals do not bypass CTA timing",
        {"skills": ("propose_demo",), "signals": ("integration_question",), "turn": 0},
        ("suggest_follow_up",),
    ),
    # declined demo
    (
        "STOP_BOOKING never proposes the demo",
        {"skills": ("propose_demo",), "intent": "STOP_BOOKING", "signals": ("demo_interest",)},
        ("suggest_follow_up",),
    ),
    (
        "right after a decline, pricing interest does not bring the demo back",
        {
            "skills": ("propose_demo",),
            "signals": ("pricing_interest",),
            "booking_status": "declined",
        },
        ("suggest_follow_up",),
    ),
    (
        "a new explicit booking request after a decline is honoured",
        {"skills": (), "intent": "BOOKING", "booking_status": "declined"},
        ("propose_demo",),
    ),
    (
        "a booked demo is not proposed twice",
        {"skills": ("propose_demo", "collect_email"), "booking_status": "booked"},
        ("suggest_follow_up",),
    ),
    (
        "a booking intent after booking does not re-propose",
        {"skills": (), "intent": "BOOKING", "booking_status": "booked"},
        ("suggest_follow_up",),
    ),
    # one question per reply
    (
        "demo beats email and profiling",
        {"skills": ("ask_profiling_question", "collect_email", "propose_demo")},
        ("propose_demo",),
    ),
    (
        "email beats profiling; non-question skills stay",
        {"skills": ("share_case_study", "ask_profiling_question", "collect_email")},
        ("collect_email", "share_case_study"),
    ),
    # hygiene
    ("unknown skills are dropped", {"skills": ("sing_a_song",)}, ("suggest_follow_up",)),
    ("redirected intents end bare", {"skills": ("propose_demo",), "intent": "SUPPORT"}, ()),
    (
        "hack ends bare even when asked",
        {"skills": (), "intent": "HACK", "signals": ("demo_interest",)},
        (),
    ),
]


@pytest.mark.parametrize(("rule", "case", "expected"), RULES, ids=[r[0] for r in RULES])
def test_skill_rules(rule: str, case: dict[str, object], expected: tuple[str, ...]) -> None:
    assert apply(**case) == expected, rule  # type: ignore[arg-type]


def test_rules_accept_engine_values_and_explain_themselves() -> None:
    choice = apply_skill_rules(
        SkillChoice(("suggest_follow_up",), "selector said so"),
        intent=IntentResult("LEARN", 0.8),
        current_signals=SignalsResult(interest_signals=("pricing_interest",)),
        turn_number=0,
        cta_min_turn=2,
        booking_status=None,
    )
    assert choice.skills == ("propose_demo", "suggest_follow_up")
    assert choice.reasoning.startswith("selector said so; ")
    assert "pricing_interest" in choice.reasoning


def test_site_switches_and_profiling_completion() -> None:
    base = {
        "intent": "LEARN",
        "current_signals": (),
        "turn_number": 3,
        "cta_min_turn": 2,
        "booking_status": "idle",
    }
    only_cta = apply_skill_rules(
        SkillChoice(("ask_profiling_question", "share_case_study")),
        enabled=("propose_demo", "collect_email", "suggest_follow_up"),
        **base,  # type: ignore[arg-type]
    )
    assert only_cta.skills == ("suggest_follow_up",)
    nothing_enabled = apply_skill_rules(SkillChoice(("share_case_study",)), enabled=(), **base)  # type: ignore[arg-type]
    assert nothing_enabled.skills == ()
    done = apply_skill_rules(
        SkillChoice(("ask_profiling_question",)),
        profiling_complete=True,
        **base,  # type: ignore[arg-type]
    )
    assert done.skills == ("suggest_follow_up",)


def test_selector_then_applier_end_to_end() -> None:
    # Turn 0: the visitor asks for pricing; the selector saw no interest yet.
    first = select_skills("LEARN", 0.0, THRESHOLD, 0)
    assert apply(first.skills, signals=("pricing_interest",), turn=0) == (
        "propose_demo",
        "suggest_follow_up",
    )
    # Turn 1: they decline; the next turn pricing comes up again — no demo.
    declined = select_skills("STOP_BOOKING", 0.9, THRESHOLD, 1)
    assert apply(declined.skills, intent="STOP_BOOKING", turn=1) == ("suggest_follow_up",)
    later = select_skills("LEARN", 0.9, THRESHOLD, 2)
    assert later.skills == ("propose_demo",)
    assert apply(
        later.skills, signals=("pricing_interest",), turn=2, booking_status="declined"
    ) == ("suggest_follow_up",)
