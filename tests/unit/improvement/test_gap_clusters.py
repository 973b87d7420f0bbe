"""Content gaps as pure values: why a turn is a gap, the trend, and clusters built from
given vectors (the real model's clustering is tested in tests/integration/improvement)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from frontdesk.improvement.clusters import (
    GapQuestion,
    Passage,
    cluster_labels,
    distinct_questions,
    gap_clusters,
    gap_reasons,
    normalise_question,
    purity,
    trend_of,
)

pytestmark = pytest.mark.unit
AT = datetime(2026, 11, 20, tzinfo=UTC)


@pytest.mark.parametrize(
    ("route", "routing", "intent", "kwargs", "expected"),
    [
        ("ANSWER", "answered", "LEARN", {}, set()),
        ("ANSWER", "cannot_answer", "LEARN", {}, {"cannot_answer"}),
        ("ANSWER", "followup", "SUPPORT", {}, {"followup"}),
        ("ANSWER", "low_confidence", "LEARN", {}, {"low_confidence"}),
        ("REDIRECT", "irrelevant", "OFFTOPIC", {}, {"refused"}),  # off-topic refusal
        ("REDIRECT", "irrelevant", "offtopic", {}, {"refused"}),
        ("REDIRECT", "irrelevant", "OTHER", {}, set()),  # a greeting asks nothing
        ("REDIRECT", "nonsense", "OFFTOPIC", {}, {"refused"}),
        ("REDIRECT", "out_of_scope", "HACK", {}, set()),  # an injection attempt
        ("BLOCKED", "out_of_scope", "HACK", {"voted_down": True}, set()),  # attacks
        ("ANSWER", "answered", "LEARN", {"voted_down": True}, {"thumbs_down"}),
        ("ANSWER", "answered", "LEARN", {"handed_off_next": True}, {"handed_off"}),
        ("HANDOFF", "out_of_scope", "CONTEXT", {}, set()),  # the request for a person
        (
            "ANSWER",
            "low_confidence",
            "LEARN",
            {"voted_down": True},
            {"low_confidence", "thumbs_down"},
        ),
    ],
)
def test_gap_reasons(
    route: str, routing: str, intent: str, kwargs: dict[str, bool], expected: set[str]
) -> None:
    assert gap_reasons(route, routing, intent, **kwargs) == expected


def test_trend() -> None:
    assert trend_of(3, 0) == "new"
    assert trend_of(10, 5) == "up"
    assert trend_of(2, 5) == "down"
    assert trend_of(5, 5) == "same"


def test_normalise_question() -> None:
    assert normalise_question("  ¿Hacen  envíos?? ") == "hacen envíos"
    assert normalise_question("Shipping?!") == "shipping"


def question(text: str, language: str = "en", current: bool = True, **kw: object) -> GapQuestion:
    return GapQuestion(
        text=text,
        language=language,
        reasons=frozenset(kw.pop("reasons", {"cannot_answer"})),  # type: ignore[arg-type]
        at=AT,
        session_id=f"s-{text}",
        turn=1,
        current=current,
        **kw,  # type: ignore[arg-type]
    )


def test_clusters_group_by_vector_count_languages_trend_and_passages() -> None:
    asked = [
        question("Do you ship abroad?"),
        question("do you ship abroad"),  # the same question: embedded once, counted twice
        question("¿Hacen envíos al extranjero?", "es", reasons={"refused"}),
        question(
            "International shipping?",
            current=False,
            passages=(Passage("d", "d#0", "Delivery", 0.7),),
        ),
        question(
            "Can I pay by invoice?",
            reasons={"thumbs_down"},
            comment="It said nothing about invoices",
            passages=(Passage("p", "p#1", "Payments", 0.81), Passage("p", "p#2", "Fees", 0.6)),
        ),
        question("Old topic nobody asks now", current=False),
    ]
    distinct = distinct_questions(asked)
    assert len(distinct) == 5
    # Hand-made unit vectors: shipping questions together, the others apart.
    rows = {
        "do you ship abroad": [1.0, 0.0, 0.0],
        "hacen envíos al extranjero": [0.99, 0.14, 0.0],
        "international shipping": [0.98, 0.0, 0.2],
        "can i pay by invoice": [0.0, 1.0, 0.0],
        "old topic nobody asks now": [0.0, 0.0, 1.0],
    }
    vectors = np.array([rows[normalise_question(t)] for t in distinct], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    shipping, invoice = gap_clusters(asked, distinct, vectors, distance=0.1, label_language="es")
    # Three different texts asked once each: the label is the site's language's.
    assert shipping.label == "¿Hacen envíos al extranjero?"
    assert shipping.size == 3 and shipping.previous == 1 and shipping.trend == "up"
    assert shipping.examples == {
        "en": ["Do you ship abroad?", "do you ship abroad"],
        "es": ["¿Hacen envíos al extranjero?"],
    }
    assert shipping.reasons == {"cannot_answer": 2, "refused": 1}
    assert shipping.passages == []  # the only passage was found in the previous period
    assert invoice.size == 1 and invoice.trend == "new"
    assert invoice.reasons == {"thumbs_down": 1}
    assert invoice.comments == ["It said nothing about invoices"]
    assert [p.score for p in invoice.passages] == [0.81, 0.6]
    # A cluster with questions only in the previous period is not a gap now.
    assert all(c.label != "Old topic nobody asks now" for c in (shipping, invoice))


def test_cluster_labels_and_purity_edges() -> None:
    assert cluster_labels(np.zeros((0, 3), dtype=np.float32), 0.1) == []
    assert cluster_labels(np.ones((1, 3), dtype=np.float32), 0.1) == [0]
    assert purity([0, 0, 1, 1], ["a", "a", "a", "b"]) == 0.75
