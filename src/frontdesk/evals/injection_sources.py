"""Prompt-injection detection measured on sources the detector never saw.

Leave whole sources out: for each source, a detector is trained on every other
trainable source and scored on the one left out (a measured-only source, such as a
dev.jsonl source with an unverified license, is scored by the detector trained on
everything). Then the shipped detector is scored on benign sets no model is trained on
(CLINC150 val, xSID, the questions of every site and retrieval set).

Recall is reported for sources with injections, the false-positive rate (benign rows
flagged) for sources with benign rows. Two pools: "public" (the public datasets, what the
gates read) and "all" (also every section of our own written files left out in turn, a
stricter test of attack styles the model has seen nothing like).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontdesk.engines.local.injection import SUSPECT_AT, InjectionDetector
from frontdesk.engines.local.injection_corpus import (
    Corpus,
    LabelledText,
    external_benign,
    load_corpus,
    sample,
)
from frontdesk.evals import metrics as m
from frontdesk.evals.suites import Check, SuiteResult

MIN_RECALL = 0.90
MAX_FALSE_POSITIVE_RATE = 0.03
# Sources written or generated for Frontdesk (injection_corpus); the rest are public.
OWN_SOURCE_PREFIXES = ("written_", "generated_", "intent_phrases")


@dataclass(frozen=True)
class HeldOutScore:
    source: str
    trained_on_others: bool  # False: a measured-only source, scored by the full model
    injections: int
    caught: int
    benign: int
    flagged: int
    misses: tuple[str, ...] = ()  # a few texts scored wrongly, for the report

    @property
    def recall(self) -> float | None:
        return m.ratio(self.caught, self.injections) if self.injections else None

    @property
    def false_positive_rate(self) -> float | None:
        return m.ratio(self.flagged, self.benign) if self.benign else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "trained_on_others": self.trained_on_others,
            "injections": self.injections,
            "recall": m.rounded(self.recall),
            "benign": self.benign,
            "false_positive_rate": m.rounded(self.false_positive_rate),
        }


def score_rows(
    detector: InjectionDetector, source: str, rows: Sequence[LabelledText], trained: bool
) -> HeldOutScore:
    flagged = detector.scores([r.text for r in rows]) >= SUSPECT_AT
    wrong = [r.text[:160] for r, f in zip(rows, flagged, strict=True) if bool(f) != r.injection]
    return HeldOutScore(
        source=source,
        trained_on_others=trained,
        injections=sum(r.injection for r in rows),
        caught=sum(bool(f) for r, f in zip(rows, flagged, strict=True) if r.injection),
        benign=sum(not r.injection for r in rows),
        flagged=sum(bool(f) for r, f in zip(rows, flagged, strict=True) if not r.injection),
        misses=tuple(wrong[:10]),
    )


def leave_sources_out(
    corpus: Corpus,
    *,
    limit: int | None = None,
    on_source: Callable[[str], None] | None = None,
) -> list[HeldOutScore]:
    """One score per source; `limit` caps the rows taken from each source (both for
    training and testing) for a fast run."""
    trainable = {name: sample(rows, limit) for name, rows in corpus.trainable.items()}
    scores: list[HeldOutScore] = []
    for source in [*trainable, *corpus.held_out]:
        if on_source is not None:
            on_source(source)
        training = [r for name, rows in trainable.items() if name != source for r in rows]
        detector = InjectionDetector.train(
            [r.text for r in training], [r.injection for r in training]
        )
        trained = source in trainable
        rows = trainable[source] if trained else sample(corpus.held_out[source], limit)
        scores.append(score_rows(detector, source, rows, trained))
    return scores


def pooled(scores: Sequence[HeldOutScore], name: str = "overall") -> HeldOutScore:
    return HeldOutScore(
        source=name,
        trained_on_others=True,
        injections=sum(s.injections for s in scores),
        caught=sum(s.caught for s in scores),
        benign=sum(s.benign for s in scores),
        flagged=sum(s.flagged for s in scores),
    )


def external_scores(
    detector: InjectionDetector, datasets: Path, limit: int | None = None
) -> list[HeldOutScore]:
    return [
        score_rows(
            detector,
            name,
            sample((LabelledText(t, False, name) for t in texts), limit),
            trained=False,
        )
        for name, texts in external_benign(datasets).items()
    ]


def _specificity(score: HeldOutScore) -> float | None:
    rate = score.false_positive_rate
    return None if rate is None else 1.0 - rate


def cross_source_suite(
    datasets: Path,
    *,
    detector: InjectionDetector,
    corpus: Corpus | None = None,
    limit: int | None = None,
    min_recall: float = MIN_RECALL,
    max_false_positive_rate: float = MAX_FALSE_POSITIVE_RATE,
    on_source: Callable[[str], None] | None = None,
) -> SuiteResult:
    """The whole measurement as one suite; gates on the pooled public held-out sources
    and on the pooled external benign sets (`detector` is the shipped one)."""
    held = leave_sources_out(corpus or load_corpus(datasets), limit=limit, on_source=on_source)
    outside = external_scores(detector, datasets, limit)
    public = pooled([s for s in held if not s.source.startswith(OWN_SOURCE_PREFIXES)], "public")
    everything = pooled(held, "all")
    outside_overall = pooled(outside, "external_benign")
    checks = [
        Check("injection_sources", "recall", public.recall, min_recall),
        # Checks read "at least": benign rows left alone (1 - false-positive rate).
        Check(
            "injection_sources",
            "specificity",
            _specificity(public),
            1.0 - max_false_positive_rate,
        ),
        Check(
            "injection_sources",
            "external_specificity",
            _specificity(outside_overall),
            1.0 - max_false_positive_rate,
        ),
    ]
    return SuiteResult(
        name="injection_sources",
        metrics={
            "recall": m.rounded(public.recall),
            "false_positive_rate": m.rounded(public.false_positive_rate),
            "specificity": m.rounded(_specificity(public)),
            "external_false_positive_rate": m.rounded(outside_overall.false_positive_rate),
            "external_specificity": m.rounded(_specificity(outside_overall)),
            "all_sources_recall": m.rounded(everything.recall),
            "all_sources_false_positive_rate": m.rounded(everything.false_positive_rate),
            "held_out": [s.as_dict() for s in [*held, public, everything]],
            "external": [s.as_dict() for s in outside],
            "rows_per_source": limit,
        },
        checks=checks,
        failures=[
            {"source": s.source, "text": text} for s in [*held, *outside] for text in s.misses
        ],
    )
