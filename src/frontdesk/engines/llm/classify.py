"""LLM jobs that understand the visitor: intent, signals, skills — each with the local
engine's answer as the fallback (a failed or invalid classification never crashes)."""

from __future__ import annotations

from collections.abc import Sequence

from frontdesk.engines.base import (
    IntentClassifierJob,
    IntentResult,
    Level,
    SignalsDetectorJob,
    SignalsResult,
    SkillChoice,
    SkillSelectorJob,
    Turn,
)
from frontdesk.engines.llm.messages import format_history, task, visitor_message
from frontdesk.engines.llm.prompts import PromptBook
from frontdesk.engines.llm.schemas import IntentOutput, SignalsOutput, SkillsOutput
from frontdesk.engines.llm.structured import StructuredCaller
from frontdesk.engines.local.acts import lone_contact
from frontdesk.engines.local.signals import INTEREST_WEIGHTS
from frontdesk.guard.pii import PiiScrubber

LEVEL_RANK: dict[str, int] = {"not_detected": 0, "partially_confirmed": 1, "confirmed": 2}


class LLMIntentJob:
    """`llm` routing: the fast model classifies; the local classifier is the fallback."""

    def __init__(
        self, caller: StructuredCaller, prompts: PromptBook, local: IntentClassifierJob
    ) -> None:
        self.caller = caller
        self.prompts = prompts
        self.local = local

    async def ask(self, text: str, history: Sequence[Turn]) -> IntentResult | None:
        scrubber = PiiScrubber()
        messages = task(
            self.prompts.system("intent_classifier"),
            format_history(history, scrubber),
            visitor_message(text, scrubber),
        )
        out = await self.caller(IntentOutput, messages, "intent_classifier")
        if out is None:
            return None
        return IntentResult(
            intent=out.intent,
            confidence=out.confidence,
            high_stakes=out.high_stakes,
            nonsense=out.nonsense,
            reasoning=f"llm: {out.reasoning}",
            probabilities={out.intent: out.confidence},
            act=lone_contact(text),  # an address or number alone, read by its shape
        )

    async def classify(self, text: str, history: Sequence[Turn]) -> IntentResult:
        return await self.ask(text, history) or await self.local.classify(text, history)


class HybridIntentJob:
    """`hybrid` routing: the local classifier first; the LLM's second opinion only when
    the local confidence is below the site's `hybrid_confidence`."""

    def __init__(self, local: IntentClassifierJob, llm: LLMIntentJob, threshold: float) -> None:
        self.local = local
        self.llm = llm
        self.threshold = threshold

    async def classify(self, text: str, history: Sequence[Turn]) -> IntentResult:
        first = await self.local.classify(text, history)
        if first.confidence >= self.threshold:
            return first
        second = await self.llm.ask(text, history)
        if second is None:
            return first
        note = f"{second.reasoning} (local {first.intent}={first.confidence:.2f} below "
        return IntentResult(
            intent=second.intent,
            confidence=second.confidence,
            high_stakes=second.high_stakes or first.high_stakes,
            nonsense=second.nonsense,
            reasoning=f"{note}{self.threshold:.2f})",
            probabilities=second.probabilities,
            act=first.act,  # the local act head's reading stands beside the model's label
        )


def merge_signals(local: SignalsResult, out: SignalsOutput, text: str) -> SignalsResult:
    """The union of both: the LLM reads scrubbed text, so emails and explicit human
    requests keep the local patterns' answer; levels take the higher of the two."""
    signals = list(dict.fromkeys([*local.interest_signals, *out.interest_signals]))
    delta = min(1.0, sum(INTEREST_WEIGHTS.get(name, 0.0) for name in signals))
    levels: dict[str, Level] = dict(local.qualification)
    evidence = dict(local.evidence)
    for dimension, level in out.qualification.model_dump().items():
        if LEVEL_RANK[level] > LEVEL_RANK[levels.get(dimension, "not_detected")]:
            levels[dimension] = level
            evidence.setdefault(dimension, text[:200])
    return SignalsResult(
        interest_delta=round(max(delta, local.interest_delta), 4),
        interest_signals=tuple(signals),
        qualification=levels,
        evidence=evidence,
        flags=local.flags | frozenset(out.flags),
        explicit_human_request=local.explicit_human_request or out.explicit_human_request,
        email=local.email,
    )


class LLMSignalsJob:
    def __init__(
        self, caller: StructuredCaller, prompts: PromptBook, local: SignalsDetectorJob
    ) -> None:
        self.caller = caller
        self.prompts = prompts
        self.local = local

    async def detect(self, text: str, language: str) -> SignalsResult:
        local = await self.local.detect(text, language)
        messages = task(
            self.prompts.system("signals_detector"), visitor_message(text, PiiScrubber())
        )
        out = await self.caller(SignalsOutput, messages, "signals_detector")
        return local if out is None else merge_signals(local, out, text)


class LLMSkillsJob:
    def __init__(
        self, caller: StructuredCaller, prompts: PromptBook, local: SkillSelectorJob
    ) -> None:
        self.caller = caller
        self.prompts = prompts
        self.local = local

    async def select(
        self, intent: IntentResult, interest_score: float, threshold: float, turn_number: int
    ) -> SkillChoice:
        system = self.prompts.system(
            "skill_selector",
            intent=intent.intent,
            interest=f"{interest_score:.2f}",
            threshold=f"{threshold:.2f}",
            turn=str(turn_number),
        )
        out = await self.caller(SkillsOutput, task(system, "Choose the skills."), "skill_selector")
        if out is None:
            return await self.local.select(intent, interest_score, threshold, turn_number)
        return SkillChoice(skills=tuple(dict.fromkeys(out.skills)), reasoning=out.reasoning)
