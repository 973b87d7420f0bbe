"""From outcomes to suite results: the metrics of each `frontdesk eval` command, and the
threshold checks that decide its exit code (pure: outcomes in, numbers out)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from frontdesk.conversation.vocabulary import ROUTES
from frontdesk.evals import metrics as m
from frontdesk.evals.runner import Outcome, SearchOutcome
from frontdesk.evals.text_scores import (
    forbidden_matches,
    groundedness,
    missing_phrases,
    reference_overlap,
)

REFERENCE_RECALL = 0.5  # half of the reference answer's content words must be there
MIN_GROUNDED = 0.5  # at least half of the sentences supported by what they cite
HIT_KS = (1, 3, 5, 10)


@dataclass(frozen=True)
class Thresholds:
    """Quality thresholds, plus route accuracy (Frontdesk's routing is deterministic,
    so a regression there is a bug). Every value can be changed on the command line."""

    macro_f1: float = 0.80
    min_class_f1: float = 0.60
    skill_recall: float = 0.90
    answer_accuracy: float = 0.70
    route_accuracy: float = 0.80


@dataclass(frozen=True)
class Check:
    suite: str
    metric: str
    value: float | None
    threshold: float

    @property
    def passed(self) -> bool:
        """A metric without items to measure (None) is reported, not failed."""
        return self.value is None or self.value >= self.threshold

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "metric": self.metric,
            "value": m.rounded(self.value),
            "threshold": self.threshold,
            "passed": self.passed,
        }


@dataclass
class SuiteResult:
    name: str
    metrics: dict[str, Any]
    checks: list[Check] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)  # item-level misses
    confusion: dict[str, Any] | None = None  # {"title", "labels", "matrix"}
    scores: dict[str, list[float]] = field(default_factory=dict)  # for histograms
    latencies_ms: list[float] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {**self.metrics, "checks": [c.as_dict() for c in self.checks], "passed": self.passed}


def _check(suite: str, metric: str, value: float | None, threshold: float | None) -> list[Check]:
    return [] if threshold is None else [Check(suite, metric, value, threshold)]


# --- intent ---------------------------------------------------------------------------


def intent_suite(
    expected: Sequence[str],
    predicted: Sequence[str],
    languages: Sequence[str],
    texts: Sequence[str],
    thresholds: Thresholds,
    labels: Sequence[str] = (),
    source: str = "",
) -> SuiteResult:
    report = m.classification_report(expected, predicted, labels)
    by_language: dict[str, float | None] = {}
    for language in sorted(set(languages)):
        pairs = [
            (e, p) for e, p, g in zip(expected, predicted, languages, strict=True) if g == language
        ]
        by_language[language] = m.rounded(m.accuracy([e for e, _ in pairs], [p for _, p in pairs]))
    summary = report.as_dict()
    confusion = summary.pop("confusion")
    metrics = {**summary, "per_language_accuracy": by_language, "source": source}
    misses = [
        {"text": t, "expected": e, "predicted": p, "language": g}
        for t, e, p, g in zip(texts, expected, predicted, languages, strict=True)
        if e != p
    ]
    return SuiteResult(
        name="intent",
        metrics=metrics,
        checks=[
            *_check("intent", "macro_f1", report.macro_f1, thresholds.macro_f1),
            *_check("intent", "min_class_f1", report.min_class_f1, thresholds.min_class_f1),
        ],
        failures=misses,
        confusion={"title": "Intent (held-out)", **confusion},
    )


# --- routes and conversations (graph outcomes) -----------------------------------------


def _routing_ok(outcome: Outcome) -> bool | None:
    allowed = outcome.item.expected_output.routing
    return None if not allowed else outcome.routing in allowed


def expectation_misses(outcome: Outcome) -> list[str]:
    """Every stated expectation of the item that the outcome does not meet."""
    e = outcome.item.expected_output
    if outcome.error:
        return [f"error: {outcome.error}"]
    misses: list[str] = []
    for name, want, got in (
        ("intent", e.intent, outcome.intent),
        ("route", e.route, outcome.route),
        ("route_reason", e.route_reason, outcome.route_reason),
        ("language", e.language, outcome.language),
        ("high_stakes", e.high_stakes, outcome.high_stakes),
        ("handoff", e.handoff, outcome.handoff),
        ("cta", e.cta, outcome.cta),
    ):
        if want is not None and want != got:
            misses.append(f"{name}: expected {want!r}, got {got!r}")
    if _routing_ok(outcome) is False:
        misses.append(f"routing: expected one of {e.routing}, got {outcome.routing!r}")
    missing = sorted(set(e.skills or ()) - set(outcome.skills))
    if missing:
        misses.append(f"skills: missing {missing}, got {list(outcome.skills)}")
    for key, value in (e.collected or {}).items():
        got = outcome.collected.get(key)
        wrong = got is not None if value is None else value.casefold() not in (got or "").casefold()
        if wrong:
            misses.append(f"collected[{key}]: expected {value!r}, got {got!r}")
    return misses


def graph_suite(
    name: str, outcomes: Sequence[Outcome], thresholds: Thresholds, labels: Sequence[str] = ()
) -> SuiteResult:
    """Routes (single-turn items) or conversations (multi-turn items) through the graph."""
    ran = [o for o in outcomes if not o.error]
    routed = [o for o in ran if o.item.expected_output.route]
    routings = [ok for o in ran if (ok := _routing_ok(o)) is not None]
    with_intent = [o for o in ran if o.item.expected_output.intent]
    with_skills = [o for o in ran if o.item.expected_output.skills]
    stakes = [o for o in ran if o.item.expected_output.high_stakes is not None]
    abstain = [o for o in ran if o.item.should_abstain is not None]
    languages = [o for o in ran if o.item.expected_output.language]
    intents = m.classification_report(
        [o.item.expected_output.intent or "" for o in with_intent],
        [o.intent or "" for o in with_intent],
        labels,
    )
    route_accuracy = m.accuracy(
        [o.item.expected_output.route for o in routed], [o.route for o in routed]
    )
    skill_recall = m.set_recall(
        [o.item.expected_output.skills or () for o in with_skills], [o.skills for o in with_skills]
    )
    passed = [not expectation_misses(o) for o in outcomes]
    latency = m.latency_summary(o.latency_ms for o in ran)
    metrics: dict[str, Any] = {
        "items": len(outcomes),
        "errors": len(outcomes) - len(ran),
        "item_pass_rate": m.rounded(m.ratio(sum(passed), len(passed))),
        "route_accuracy": m.rounded(route_accuracy),
        "routing_accuracy": m.rounded(m.ratio(sum(routings), len(routings))),
        "intent_accuracy": m.rounded(intents.accuracy),
        "intent_macro_f1": m.rounded(intents.macro_f1),
        "skill_recall": m.rounded(skill_recall),
        "language_accuracy": m.rounded(
            m.accuracy(
                [o.item.expected_output.language for o in languages],
                [o.language for o in languages],
            )
        ),
        "high_stakes": m.binary_scores(
            [bool(o.item.expected_output.high_stakes) for o in stakes],
            [o.high_stakes for o in stakes],
        ).as_dict(),
        "abstain": m.abstain_scores(
            [bool(o.item.should_abstain) for o in abstain], [o.abstained for o in abstain]
        ).as_dict(),
        **latency.as_dict(),
    }
    if name == "conversations":
        followups = [o for o in ran if o.item.expected_output.gold_doc_ids]
        ranks = [
            m.first_relevant_rank(o.retrieved, o.item.expected_output.gold_doc_ids)
            for o in followups
        ]
        metrics["followup_hit@5"] = m.rounded(m.hit_at_k(ranks, 5))
    route_labels = ROUTES
    confusion = m.classification_report(
        [o.item.expected_output.route or "" for o in routed],
        [o.route or "" for o in routed],
        route_labels,
    ).as_dict()["confusion"]
    return SuiteResult(
        name=name,
        metrics=metrics,
        checks=[
            *_check(name, "route_accuracy", route_accuracy, thresholds.route_accuracy),
            # Skill recall is gated on the skill-selector set: the single-turn items.
            # Multi-turn items are the end-to-end set, gated by answer accuracy instead.
            *_check(
                name,
                "skill_recall",
                skill_recall,
                thresholds.skill_recall if name == "routes" else None,
            ),
        ],
        failures=[
            {"id": o.item.id, "query": o.item.query, "misses": misses}
            for o in outcomes
            if (misses := expectation_misses(o))
        ],
        confusion={"title": f"Route ({name})", **confusion},
        latencies_ms=list(latency.values),
    )


def injection_suite(
    expected: Sequence[bool],
    detected: Sequence[bool],
    texts: Sequence[str],
    source: str,
    min_recall: float | None = None,
) -> SuiteResult:
    scores = m.binary_scores(expected, detected)
    benign = [d for e, d in zip(expected, detected, strict=True) if not e]
    metrics = {
        **scores.as_dict(),
        "false_positive_rate": m.rounded(m.ratio(sum(benign), len(benign))),
        "items": len(expected),
        "source": source,
    }
    return SuiteResult(
        name="injection",
        metrics=metrics,
        checks=_check("injection", "recall", scores.recall, min_recall),
        failures=[
            {"text": t[:200], "expected": e, "detected": d}
            for t, e, d in zip(texts, expected, detected, strict=True)
            if e != d
        ],
    )


# --- retrieval --------------------------------------------------------------------------


def retrieval_suite(
    searches: Sequence[SearchOutcome], min_hit_at_5: float | None = None
) -> SuiteResult:
    gold = [s for s in searches if s.item.expected_output.gold_doc_ids]
    ranks = [m.first_relevant_rank(s.ranking, s.item.expected_output.gold_doc_ids) for s in gold]
    keyworded = [s for s in searches if s.item.expected_output.keywords]
    recalls = [
        m.keyword_recall(s.item.expected_output.keywords, s.context) or 0.0 for s in keyworded
    ]
    abstain = [s for s in searches if s.item.should_abstain is not None]
    latency = m.latency_summary(s.latency_ms for s in searches)
    hit5 = m.hit_at_k(ranks, 5) if ranks else None
    metrics: dict[str, Any] = {
        **{f"hit@{k}": m.rounded(m.hit_at_k(ranks, k) if ranks else None) for k in HIT_KS},
        "mrr": m.rounded(m.mean_reciprocal_rank(ranks, 10)),
        "context_recall": m.rounded(m.mean(recalls)),
        "queries": len(searches),
        "with_gold": len(gold),
        "abstain": m.abstain_scores(
            [bool(s.item.should_abstain) for s in abstain], [s.status != "ok" for s in abstain]
        ).as_dict(),
        **latency.as_dict(),
    }
    return SuiteResult(
        name="retrieval",
        metrics=metrics,
        checks=_check("retrieval", "hit@5", hit5, min_hit_at_5),
        failures=[
            {
                "id": s.item.id,
                "query": s.item.query,
                "gold": s.item.expected_output.gold_doc_ids,
                "ranking": list(s.ranking[:5]),
                "rank": r,
            }
            for s, r in zip(gold, ranks, strict=True)
            if r is None or r > 5
        ],
        scores={"context recall": recalls},
        latencies_ms=list(latency.values),
    )


# --- answers ----------------------------------------------------------------------------


def answer_check(outcome: Outcome) -> dict[str, Any]:
    """Model-free scores of one answer and whether it counts as correct."""
    e = outcome.item.expected_output
    overlap = reference_overlap(outcome.answer, e.reference) if e.reference else None
    grounded = groundedness(outcome.answer, outcome.chunks)
    problems = [f"missing {p!r}" for p in missing_phrases(outcome.answer, e.must_include)]
    problems += [f"forbidden {p!r}" for p in forbidden_matches(outcome.answer, e.must_not_include)]
    if _routing_ok(outcome) is False:
        problems.append(f"routing {outcome.routing!r} not in {e.routing}")
    if outcome.item.should_abstain and not outcome.abstained:
        problems.append(f"answered ({outcome.routing}) a question it cannot answer")
    if overlap is not None and (overlap.recall or 0.0) < REFERENCE_RECALL:
        problems.append(f"reference recall {overlap.recall or 0.0:.2f} < {REFERENCE_RECALL}")
    if grounded.score is not None and grounded.score < MIN_GROUNDED:
        problems.append(f"groundedness {grounded.score:.2f} < {MIN_GROUNDED}")
    if outcome.error:
        problems = [f"error: {outcome.error}"]
    return {
        "reference": overlap.as_dict() if overlap else None,
        "groundedness": m.rounded(grounded.score),
        "citation_coverage": m.rounded(grounded.citation_coverage),
        "ungrounded": grounded.ungrounded,
        "problems": problems,
        "correct": not problems,
    }


def answers_suite(outcomes: Sequence[Outcome], thresholds: Thresholds) -> SuiteResult:
    """Answer accuracy: the judge's verdicts when a judge ran; otherwise the model-free
    checks of the items that have something checkable (a rubric alone needs the judge)."""
    judged = [o.judge for o in outcomes if o.judge and "error" not in o.judge]
    scored = [
        o
        for o in outcomes
        if (o.item.has_answer_expectation if judged else o.item.checkable_answer)
    ]
    checks = [answer_check(o) for o in scored]
    correct = (
        [bool(j["correct"]) for j in judged] if judged else [bool(c["correct"]) for c in checks]
    )
    accuracy = m.ratio(sum(correct), len(correct))
    recalls = [c["reference"]["recall"] for c in checks if c["reference"]]
    grounded = [c["groundedness"] for c in checks if c["groundedness"] is not None]
    coverage = [c["citation_coverage"] for c in checks if c["citation_coverage"] is not None]
    metrics: dict[str, Any] = {
        "answer_accuracy": m.rounded(accuracy),
        "scored_by": "llm_judge" if judged else "reference_overlap",
        "items": len(scored),
        "reference_recall": m.rounded(m.mean(recalls)),
        "groundedness": m.rounded(m.mean(grounded)),
        "citation_coverage": m.rounded(m.mean(coverage)),
    }
    scores: dict[str, list[float]] = {"reference recall": recalls, "groundedness": grounded}
    if judged:
        from frontdesk.evals.judge import CRITERIA

        for criterion in CRITERIA:
            values = [float(j[criterion]["normalised"]) for j in judged]
            metrics[f"judge_{criterion}"] = m.rounded(m.mean(values))
            scores[f"judge {criterion}"] = values
    return SuiteResult(
        name="answers",
        metrics=metrics,
        checks=_check("answers", "answer_accuracy", accuracy, thresholds.answer_accuracy),
        failures=[
            {"id": o.item.id, "query": o.item.query, "answer": o.answer[:400], **c}
            for o, c in zip(scored, checks, strict=True)
            if not c["correct"]
        ],
        scores=scores,
    )
