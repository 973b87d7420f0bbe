"""How a reply ends: skill selection and the deterministic skill_applier.

`skill_selector` runs in parallel with the other analysis nodes, so it only sees the
intent and the interest score carried over from earlier turns. `skill_applier` runs
on the answer path once this turn's signals are known and applies the rules that
must hold whatever the selector (local or LLM) chose:

- redirected intents (SUPPORT, OFFTOPIC, OTHER, HACK) end without a skill;
- demo forcing: a BOOKING intent always proposes the demo;
- current-turn overrides: demo or pricing interest in this message proposes the demo
  (prices are never quoted, a call with sales is the answer);
- CTA timing: no demo or email ask before `cta_min_turn`, unless the visitor asked;
- a declined demo (STOP_BOOKING this turn, or booking status "declined") is not
  proposed again, and a booked one is not proposed twice;
- one question per reply: demo > email > profiling question.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final, Literal

from frontdesk.engines.base import Intent, IntentResult, SignalsResult, SkillChoice

SKILLS: Final = (
    "propose_demo",
    "collect_email",
    "ask_profiling_question",
    "share_case_study",
    "suggest_follow_up",
)
CTA_SKILLS: Final = frozenset({"propose_demo", "collect_email"})
QUESTION_SKILLS: Final = ("propose_demo", "collect_email", "ask_profiling_question")
NO_SKILL_INTENTS: Final = frozenset({"SUPPORT", "OFFTOPIC", "OTHER", "HACK"})
ASKING_SIGNALS: Final = frozenset({"demo_interest", "pricing_interest"})
MID_INTEREST_RATIO: Final = 0.5  # content gating starts at half the site's threshold
BookingStatus = Literal["idle", "collecting", "booked", "declined"]


def select_skills(
    intent: Intent, interest_score: float, threshold: float, turn_number: int
) -> SkillChoice:
    """The local skill_selector: intent first, then the cumulative interest score.

    At or above the threshold the demo is proposed; from half the threshold the reply
    offers content for an email (content gating); below it, the conversation keeps
    qualifying (a 👉 profiling question from the second turn) or suggests follow-ups.
    """
    if intent in NO_SKILL_INTENTS:
        return SkillChoice((), f"{intent}: redirected, no ending skill")
    if intent == "STOP_BOOKING":
        return SkillChoice(("suggest_follow_up",), "demo declined: keep helping, no CTA")
    if intent == "BOOKING":
        return SkillChoice(("propose_demo",), "visitor asked for a demo")
    score = f"interest {interest_score:.2f} vs threshold {threshold:.2f}"
    if interest_score >= threshold:
        return SkillChoice(("propose_demo",), f"{score}: hot, propose the demo")
    if interest_score >= threshold * MID_INTEREST_RATIO:
        skills = (
            ("collect_email", "share_case_study") if intent == "CONTEXT" else ("collect_email",)
        )
        return SkillChoice(_ordered(skills), f"{score}: warm, gate content behind an email")
    if intent == "CONTEXT":
        return SkillChoice(
            _ordered(("ask_profiling_question", "share_case_study")),
            f"{score}: context shared, show a similar case and keep qualifying",
        )
    if turn_number >= 1:
        return SkillChoice(
            _ordered(("ask_profiling_question", "suggest_follow_up")),
            f"{score}: keep qualifying",
        )
    return SkillChoice(("suggest_follow_up",), f"{score}: first turn, just help")


class LocalSkillSelector:
    """`SkillSelectorJob` for the local engine: the rules of `select_skills`."""

    async def select(
        self, intent: IntentResult, interest_score: float, threshold: float, turn_number: int
    ) -> SkillChoice:
        return select_skills(intent.intent, interest_score, threshold, turn_number)


def apply_skill_rules(
    choice: SkillChoice,
    *,
    intent: IntentResult | Intent,
    current_signals: SignalsResult | Iterable[str],
    turn_number: int,
    cta_min_turn: int,
    booking_status: str | None = "idle",
    enabled: Collection[str] | None = None,
    profiling_complete: bool = False,
) -> SkillChoice:
    """The deterministic skill_applier: the selector's choice, corrected by the
    rules in the module docstring with this turn's intent and signals.

    `turn_number` counts the assistant turns before this one (0 on the first message);
    a CTA may be shown from `turn_number >= cta_min_turn`. `enabled` (the site's
    `skills.enabled`) drops skills the site switched off; `profiling_complete` drops
    the profiling question once every form field is collected.
    """
    label = intent.intent if isinstance(intent, IntentResult) else intent
    signals = set(
        current_signals.interest_signals
        if isinstance(current_signals, SignalsResult)
        else current_signals
    )
    notes: list[str] = []
    if label in NO_SKILL_INTENTS:
        return SkillChoice((), f"{label}: redirected, no ending skill")

    skills = [skill for skill in dict.fromkeys(choice.skills) if skill in SKILLS]
    booked = booking_status == "booked"
    declined = label == "STOP_BOOKING" or (booking_status == "declined" and label != "BOOKING")
    asked = label == "BOOKING" or bool(signals & ASKING_SIGNALS)

    if label == "BOOKING" and not booked:
        _add(skills, "propose_demo", notes, "demo forced: booking intent")
    elif signals & ASKING_SIGNALS and not (booked or declined):
        asking = ", ".join(sorted(signals & ASKING_SIGNALS))
        _add(skills, "propose_demo", notes, f"demo proposed: {asking} this turn")
    if declined:
        _drop(skills, {"propose_demo"}, notes, "demo just declined")
    if booked:
        _drop(skills, CTA_SKILLS, notes, "demo already booked")
    if turn_number < cta_min_turn and not asked:
        _drop(skills, CTA_SKILLS, notes, f"turn {turn_number} < cta_min_turn {cta_min_turn}")
    if profiling_complete:
        _drop(skills, {"ask_profiling_question"}, notes, "profiling complete")
    if enabled is not None:
        _drop(skills, set(SKILLS) - set(enabled), notes, "disabled for the site")
    questions = [skill for skill in QUESTION_SKILLS if skill in skills]
    if len(questions) > 1:
        _drop(skills, set(questions[1:]), notes, "one question per reply")
    if not skills and (enabled is None or "suggest_follow_up" in enabled):
        _add(skills, "suggest_follow_up", notes, "default ending")

    reasoning = "; ".join(filter(None, [choice.reasoning, *notes]))
    return SkillChoice(_ordered(skills), reasoning)


def _add(skills: list[str], skill: str, notes: list[str], why: str) -> None:
    if skill not in skills:
        skills.append(skill)
        notes.append(why)


def _drop(skills: list[str], unwanted: Collection[str], notes: list[str], why: str) -> None:
    removed = [skill for skill in skills if skill in unwanted]
    if removed:
        skills[:] = [skill for skill in skills if skill not in unwanted]
        notes.append(f"{why}: dropped {', '.join(removed)}")


def _ordered(skills: Iterable[str]) -> tuple[str, ...]:
    chosen = set(skills)
    return tuple(skill for skill in SKILLS if skill in chosen)
