"""Evaluation metrics on small cases computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from frontdesk.evals.metrics import (
    abstain_scores,
    accuracy,
    binary_scores,
    classification_report,
    first_relevant_rank,
    hit_at_k,
    keyword_recall,
    latency_summary,
    mean_reciprocal_rank,
    percentile,
    set_recall,
)

pytestmark = pytest.mark.unit

EXPECTED = ["A", "A", "B", "B", "C"]
PREDICTED = ["A", "B", "B", "B", "A"]


def test_classification_report_by_hand() -> None:
    report = classification_report(EXPECTED, PREDICTED)
    # A: 1 hit of 2 predicted, 2 expected → P = R = F1 = 0.5
    a = report.per_class["A"]
    assert (a.precision, a.recall, a.f1, a.support) == (0.5, 0.5, 0.5, 2)
    # B: 2 hits of 3 predicted, 2 expected → P = 2/3, R = 1, F1 = 2·(2/3)·1 / (5/3) = 0.8
    b = report.per_class["B"]
    assert b.precision == pytest.approx(2 / 3) and b.recall == 1.0 and b.f1 == pytest.approx(0.8)
    # C: never predicted → 0
    assert report.per_class["C"].f1 == 0.0
    assert report.accuracy == pytest.approx(3 / 5)
    assert report.macro_f1 == pytest.approx((0.5 + 0.8 + 0.0) / 3)
    assert report.weighted_f1 == pytest.approx((0.5 * 2 + 0.8 * 2 + 0.0 * 1) / 5)
    assert report.min_class == "C" and report.min_class_f1 == 0.0
    # rows expected, columns predicted
    assert report.labels == ("A", "B", "C")
    assert report.confusion == ((1, 1, 0), (0, 2, 0), (1, 0, 0))


def test_label_order_and_a_class_that_is_only_predicted() -> None:
    ordered = classification_report(EXPECTED, PREDICTED, labels=("C", "B", "A", "Z"))
    assert ordered.labels == ("C", "B", "A")  # unseen labels are left out
    report = classification_report(["A", "A"], ["A", "B"])
    # A: P = 1, R = 1/2 → F1 = 2/3; B: no support, F1 = 0, still in macro (sklearn)
    assert report.macro_f1 == pytest.approx((2 / 3 + 0.0) / 2)
    # the worst class is judged among classes that were expected
    assert report.min_class == "A" and report.min_class_f1 == pytest.approx(2 / 3)


def test_empty_and_mismatched_inputs() -> None:
    empty = classification_report([], [])
    assert empty.accuracy is None and empty.macro_f1 is None and empty.min_class_f1 is None
    with pytest.raises(ValueError):
        classification_report(["A"], [])
    assert accuracy([], []) is None
    assert accuracy(["ANSWER", "REDIRECT", "HANDOFF"], ["ANSWER", "ANSWER", "HANDOFF"]) == (
        pytest.approx(2 / 3)
    )


def test_binary_and_abstain_scores() -> None:
    scores = binary_scores([True, True, False, False, False], [True, False, True, False, False])
    # tp 1, fn 1, fp 1, tn 2
    assert (scores.true_positives, scores.false_negatives) == (1, 1)
    assert (scores.false_positives, scores.true_negatives) == (1, 2)
    assert scores.precision == 0.5 and scores.recall == 0.5 and scores.f1 == 0.5
    nothing_flagged = abstain_scores([True, False], [False, False])
    assert nothing_flagged.precision is None and nothing_flagged.recall == 0.0
    nothing_to_find = abstain_scores([False, False], [True, False])
    assert nothing_to_find.recall is None and nothing_to_find.precision == 0.0


def test_set_recall_counts_expected_labels() -> None:
    # {a, b} finds a; {c} finds c; {} expects nothing → 2 of 3
    got = set_recall([{"a", "b"}, {"c"}, set()], [{"a"}, {"c", "d"}, {"x"}])
    assert got == pytest.approx(2 / 3)
    assert set_recall([set()], [{"x"}]) is None


def test_ranking_metrics() -> None:
    assert first_relevant_rank(["d3", "d1", "d7"], {"d7", "d1"}) == 2
    assert first_relevant_rank(["d3"], {"d1"}) is None
    ranks = [1, 3, None, 6]
    assert hit_at_k(ranks, 1) == 0.25
    assert hit_at_k(ranks, 5) == 0.5
    assert hit_at_k(ranks, 10) == 0.75
    # (1 + 1/3 + 0 + 1/6) / 4 = 0.375; with a cut-off of 5 the rank-6 hit counts 0
    assert mean_reciprocal_rank(ranks) == pytest.approx(0.375)
    assert mean_reciprocal_rank(ranks, 5) == pytest.approx((1 + 1 / 3) / 4)
    assert hit_at_k([], 5) is None
    with pytest.raises(ValueError):
        hit_at_k(ranks, 0)


def test_keyword_context_recall_worked_example() -> None:
    context = "Ошибка E20 связана с проблемой слива воды. Проверьте фильтр."
    # "ошибк" and "e20" are found (case-insensitive substrings), "warranty" is not
    assert keyword_recall(["ошибк", "E20", "warranty"], context) == pytest.approx(2 / 3)
    assert keyword_recall([], context) is None


def test_percentiles_and_latency_summary() -> None:
    values = [40.0, 10.0, 30.0, 20.0]
    assert percentile(values, 50) == 25.0
    # position 3 · 0.95 = 2.85 → 30 + 0.85 · 10
    assert percentile(values, 95) == pytest.approx(38.5)
    assert percentile([], 50) is None
    summary = latency_summary(values)
    assert (summary.p50_ms, summary.mean_ms, summary.max_ms, summary.count) == (25.0, 25.0, 40.0, 4)
    with pytest.raises(ValueError):
        percentile(values, 101)
