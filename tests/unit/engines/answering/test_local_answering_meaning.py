"""The local writer reading by meaning: sentences that say what the visitor asks in other
words, admitted only where the words find nothing and only above the site's own bar."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from local_answering_kb import passage

from frontdesk.engines.base import AnswerRequest, SiteMeaning
from frontdesk.engines.local.answering import LocalAnswerWriter
from frontdesk.engines.local.answering.meaning import (
    LEAD_UNITS,
    MAX_CANDIDATES,
    blend,
    choose_candidates,
    embedded_text,
    under_its_question,
)
from frontdesk.engines.local.answering.phrases import NOT_FOUND, WEAK_LEAD_IN, phrase
from frontdesk.engines.local.answering.quoting import MIN_MATCH, Pick
from frontdesk.engines.local.answering.units import Unit
from frontdesk.text.embedding import Matrix

pytestmark = pytest.mark.unit


def pick(index: int, position: int, score: float, lexical: float = 0.0, own: bool = False) -> Pick:
    unit = Unit(text=f"unit {index}.{position}", kind="sentence", position=position)
    return Pick(index, unit, score, lexical, own)


def test_candidates_are_the_lexically_best_then_every_passages_first_units() -> None:
    picks = [pick(i, p, score=0.1 * p + 0.01 * i) for i in range(3) for p in range(5)]
    chosen = choose_candidates(picks, lexical=2)
    keys = [(c.index, c.unit.position) for c in chosen]
    assert keys[:2] == [(2, 4), (1, 4)]  # the best two by score
    leads = [(i, p) for i in range(3) for p in range(LEAD_UNITS)]
    assert keys[2:] == leads  # then the openings, in passage order, no repeats
    assert len(set(keys)) == len(keys)


def test_candidates_are_capped() -> None:
    picks = [pick(i, p, score=0.0) for i in range(40) for p in range(3)]
    assert len(choose_candidates(picks)) == MAX_CANDIDATES


def test_a_passages_opening_is_read_under_its_title_and_headings() -> None:
    headings = ["How many TVs can I connect?", "Payments > Refunds"]
    assert embedded_text(pick(0, 0, 0.0), headings) == "How many TVs can I connect?\nunit 0.0"
    assert embedded_text(pick(1, LEAD_UNITS - 1, 0.0), headings).startswith("Payments > Refunds")
    later = pick(0, LEAD_UNITS, 0.0)
    assert embedded_text(later, headings) == later.unit.text  # the rest is read alone
    assert embedded_text(pick(0, 0, 0.0), []) == "unit 0.0"


def test_an_faq_answer_is_quoted_under_its_question() -> None:
    faq = passage(7, ("Can I stream at 60 FPS?",), "Yes, you can.")
    opening = pick(0, 0, 0.5)
    quoted = under_its_question(opening, faq)
    assert quoted.unit.text == "Can I stream at 60 FPS? unit 0.0"
    assert under_its_question(pick(0, 1, 0.5), faq).unit.text == "unit 0.1"  # not the opening
    titled = passage(8, ("Streaming settings",), "Yes, you can.")
    assert under_its_question(opening, titled) == opening  # a title that asks nothing


def test_a_unit_at_the_bar_of_the_best_passage_counts_as_a_match_of_the_question() -> None:
    at_bar, below, other_passage = pick(0, 0, 0.1), pick(0, 1, 0.1), pick(1, 0, 0.1)
    blended = blend([at_bar, below, other_passage], [0.86, 0.85, 0.90], bar=0.86)
    assert blended[0].own and blended[0].lexical == MIN_MATCH
    # Under the bar: no match, no credit.
    assert not blended[1].own and blended[1].lexical == 0.0 and blended[1].score == 0.1
    # Another passage than the search's best: ranked higher, but never a match alone.
    assert not blended[2].own and blended[2].score > blended[0].score


def test_a_unit_far_above_the_bar_ranks_above_one_just_above_it() -> None:
    just, far = pick(0, 0, 0.3, 0.3, True), pick(0, 1, 0.2, 0.2, True)
    blended = blend([just, far], [0.861, 0.89], bar=0.86)
    assert blended[1].score > blended[0].score
    assert blended[0].lexical == 0.3  # lexical evidence is kept, never lowered


class KeywordEmbedder:
    """A stand-in embedder: texts that share a concept (by keyword) point the same way."""

    name = "test:concepts"
    CONCEPTS = (
        ("parking", "aparcamiento", "car park"),
        ("price", "cost", "euros"),
        ("voucher", "gift"),
    )

    def _vector(self, text: str) -> Matrix:
        lowered = text.casefold()
        hits = [1.0 if any(w in lowered for w in group) else 0.0 for group in self.CONCEPTS]
        vector = np.asarray([*hits, 0.5], dtype=np.float32)
        return vector / np.linalg.norm(vector)

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        return np.vstack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Matrix:
        return self._vector(text)


LOCATION = passage(
    1,
    ("Hours and location",),
    "We are at Calle Mayor 5, next to the market. We have no aparcamiento of our own; "
    "the one on Plaza Sol costs two euros an hour. We open at nine.",
    0.84,
)


def meaning_request(question: str, bar: float) -> AnswerRequest:
    return AnswerRequest(
        question=question,
        search_query=question,
        language="en",
        chunks=(LOCATION,),
        meaning=SiteMeaning(KeywordEmbedder(), bar),
    )


async def test_a_synonym_the_words_miss_is_quoted_under_the_hedged_lead_in() -> None:
    plain = AnswerRequest("Is there parking nearby?", "Is there parking nearby?", "en", (LOCATION,))
    assert await LocalAnswerWriter().compose(plain) == phrase(NOT_FOUND, "en")  # words only
    answer = await LocalAnswerWriter().compose(meaning_request("Is there parking nearby?", 0.7))
    assert answer.startswith(phrase(WEAK_LEAD_IN, "en")), answer
    assert "Plaza Sol" in answer and "[1]" in answer, answer
    assert "We open at nine" not in answer, answer


async def test_below_the_sites_bar_the_writer_still_says_it_did_not_find_it() -> None:
    answer = await LocalAnswerWriter().compose(meaning_request("Is there parking nearby?", 0.8))
    assert answer == phrase(NOT_FOUND, "en")


async def test_an_unrelated_question_is_not_answered_by_meaning() -> None:
    # Its cosine with every sentence (0.45-0.6 here) stays under the bar.
    answer = await LocalAnswerWriter().compose(meaning_request("Do you sell gift vouchers?", 0.7))
    assert answer == phrase(NOT_FOUND, "en")


async def test_what_the_words_find_is_not_changed_by_meaning() -> None:
    question = "When do you open?"
    plain = AnswerRequest(
        question=question, search_query=question, language="en", chunks=(LOCATION,)
    )
    words_only = await LocalAnswerWriter().compose(plain)
    with_meaning = await LocalAnswerWriter().compose(meaning_request(question, 0.5))
    assert "We open at nine" in words_only
    assert with_meaning == words_only
