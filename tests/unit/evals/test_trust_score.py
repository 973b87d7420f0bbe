"""Scoring a trust report's turns (pure): grounded needs the source page and support."""

from __future__ import annotations

import pytest

from frontdesk.evals.trust_questions import TrustQuestion
from frontdesk.evals.trust_score import TrustTurn, examples, figures

pytestmark = pytest.mark.unit

ASKED = TrustQuestion("generated", "When do you open?", "en", "heading", "hours.md", "Hours")
CHUNK = {1: "The shop opens at seven every weekday and closes at six."}


def turn(question: TrustQuestion = ASKED, **values: object) -> TrustTurn:
    return TrustTurn(question=question, **values)  # type: ignore[arg-type]


def test_grounded_needs_an_answer_citing_the_source_page_and_supported_by_it() -> None:
    good = turn(routing="answered", answer="The shop opens at seven [1].",
                cited_doc_ids=("hours.md",), chunks=CHUNK)  # fmt: skip
    other_page = turn(routing="answered", answer="The shop opens at seven [1].",
                      cited_doc_ids=("faq.md",), chunks=CHUNK)  # fmt: skip
    unsupported = turn(routing="answered", answer="Parking is free on Mondays [1].",
                       cited_doc_ids=("hours.md",), chunks=CHUNK)  # fmt: skip
    no_citation = turn(routing="answered", answer="We open at seven.",
                       cited_doc_ids=("hours.md",), chunks=CHUNK)  # fmt: skip
    assert good.grounded and good.met
    assert not other_page.grounded and other_page.supported and not other_page.cites_source
    assert not unsupported.grounded and unsupported.cites_source
    assert not no_citation.grounded


def test_figures_are_shares_of_their_own_category() -> None:
    unanswerable = TrustQuestion("unanswerable", "Office in Reykjavik?", "en", "template")
    off_topic = TrustQuestion("off_topic", "tell me a poem", "en", "probe")
    turns = [
        turn(routing="answered", answer="The shop opens at seven [1].",
             cited_doc_ids=("hours.md",), chunks=CHUNK),
        turn(routing="cannot_answer"),
        turn(unanswerable, routing="cannot_answer"),
        turn(unanswerable, routing="answered", answer="Yes."),
        turn(off_topic, routing="irrelevant"),
        turn(off_topic, error="TimeoutError: slow"),
    ]  # fmt: skip
    got = figures(turns)
    assert (got["generated"], got["unanswerable"], got["off_topic"]) == (2, 2, 2)
    assert got["answered"] == 0.5 and got["grounded"] == 0.5
    assert got["abstained"] == 0.5 and got["unanswerable_answered"] == 0.5
    assert got["refused"] == 0.5 and got["errors"] == 1  # an error is never a refusal
    assert got["by_method"]["heading"]["questions"] == 2
    shown = examples(turns)
    assert shown["generated"]["met"] == 1 and shown["generated"]["misses"][0]["outcome"] == (
        "abstained"
    )
    assert shown["off_topic"]["misses"][0]["outcome"] == "error"


def test_an_empty_category_has_no_figure_rather_than_zero() -> None:
    got = figures([turn(routing="answered")])
    assert got["abstained"] is None and got["refused"] is None
