"""Trust report questions from a site's own pages (pure, no fixtures)."""

from __future__ import annotations

import pytest

from frontdesk.evals.trust_probes import off_topic_probes, unanswerable_probes
from frontdesk.evals.trust_questions import (
    SourcePassage,
    definition_question,
    generated_questions,
    heading_question,
)

pytestmark = pytest.mark.unit

BAKERY = [
    SourcePassage(
        "hours.md",
        "Opening hours",
        "# Opening hours\n\nThe shop opens at seven every weekday and closes at six in the "
        "evening. On Sundays we bake to order only, with collection between nine and noon.",
        "en",
    ),
    SourcePassage(
        "flour.md",
        "Our flour",
        "# Our flour\n\nOur rye flour is stone-milled by a family mill twenty miles north. "
        "Spelt loaves are baked on Thursdays and Saturdays from organic grain.",
        "en",
    ),
    SourcePassage(
        "pedidos.md",
        "Pedidos para eventos",
        "# Pedidos para eventos\n\nLos pedidos para bodas se confirman con dos semanas de "
        "antelación y un depósito del veinte por ciento del total.",
        "es",
    ),
]


def test_a_heading_becomes_a_question_in_the_pages_language() -> None:
    assert heading_question("Opening hours", "en") == "What can you tell me about opening hours?"
    assert heading_question("Pedidos para eventos", "es") == (
        "¿Qué me puede decir sobre pedidos para eventos?"
    )
    assert heading_question("Service Level Agreement", "en") == (
        "What can you tell me about Service Level Agreement?"
    )


def test_a_heading_that_is_a_question_is_asked_as_it_is_and_structural_ones_are_not() -> None:
    assert heading_question("What is (are) acromegaly ?", "en") == "What is (are) acromegaly?"
    assert heading_question("Overview", "en") is None
    assert heading_question("42", "en") is None


def test_a_definition_sentence_asks_what_its_subject_is() -> None:
    assert definition_question("Our refund policy is simple and quick.", "en") == (
        "What is your refund policy?"
    )
    assert definition_question("It is baked every day in our oven.", "en") is None
    assert definition_question("El pan de centeno es nuestra especialidad.", "es") == (
        "¿Qué es el pan de centeno?"
    )


def test_generated_questions_spread_over_pages_keep_their_source_and_are_stable() -> None:
    questions = generated_questions(BAKERY, 3)
    assert {q.doc_id for q in questions} == {"hours.md", "flour.md", "pedidos.md"}
    assert all(q.kind == "generated" and q.source for q in questions)
    spanish = [q for q in questions if q.doc_id == "pedidos.md"]
    assert spanish[0].language == "es" and spanish[0].text.startswith("¿")
    assert generated_questions(BAKERY, 3) == questions  # the same content, the same questions
    more = generated_questions(BAKERY, 20)
    assert {q.method for q in more} == {"heading", "sentence"}
    assert len({q.text.casefold() for q in more}) == len(more)


def test_unanswerable_probes_name_the_sites_terms_and_skip_anchors_the_site_mentions() -> None:
    text = "\n".join(p.title + p.content for p in BAKERY).casefold()
    probes = unanswerable_probes(BAKERY, ["en"], 6, text)
    assert len(probes) == 6 and all(p.kind == "unanswerable" for p in probes)
    assert any("flour" in p.text or "hours" in p.text for p in probes)
    with_reykjavik = text + " our second shop is in reykjavik"
    assert not any(
        "Reykjavik" in p.text for p in unanswerable_probes(BAKERY, ["en"], 8, with_reykjavik)
    )


def test_off_topic_probes_follow_the_sites_languages_and_drop_what_the_site_covers() -> None:
    probes = off_topic_probes(["es", "en"], 6, "")
    assert {p.language for p in probes} == {"es", "en"}
    sourdough_site = "we teach sourdough baking"
    texts = [p.text for p in off_topic_probes(["en"], 20, sourdough_site)]
    assert texts and not any("sourdough" in t for t in texts)
    assert off_topic_probes(["xx"], 2, "")[0].language == "en"  # unknown language: English


def test_a_heading_phrased_as_a_question_without_its_mark_gets_one() -> None:
    assert heading_question("How to cancel your subscription", "en") == (
        "How to cancel your subscription?"
    )
    assert heading_question("Hay Fever", "en") == "What can you tell me about Hay Fever?"
