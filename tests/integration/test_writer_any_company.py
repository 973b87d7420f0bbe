"""The local writer on a company it was never tuned on: the three-page Velotrove site,
cut by the real chunker, searched with the real MiniLM, each page one passage — so the
delivery question and the theft procedure arrive in the same passage.

These run the answering jobs directly, without the intent classifier and the relevance
threshold (their own tests cover whether such a site's questions reach the writer)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering import LocalAnswerWriter, LocalSuggester, cited_indices
from frontdesk.engines.local.answering.phrases import LEAD_IN, WEAK_LEAD_IN
from frontdesk.engines.local.answering.text import strip_citations
from frontdesk.engines.local.answering.units import split_claims
from frontdesk.knowledge.models import RetrievedChunk
from tests.support.passages import PassageIndex, index_pages

pytestmark = pytest.mark.integration

KB = Path(__file__).resolve().parents[1] / "fixtures" / "velotrove" / "kb"
THEFT_WORDS = re.compile(r"theft|stolen|police", re.IGNORECASE)


@pytest.fixture(scope="module")
def velotrove() -> PassageIndex:
    index = index_pages(sorted(KB.glob("*.md")))
    assert len(index.chunks) == 3, "each short page is one passage"
    return index


async def write(
    index: PassageIndex, question: str, search_query: str = ""
) -> tuple[str, list[RetrievedChunk]]:
    chunks = index.search(search_query or question, k=3)
    request = AnswerRequest(
        question=question, search_query=search_query or question, language="en", chunks=chunks
    )
    return await LocalAnswerWriter().compose(request), chunks


def quotes(answer: str) -> list[str]:
    """The quoted sentences of an answer, in order, without lead-in and citations."""
    for lead in (LEAD_IN["en"], WEAK_LEAD_IN["en"]):
        answer = answer.replace(lead, "")
    return [strip_citations(claim) for claim in split_claims(answer) if claim.strip()]


async def test_the_delivery_question_opens_with_the_delivery_sentence_not_the_theft_one(
    velotrove: PassageIndex,
) -> None:
    answer, _ = await write(velotrove, "Which cities do you deliver to?")
    said = quotes(answer)
    assert said and "Amsterdam" in said[0], answer
    assert not THEFT_WORDS.search(answer), answer


async def test_an_earlier_subject_carried_in_the_search_query_brings_nothing_in_alone(
    velotrove: PassageIndex,
) -> None:
    # The rewriter appended the previous turn's subject (a stolen bike) to the query.
    answer, _ = await write(
        velotrove,
        "Which cities do you deliver to?",
        "Which cities do you deliver to? stolen bike police report",
    )
    assert "Amsterdam" in answer
    assert not THEFT_WORDS.search(answer), answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is Velotrove?", "bike subscription"),
        ("How do I cancel my membership?", "tap Cancel membership"),
        ("What happens if my bike is stolen?", "police"),
        ("Can I take the bike on holiday?", "on holiday anywhere in the EU"),
        ("How do I swap my bike?", "swap your bike"),
    ],
)
async def test_plain_questions_get_their_own_sentences_first(
    velotrove: PassageIndex, question: str, expected: str
) -> None:
    answer, chunks = await write(velotrove, question)
    assert expected in " ".join(quotes(answer)[:2]), answer  # the answer opens with it
    assert cited_indices(answer) <= set(range(1, len(chunks) + 1))


async def test_prices_come_from_the_pages_and_no_sales_copy_is_added(
    velotrove: PassageIndex,
) -> None:
    answer, _ = await write(velotrove, "How much does the membership cost?")
    assert "€29" in answer
    for demo_copy in ("sales team", "demo", "Pricing is quoted", "workflows"):
        assert demo_copy not in answer


async def test_a_question_of_several_parts_answers_each_and_names_what_is_missing(
    velotrove: PassageIndex,
) -> None:
    question = (
        "Do you deliver in Utrecht, can I pause my membership for a holiday, "
        "and do you offer child seats?"
    )
    answer, _ = await write(velotrove, question)
    assert "Utrecht" in answer
    assert "pause your membership" in answer
    assert answer.rstrip().endswith("“do you offer child seats”."), answer


async def test_suggestion_chips_are_clean_questions_from_the_site(
    velotrove: PassageIndex,
) -> None:
    seen: list[str] = []
    for question in ("How much does the membership cost?", "What is Velotrove?"):
        answer, chunks = await write(velotrove, question)
        seen += await LocalSuggester().follow_ups(question, answer, chunks, "en")
    assert seen
    for chip in seen:
        assert chip.endswith("?"), chip
        assert "#" not in chip and "[" not in chip and "](" not in chip, chip
        assert "learn more" not in chip.lower(), chip
