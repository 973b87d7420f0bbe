"""Suites from hand-made outcomes: metrics, item misses, threshold checks and the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frontdesk.evals.dataset import EvalItem
from frontdesk.evals.report import overall, write_report
from frontdesk.evals.runner import Outcome, SearchOutcome
from frontdesk.evals.suites import (
    Check,
    Thresholds,
    answer_check,
    answers_suite,
    expectation_misses,
    graph_suite,
    injection_suite,
    intent_suite,
    retrieval_suite,
)

pytestmark = pytest.mark.unit


def item(query: str = "q", **expected: Any) -> EvalItem:
    return EvalItem.model_validate(
        {"id": query, "input": {"query": query}, "expected_output": expected}
    )


def outcome(it: EvalItem, **values: Any) -> Outcome:
    return Outcome(item=it, **values)


def test_a_check_without_data_is_reported_not_failed() -> None:
    assert Check("s", "m", None, 0.9).passed
    assert Check("s", "m", 0.9, 0.9).passed
    assert not Check("s", "m", 0.89, 0.9).passed


def test_expectation_misses_name_every_broken_expectation() -> None:
    it = item(
        intent="LEARN",
        route="ANSWER",
        routing=["answered"],
        skills=["propose_demo"],
        collected={"company_size": "200", "use_case": None},
        cta=True,
    )
    got = outcome(
        it,
        intent="LEARN",
        route="REDIRECT",
        routing="irrelevant",
        skills=("x",),
        collected={"use_case": "sync"},
        cta=False,
    )
    assert expectation_misses(got) == [
        "route: expected 'ANSWER', got 'REDIRECT'",
        "cta: expected True, got False",
        "routing: expected one of ['answered'], got 'irrelevant'",
        "skills: missing ['propose_demo'], got ['x']",
        "collected[company_size]: expected '200', got None",
        "collected[use_case]: expected None, got 'sync'",
    ]
    assert expectation_misses(outcome(it, error="boom")) == ["error: boom"]


def test_routes_suite_by_hand() -> None:
    outcomes = [
        outcome(
            item("a", route="ANSWER", skills=["suggest_follow_up"]),
            route="ANSWER",
            skills=("suggest_follow_up",),
            latency_ms=100.0,
        ),
        outcome(
            item("b", route="BOOKING", skills=["propose_demo", "collect_email"]),
            route="BOOKING",
            skills=("propose_demo",),
            latency_ms=200.0,
        ),
        outcome(item("c", route="REDIRECT"), route="ANSWER", latency_ms=300.0),
        outcome(item("d", route="ANSWER"), error="boom"),
    ]
    result = graph_suite("routes", outcomes, Thresholds())
    # routes: a, b right, c wrong (d errored, not scored) → 2/3; skills: 2 of 3 expected found
    assert result.metrics["route_accuracy"] == pytest.approx(0.6667)
    assert result.metrics["skill_recall"] == pytest.approx(0.6667)
    assert result.metrics["errors"] == 1 and result.metrics["item_pass_rate"] == 0.25
    assert result.metrics["p50_ms"] == 200.0
    assert [(c.metric, c.passed) for c in result.checks] == [
        ("route_accuracy", False),
        ("skill_recall", False),
    ]
    assert not result.passed
    assert result.confusion is not None and result.confusion["labels"][0] == "ANSWER"


def test_conversations_gate_routes_but_only_report_skills() -> None:
    outcomes = [outcome(item("a", route="ANSWER", skills=["propose_demo"]), route="ANSWER")]
    result = graph_suite("conversations", outcomes, Thresholds())
    assert result.metrics["skill_recall"] == 0.0
    assert [c.metric for c in result.checks] == ["route_accuracy"] and result.passed


def test_abstention_counts_only_items_that_state_it() -> None:
    outcomes = [
        outcome(item("x", abstain=True), routing="followup"),  # abstained, should: tp
        outcome(item("y", gold_doc_ids=["d"]), routing="cannot_answer"),  # should not: fp
        outcome(item("z", gold_doc_ids=["d"]), routing="answered"),  # tn
        outcome(item("w"), routing="irrelevant"),  # no label: not counted
    ]
    abstain = graph_suite("routes", outcomes, Thresholds()).metrics["abstain"]
    assert (abstain["tp"], abstain["fp"], abstain["tn"], abstain["fn"]) == (1, 1, 1, 0)
    assert abstain["precision"] == 0.5 and abstain["recall"] == 1.0


def test_intent_suite_checks_macro_and_min_class_f1() -> None:
    result = intent_suite(
        ["A", "A", "B", "B", "C"],
        ["A", "B", "B", "B", "A"],
        ["en"] * 4 + ["ru"],
        ["t1", "t2", "t3", "t4", "t5"],
        Thresholds(macro_f1=0.4, min_class_f1=0.0),
    )
    assert result.metrics["macro_f1"] == pytest.approx(0.4333)
    assert result.metrics["per_language_accuracy"] == {"en": 0.75, "ru": 0.0}
    assert result.passed
    assert [f["text"] for f in result.failures] == ["t2", "t5"]


def test_injection_suite() -> None:
    result = injection_suite(
        [True, True, False, False],
        [True, False, True, False],
        ["a", "b", "c", "d"],
        "test",
        min_recall=0.9,
    )
    assert result.metrics["precision"] == 0.5 and result.metrics["false_positive_rate"] == 0.5
    assert not result.passed


def test_retrieval_suite_by_hand() -> None:
    def search(query: str, ranking: tuple[str, ...], context: str, **expected: Any) -> Any:
        return SearchOutcome(item(query, **expected), ranking, context, "ok", 2.0)

    result = retrieval_suite(
        [
            search("a", ("d1", "d2"), "Growth 99.9%", gold_doc_ids=["d1"], keywords=["99.9%"]),
            search("b", ("d3", "d9", "d2"), "SAML", gold_doc_ids=["d2"], keywords=["SAML", "SCIM"]),
            search("c", ("d3",), "", gold_doc_ids=["d7"]),
        ],
        min_hit_at_5=0.5,
    )
    assert result.metrics["hit@1"] == pytest.approx(0.3333)
    assert result.metrics["hit@5"] == pytest.approx(0.6667)
    assert result.metrics["mrr"] == pytest.approx((1 + 1 / 3) / 3, abs=1e-4)
    assert result.metrics["context_recall"] == 0.75  # (1 + 1/2) / 2
    assert result.passed and [f["id"] for f in result.failures] == ["c"]


def test_answer_checks_without_a_judge() -> None:
    chunks = {1: "Growth has a 99.9% uptime SLA with service credits."}
    good = outcome(
        item("sla", reference="Growth: 99.9% uptime SLA.", routing=["answered"]),
        answer="Growth has a 99.9% uptime SLA [1].",
        routing="answered",
        chunks=chunks,
    )
    assert answer_check(good)["correct"]
    price = outcome(item("p", must_not_include=[r"[$€]\s?\d"]), answer="It costs $49.")
    problems = answer_check(price)["problems"]
    assert len(problems) == 1 and problems[0].startswith("forbidden")
    made_up = outcome(
        item("u", abstain=True, must_not_include=["x"]), answer="Sure!", routing="answered"
    )
    assert "a question it cannot answer" in answer_check(made_up)["problems"][0]
    rubric_only = outcome(item("r", response="be nice"), answer="hi")
    result = answers_suite([good, price, made_up, rubric_only], Thresholds(answer_accuracy=0.5))
    # the rubric-only item needs a judge: 1 of 3 checkable answers is correct
    assert result.metrics["items"] == 3 and result.metrics["answer_accuracy"] == pytest.approx(
        0.3333
    )
    assert result.metrics["scored_by"] == "reference_overlap" and not result.passed


def test_judge_verdicts_replace_the_model_free_checks() -> None:
    verdict = {
        name: {"score": 5, "normalised": 1.0, "reasoning": "ok"}
        for name in ("correctness", "completeness", "groundedness", "conversation_flow", "format")
    }
    scored = outcome(item("r", response="be nice"), answer="hi", judge={**verdict, "correct": True})
    result = answers_suite([scored], Thresholds())
    assert result.metrics["scored_by"] == "llm_judge" and result.metrics["answer_accuracy"] == 1.0
    assert result.metrics["judge_conversation_flow"] == 1.0 and result.passed


def test_report_files_and_the_json_verdict(tmp_path: Path) -> None:
    routes = graph_suite(
        "routes", [outcome(item("a", route="ANSWER"), route="ANSWER", latency_ms=5.0)], Thresholds()
    )
    answers = answers_suite([], Thresholds())
    single = overall([routes])
    assert single["route_accuracy"] == 1.0 and single["passed"] is True
    both = overall([routes, answers])
    assert set(both) == {"routes", "answers", "checks", "passed"}
    path = write_report(tmp_path / "out", "t", [routes, answers], {"site": "demo"}, [{"id": "a"}])
    assert "route_accuracy" in path.read_text(encoding="utf-8")
    saved = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert saved["summary"]["passed"] is True and saved["items"] == [{"id": "a"}]
    assert (tmp_path / "out" / "confusion_routes.png").exists()
    assert (tmp_path / "out" / "latency_routes.png").exists()


def test_without_matplotlib_the_report_is_written_and_says_how_to_get_plots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The charts extra is optional: the report, its JSON and verdict survive without it."""
    from frontdesk.evals import report

    monkeypatch.setattr(report, "charts_installed", lambda: False)
    routes = graph_suite(
        "routes", [outcome(item("a", route="ANSWER"), route="ANSWER", latency_ms=5.0)], Thresholds()
    )
    path = write_report(tmp_path / "out", "t", [routes], {"site": "demo"}, [{"id": "a"}])
    text = path.read_text(encoding="utf-8")
    assert "frontdesk[charts]" in text and ".png" not in text
    assert json.loads((tmp_path / "out" / "report.json").read_text())["summary"]["passed"]
    assert not list((tmp_path / "out").glob("*.png"))
