"""Evaluation metrics as pure functions of plain values (no I/O, no models).

Classification: accuracy, macro-F1,
weighted-F1, per-class precision/recall/F1 and the worst class (min-class F1).
Ranking: hit@k, MRR; context recall (expected
keywords found in the retrieved context). Every function returns `None` where a
metric is undefined (no items to average over) instead of inventing a 0 or a 1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when there is nothing to divide by."""
    return None if denominator == 0 else numerator / denominator


def f1(precision: float | None, recall: float | None) -> float:
    """Harmonic mean; 0 when either side is undefined or both are 0 (sklearn's convention)."""
    if not precision or not recall:
        return 0.0
    return 2 * precision * recall / (precision + recall)


# --- classification ---------------------------------------------------------------------


@dataclass(frozen=True)
class ClassScores:
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class ClassificationReport:
    """One multi-class evaluation. `labels` orders `per_class` and the confusion matrix
    (rows: expected, columns: predicted)."""

    labels: tuple[str, ...]
    accuracy: float | None
    macro_f1: float | None
    weighted_f1: float | None
    min_class_f1: float | None
    min_class: str | None
    per_class: dict[str, ClassScores]
    confusion: tuple[tuple[int, ...], ...]
    total: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "accuracy": rounded(self.accuracy),
            "macro_f1": rounded(self.macro_f1),
            "weighted_f1": rounded(self.weighted_f1),
            "min_class_f1": rounded(self.min_class_f1),
            "min_class": self.min_class,
            "per_class": {
                label: {
                    "precision": rounded(s.precision),
                    "recall": rounded(s.recall),
                    "f1": rounded(s.f1),
                    "support": s.support,
                }
                for label, s in self.per_class.items()
            },
            "confusion": {"labels": list(self.labels), "matrix": [list(r) for r in self.confusion]},
            "total": self.total,
        }


def classification_report(
    expected: Sequence[str], predicted: Sequence[str], labels: Sequence[str] = ()
) -> ClassificationReport:
    """Scores of `predicted` against `expected`, position by position.

    Classes are `labels` (in that order) plus any other label that occurs, sorted.
    Macro-F1 averages every class that occurs in either list (sklearn's default);
    weighted-F1 weighs classes by their support; min-class F1 is the lowest F1 among
    classes with support (a class never expected has no recall to be judged on).
    """
    if len(expected) != len(predicted):
        raise ValueError(f"{len(expected)} expected labels but {len(predicted)} predictions")
    seen = set(expected) | set(predicted)
    ordered = tuple(dict.fromkeys([*(lab for lab in labels if lab in seen), *sorted(seen)]))
    pairs = Counter(zip(expected, predicted, strict=True))
    support = Counter(expected)
    predicted_count = Counter(predicted)
    per_class: dict[str, ClassScores] = {}
    for label in ordered:
        hits = pairs[(label, label)]
        precision = ratio(hits, predicted_count[label]) or 0.0
        recall = ratio(hits, support[label]) or 0.0
        per_class[label] = ClassScores(precision, recall, f1(precision, recall), support[label])
    total = len(expected)
    correct = sum(pairs[(label, label)] for label in ordered)
    supported = {label: s for label, s in per_class.items() if s.support > 0}
    worst = min(supported, key=lambda label: supported[label].f1) if supported else None
    return ClassificationReport(
        labels=ordered,
        accuracy=ratio(correct, total),
        macro_f1=mean(s.f1 for s in per_class.values()),
        weighted_f1=ratio(sum(s.f1 * s.support for s in per_class.values()), total),
        min_class_f1=supported[worst].f1 if worst is not None else None,
        min_class=worst,
        per_class=per_class,
        confusion=tuple(tuple(pairs[(row, col)] for col in ordered) for row in ordered),
        total=total,
    )


def accuracy(expected: Sequence[Any], predicted: Sequence[Any]) -> float | None:
    """Share of positions where the prediction equals the expectation (route accuracy)."""
    if len(expected) != len(predicted):
        raise ValueError(f"{len(expected)} expected values but {len(predicted)} predictions")
    return ratio(sum(e == p for e, p in zip(expected, predicted, strict=True)), len(expected))


@dataclass(frozen=True)
class BinaryScores:
    """Detection of a positive class (injection, abstention, high stakes)."""

    precision: float | None
    recall: float | None
    f1: float | None
    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "precision": rounded(self.precision),
            "recall": rounded(self.recall),
            "f1": rounded(self.f1),
            "tp": self.true_positives,
            "fp": self.false_positives,
            "fn": self.false_negatives,
            "tn": self.true_negatives,
        }


def binary_scores(expected: Sequence[bool], predicted: Sequence[bool]) -> BinaryScores:
    """Precision is undefined (None) when nothing was flagged, recall when nothing should be."""
    if len(expected) != len(predicted):
        raise ValueError(f"{len(expected)} expected flags but {len(predicted)} predictions")
    pairs = Counter(zip(expected, predicted, strict=True))
    tp, fp = pairs[(True, True)], pairs[(False, True)]
    fn, tn = pairs[(True, False)], pairs[(False, False)]
    precision, recall = ratio(tp, tp + fp), ratio(tp, tp + fn)
    both = precision is not None and recall is not None
    return BinaryScores(precision, recall, f1(precision, recall) if both else None, tp, fp, fn, tn)


def abstain_scores(should_abstain: Sequence[bool], abstained: Sequence[bool]) -> BinaryScores:
    """Abstention precision/recall: positives are unanswerable questions."""
    return binary_scores(should_abstain, abstained)


# --- multi-label --------------------------------------------------------------------------


def set_recall(
    expected: Iterable[Collection[str]], predicted: Iterable[Collection[str]]
) -> float | None:
    """Micro recall of label sets (skill recall): expected labels that were chosen,
    over all expected labels. Items that expect nothing do not count."""
    found = wanted = 0
    for want, got in zip(expected, predicted, strict=True):
        wanted += len(set(want))
        found += len(set(want) & set(got))
    return ratio(found, wanted)


# --- ranking ----------------------------------------------------------------------------


def first_relevant_rank(ranking: Sequence[str], relevant: Collection[str]) -> int | None:
    """1-based position of the first relevant id, None when none was retrieved."""
    for position, item in enumerate(ranking, start=1):
        if item in relevant:
            return position
    return None


def hit_at_k(ranks: Sequence[int | None], k: int) -> float | None:
    """Share of queries whose first relevant document is within the top k."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return ratio(sum(1 for r in ranks if r is not None and r <= k), len(ranks))


def mean_reciprocal_rank(ranks: Sequence[int | None], k: int | None = None) -> float | None:
    """Mean of 1/rank of the first relevant document; a miss (or a rank beyond k) adds 0."""
    return ratio(sum(1.0 / r for r in ranks if r is not None and (k is None or r <= k)), len(ranks))


def keyword_recall(keywords: Sequence[str], context: str) -> float | None:
    """Context recall: share of expected keywords found in the retrieved context
    (case-insensitive substring match, so "ошибк" matches "ошибка")."""
    wanted = [k.casefold().strip() for k in keywords if k.strip()]
    haystack = context.casefold()
    return ratio(sum(1 for k in wanted if k in haystack), len(wanted))


# --- latency and summaries ---------------------------------------------------------------


def percentile(values: Iterable[float], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default method); None without values."""
    ordered = sorted(values)
    if not ordered:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within [0, 100], got {q}")
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class LatencySummary:
    p50_ms: float | None
    p95_ms: float | None
    mean_ms: float | None
    max_ms: float | None
    count: int = 0
    values: tuple[float, ...] = field(default=(), repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "p50_ms": rounded(self.p50_ms, 1),
            "p95_ms": rounded(self.p95_ms, 1),
            "mean_ms": rounded(self.mean_ms, 1),
            "max_ms": rounded(self.max_ms, 1),
            "count": self.count,
        }


def latency_summary(latencies_ms: Iterable[float]) -> LatencySummary:
    values = tuple(latencies_ms)
    return LatencySummary(
        p50_ms=percentile(values, 50),
        p95_ms=percentile(values, 95),
        mean_ms=mean(values),
        max_ms=max(values) if values else None,
        count=len(values),
        values=values,
    )


def mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return ratio(sum(items), len(items))


def rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)
