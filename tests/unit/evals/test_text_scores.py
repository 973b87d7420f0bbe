"""Model-free answer scores: content tokens, reference overlap, per-sentence groundedness."""

from __future__ import annotations

import pytest

from frontdesk.evals.text_scores import (
    content_tokens,
    forbidden_matches,
    foreign_sentences,
    groundedness,
    missing_phrases,
    reference_overlap,
    split_sentences,
)

pytestmark = pytest.mark.unit


def test_content_tokens_drop_function_words_and_keep_numbers() -> None:
    assert content_tokens("Growth has a 99.9% SLA [1].") == ["growth", "99.9", "sla"]
    assert content_tokens("What is TF-1004?") == ["tf", "1004"]


def test_reference_overlap_by_hand() -> None:
    # answer: growth 99.9 sla; reference: growth plan 99.9 uptime sla → 3 shared
    overlap = reference_overlap("Growth has a 99.9% SLA", "The Growth plan: 99.9% uptime SLA")
    assert overlap.precision == 1.0
    assert overlap.recall == pytest.approx(3 / 5)
    assert overlap.f1 == pytest.approx(2 * 1.0 * 0.6 / 1.6)
    repeated = reference_overlap("sla sla sla", "sla")  # clipped counts: 1 of 3
    assert repeated.precision == pytest.approx(1 / 3) and repeated.recall == 1.0
    assert reference_overlap("", "sla").precision is None


def test_sentences_keep_their_citations() -> None:
    assert split_sentences("Growth is 99.9%. [1] Enterprise is 99.95% [2]. Thanks!") == [
        "Growth is 99.9% [1].",
        "Enterprise is 99.95% [2].",
        "Thanks!",
    ]


def test_groundedness_per_sentence_against_its_cited_chunks() -> None:
    chunks = {1: "Growth: 99.9% monthly SLA with credits.", 2: "Starter has a 99.5% target."}
    answer = "Growth has a 99.9% SLA [1]. Enterprise has 99.95% [2]. Ask sales for a quote. Thanks!"
    result = groundedness(answer, chunks)
    # sentence 1: growth, 99.9, sla all in chunk 1 → grounded
    # sentence 2: enterprise, 99.95 not in chunk 2 → not grounded
    # "Ask sales for a quote." cites nothing: not judged, but lowers citation coverage
    # "Thanks!" has no content tokens: left out
    assert result.score == 0.5
    assert result.citation_coverage == pytest.approx(2 / 3)
    assert result.ungrounded == ["Enterprise has 99.95% [2]."]
    assert [s.cited for s in result.sentences] == [(1,), (2,)]


def test_groundedness_without_citations_or_with_unknown_ones() -> None:
    assert groundedness("We do not publish prices.", {}).score is None
    unknown = groundedness("Growth has a 99.9% SLA [7].", {1: "Growth 99.9% SLA"})
    assert unknown.score == 0.0  # a citation to a chunk that was not retrieved supports nothing


def test_required_and_forbidden_phrases() -> None:
    answer = "Prices are not published; our sales team prepares quotes. 💌"
    assert missing_phrases(answer, ["sales team", "💌", "demo"]) == ["demo"]
    assert forbidden_matches(answer, [r"[$€£]\s?\d", r"not published"]) == ["not published"]


def test_a_sentence_in_another_language_is_found_and_names_are_not() -> None:
    mixed = (
        "To cancel, open Settings and choose Cancel subscription [1]. "
        "Затем подтвердите отмену в письме, которое придёт на вашу почту [2]. "
        "Acme Cloud Pro."
    )
    assert foreign_sentences(mixed, "en") == [
        "Затем подтвердите отмену в письме, которое придёт на вашу почту."
    ]
    spanish = "Para cancelar la cita, llame a la clínica con un día de antelación [1]."
    assert foreign_sentences(spanish, "es") == []
    assert len(foreign_sentences(spanish, "en")) == 1


def test_an_answer_that_says_it_quotes_another_language_is_the_documented_exception() -> None:
    answer = (
        "Our documentation covers this only in another language; here is what it says:\n"
        "> Чтобы отменить подписку, откройте настройки профиля и нажмите «Отменить» [1]."
    )
    assert foreign_sentences(answer, "en") == []
