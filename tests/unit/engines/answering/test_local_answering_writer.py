from __future__ import annotations

import re

import pytest
from local_answering_kb import (
    ALL,
    FAQ,
    PLANS,
    RATE_LIMIT,
    RU_ERROR,
    SALESFORCE,
    SSO,
    passage,
    without_citations,
    words_of,
)

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering import LocalAnswerWriter, cited_indices
from frontdesk.engines.local.answering.phrases import (
    LEAD_IN,
    NOT_FOUND,
    WEAK_LEAD_IN,
    foreign_lead_in,
    phrase,
)
from frontdesk.engines.local.answering.units import split_claims
from frontdesk.knowledge.models import RetrievedChunk

pytestmark = pytest.mark.unit


# A site's own pricing copy (`pricing_reply` in its configuration); the product has none.
PRICING_REPLY = "Prices depend on your plan — our team sends a quote."


def request(
    question: str,
    chunks: tuple[RetrievedChunk, ...],
    language: str = "en",
    pricing_reply: str = "",
) -> AnswerRequest:
    return AnswerRequest(
        question=question,
        search_query=question,
        language=language,
        chunks=chunks,
        pricing_reply=pricing_reply,
    )


async def answer(req: AnswerRequest) -> str:
    return "".join([piece async for piece in LocalAnswerWriter().write(req)])


def claims_of(text: str, language: str) -> list[str]:
    for lead in (LEAD_IN[language], WEAK_LEAD_IN[language]):
        text = text.replace(lead, "")
    return [claim for claim in split_claims(text) if claim.strip()]


QUESTIONS = [
    ("Can I connect Salesforce sandbox orgs?", "en"),
    ("What does TF-1004 mean?", "en"),
    ("Does the Growth plan include code steps?", "en"),
    ("Can I connect a database behind our firewall?", "en"),
    ("Что означает ошибка TF-1002?", "ru"),
    ("How do I set up SSO?", "en"),
]


@pytest.mark.parametrize(("question", "language"), QUESTIONS)
async def test_every_citation_points_to_an_existing_passage(question: str, language: str) -> None:
    text = await answer(request(question, ALL, language))
    cited = cited_indices(text)
    assert cited, text
    assert cited <= set(range(1, len(ALL) + 1))


@pytest.mark.parametrize(("question", "language"), QUESTIONS)
async def test_every_sentence_comes_from_its_cited_passage(question: str, language: str) -> None:
    text = await answer(request(question, ALL, language))
    for claim in claims_of(text, language):
        numbers = cited_indices(claim)
        assert len(numbers) == 1, claim
        source = ALL[numbers.pop() - 1]
        quoted = without_citations(claim).strip().removeprefix("- ")
        origin = " ".join((*source.heading_path, source.content))
        # Sentences are verbatim; table rows are cells with their column names.
        assert quoted.rstrip(".") in origin or words_of(quoted) <= words_of(origin), claim


async def test_answers_the_error_code_from_its_section() -> None:
    text = await answer(request("What does TF-1004 mean?", ALL))
    assert text.startswith(LEAD_IN["en"])
    assert "rate limit" in text
    assert f"[{ALL.index(RATE_LIMIT) + 1}]" in text


async def test_table_row_for_a_plan_question() -> None:
    text = await answer(request("Does the Growth plan include code steps?", (PLANS,)))
    assert "Code steps (Python, JavaScript) — Starter: No; Growth: Yes; Enterprise: Yes [1]" in text


async def test_faq_answer_not_the_faq_question() -> None:
    text = await answer(request("Can I connect a database behind our firewall?", (FAQ,)))
    assert "Tessellate Relay" in text
    assert "?" not in text


async def test_only_other_language_passages_are_quoted_under_a_lead_in_that_says_so() -> None:
    text = await answer(request("Does it support SSO?", (SSO,), "ru"))
    # The lead-in names the page's language in the visitor's (CLDR)
    assert text.startswith(foreign_lead_in("ru", "en")) and "(английский)" in text
    assert "SSO can be made mandatory" in text
    russian = await answer(request("What does TF-1002 mean?", (RU_ERROR,), "de"))
    assert russian.startswith(foreign_lead_in("de", "ru")) and "Russisch" in russian
    assert "токен OAuth" in russian


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("How much does the Growth plan cost?", "en"),
        ("What's the price of Enterprise?", "en"),
        ("Сколько стоит тариф Growth?", "ru"),
        ("Какая цена у Enterprise?", "ru"),
        ("Was kostet der Growth-Plan?", "de"),
        ("Gibt es einen Rabatt für Startups?", "de"),
    ],
)
async def test_pricing_is_deflected_without_figures(question: str, language: str) -> None:
    text = await answer(request(question, (PLANS, SALESFORCE), language, PRICING_REPLY))
    assert text.startswith(PRICING_REPLY)
    assert not re.search(r"\d|\$|€", without_citations(text)), text
    if language == "en":  # the figure-free passage sentence, cited, in the visitor's language
        assert "does not publish prices" in text


async def test_pricing_without_a_usable_passage_is_only_the_deflection() -> None:
    text = await answer(request("How much is it?", (SALESFORCE,), pricing_reply=PRICING_REPLY))
    assert text == PRICING_REPLY


async def test_without_a_site_pricing_reply_prices_are_answered_from_the_passages() -> None:
    text = await answer(request("How much does the Growth plan cost?", (PLANS, SALESFORCE)))
    assert text.startswith(LEAD_IN["en"]), text
    assert cited_indices(text) == {1}
    assert "sales team" not in text and "demo" not in text


async def test_internal_questions_are_deflected() -> None:
    text = await answer(request("Can you share your internal roadmap and salaries?", ALL))
    assert not cited_indices(text)
    assert "confidential" in text


async def test_nothing_found() -> None:
    assert "couldn't find" in await answer(request("What is the capital of Peru?", ALL))
    assert "couldn't find" in await answer(request("How do I set up SSO?", ()))


async def test_unknown_code_is_not_answered_with_another_code() -> None:
    text = await answer(request("What does TF-9999 mean?", (RATE_LIMIT, RU_ERROR)))
    assert not cited_indices(text)


async def test_streaming_pieces_join_to_the_full_answer() -> None:
    writer = LocalAnswerWriter()
    req = request("What does TF-1004 mean?", ALL)
    pieces = [piece async for piece in writer.write(req)]
    assert len(pieces) > 5
    assert all(piece.strip() for piece in pieces)
    assert "".join(pieces) == await writer.compose(req)


def test_cited_indices() -> None:
    assert cited_indices("A [1]. B [3]. C [1, 2]. D [x].") == {1, 2, 3}
    assert cited_indices("no citations") == set()


async def test_elliptical_follow_up_to_a_pricing_question_is_deflected() -> None:
    req = AnswerRequest(
        question="and for Enterprise?",
        search_query="and for Enterprise? Growth cost",
        language="en",
        chunks=(PLANS,),
        pricing_reply=PRICING_REPLY,
    )
    assert (await LocalAnswerWriter().compose(req)).startswith(PRICING_REPLY)
    req = AnswerRequest(
        question="Does the Growth plan include code steps?",
        search_query="Does the Growth plan include code steps? cost",
        language="en",
        chunks=(PLANS,),
        pricing_reply=PRICING_REPLY,
    )
    assert not (await LocalAnswerWriter().compose(req)).startswith(PRICING_REPLY)


def test_table_cut_mid_row_by_the_chunker_becomes_rows_not_one_long_sentence() -> None:
    from frontdesk.engines.local.answering.units import passage_units

    tail = (
        "(retained 1 year) | No | No | Yes | | Uptime commitment | 99.5% target | "
        "99.9% SLA | 99.95% SLA |"
    )
    units = passage_units(tail)
    assert [(u.kind, u.text) for u in units] == [
        ("row", "Uptime commitment — 99.5% target — 99.9% SLA — 99.95% SLA")
    ]


# Real visitors word things their own way: no sentence of the right page shares many of
# their words ("going to last", "people who already had"), while the page as a whole does.
DURATION = passage(
    40,
    ("Vaccine effectiveness", "Duration"),
    "Experts do not yet know how many months the protection lasts. Studies of people "
    "vaccinated in the first trials continue. Boosters may be offered later.",
    0.61,
)


async def test_a_page_covering_the_question_is_quoted_though_no_sentence_matches_well() -> None:
    question = (
        "How long is the vaccine protection going to last for people who already had the virus?"
    )
    text = await answer(request(question, (DURATION,)))
    assert text.startswith(WEAK_LEAD_IN["en"])  # hedged: no sentence matches it well
    assert "Experts do not yet know how many months the protection lasts [1]." in text


async def test_one_shared_word_with_a_page_is_still_not_found() -> None:
    # "long" alone: the page is about something else, however close its embedding.
    question = "How long is the waiting list for a hip replacement surgery?"
    text = await answer(request(question, (DURATION,)))
    assert text == phrase(NOT_FOUND, "en")


async def test_each_question_of_a_message_is_answered_from_the_passages_it_brought() -> None:
    """The search appends each question's own passages after the whole message's best
    (`merge_results`); the writer used to keep only its first eight, so the passage that
    answers the second question — here the ninth — was never read."""
    filler = tuple(
        passage(10 + n, ("Release notes", f"Version {n}"), f"Version {n} fixed a typo.", 0.6)
        for n in range(8)
    )
    text = await answer(
        request(
            "Do you connect to Salesforce sandboxes, and does SSO work with Okta?",
            (
                SALESFORCE,
                *filler[:7],
                SSO,
            ),
        )
    )
    assert "30 minutes" in text and "Sandbox" in text, text
    assert "couldn't find" not in text, text
