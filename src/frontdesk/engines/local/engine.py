"""The `local` engine: every job answered offline by classical NLP (DESIGN.md "Engines")."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from frontdesk.engines.base import Engines, IntentResult, Turn
from frontdesk.engines.local.acts import lone_contact
from frontdesk.engines.local.answering import (
    LocalAnswerEvaluator,
    LocalAnswerWriter,
    LocalClaimVerifier,
    LocalDocumentGrader,
    LocalQueryRewriter,
    LocalSuggester,
)
from frontdesk.engines.local.answering.rewrite import has_anaphora, is_follow_up
from frontdesk.engines.local.answering.text import guess_language
from frontdesk.engines.local.intent import IntentClassifier, get_intent_classifier
from frontdesk.engines.local.scan import read
from frontdesk.engines.local.signals import LocalSignalsDetector
from frontdesk.engines.local.skills import LocalSkillSelector
from frontdesk.settings import Settings

_NOT_ABOUT_US = frozenset({"OFFTOPIC", "OTHER"})
_ABOUT_US = frozenset({"LEARN", "SUPPORT", "CONTEXT"})


def _leans_on(text: str, history: Sequence[Turn]) -> bool:
    """A question that needs the previous turn for its subject ("thanks!" does not)."""
    language = guess_language(text)
    asks = text.rstrip().endswith(("?", "？")) or has_anaphora(text, language)
    return asks and is_follow_up(text, history, language)


class LocalIntentJob:
    """The trained multilingual classifier behind the async job interface."""

    def __init__(self, classifier: IntentClassifier) -> None:
        self.classifier = classifier

    async def classify(self, text: str, history: Sequence[Turn]) -> IntentResult:
        # A pasted text is classified by its start and end, off the event loop (`scan`).
        prediction = await read(self.classifier.predict, text)
        act = lone_contact(text) or prediction.act  # what the message is on its own
        if prediction.intent in _NOT_ABOUT_US and history and _leans_on(text, history):
            # "How do I fix it?" is off-topic alone and a support question after an error
            # code: read a follow-up together with the question it follows.
            joined = await read(self.classifier.predict, f"{history[-1].user} {text}")
            if joined.intent in _ABOUT_US:
                prediction = joined
        top = sorted(prediction.probabilities.items(), key=lambda kv: -kv[1])[:3]
        return IntentResult(
            intent=prediction.intent,
            confidence=prediction.confidence,
            high_stakes=prediction.high_stakes,
            nonsense=prediction.nonsense,
            probabilities=dict(prediction.probabilities),
            reasoning="local classifier: " + ", ".join(f"{k}={v:.2f}" for k, v in top),
            act=act,
        )


def build_local_engines(settings: Settings | None = None) -> Engines:
    """One set of local jobs per process (the classifier is trained or loaded once)."""
    return _engines(settings.data_dir.resolve() / "models" if settings else None)


@lru_cache(maxsize=4)
def _engines(cache_dir: Path | None) -> Engines:
    return Engines(
        name="local",
        intent=LocalIntentJob(get_intent_classifier(cache_dir)),
        signals=LocalSignalsDetector(),
        skills=LocalSkillSelector(),
        rewriter=LocalQueryRewriter(),
        grader=LocalDocumentGrader(),
        writer=LocalAnswerWriter(),
        verifier=LocalClaimVerifier(),
        evaluator=LocalAnswerEvaluator(),
        suggester=LocalSuggester(),
    )


async def warm_up(engines: Engines) -> None:
    """Pay first-use costs (model load, regex compile) before the first visitor does."""
    from frontdesk.text.language import detect_language

    await engines.intent.classify("hello", [])
    # lingua loads its language models lazily: ~2 s on the first long message otherwise.
    detect_language("Bonjour, pouvez-vous m'expliquer la facturation annuelle ?", default="en")
    await asyncio.sleep(0)
