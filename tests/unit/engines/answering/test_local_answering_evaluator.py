from __future__ import annotations

import pytest
from local_answering_kb import ALL, OFFICES, RATE_LIMIT, SALESFORCE, SSO

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering import LocalAnswerEvaluator, LocalAnswerWriter

pytestmark = pytest.mark.unit


async def test_unrelated_passages_give_none() -> None:
    answer = "According to our documentation: Visits to our offices are by appointment only [1]."
    result = await LocalAnswerEvaluator().evaluate(
        "How do I rotate webhook signing secrets?", answer, [OFFICES]
    )
    assert result.coverage == "none"
    assert result.relevance < 0.3


async def test_grounded_answer_is_full() -> None:
    question = "What does TF-1004 mean?"
    req = AnswerRequest(question=question, search_query=question, language="en", chunks=ALL)
    answer = await LocalAnswerWriter().compose(req)
    result = await LocalAnswerEvaluator().evaluate(question, answer, ALL)
    assert result.coverage == "full"
    assert result.quality >= 0.8
    assert result.relevance >= 0.8


async def test_some_key_terms_missing_is_partial() -> None:
    answer = (
        "According to our documentation: Sandbox orgs can be connected alongside production [1]."
    )
    result = await LocalAnswerEvaluator().evaluate(
        "Can I connect Salesforce sandboxes to marketo and pardot?", answer, [SALESFORCE]
    )
    assert result.coverage == "partial"


async def test_named_thing_no_passage_mentions_is_none() -> None:
    answer = (
        "According to our documentation: Sandbox orgs can be connected alongside production [1]."
    )
    result = await LocalAnswerEvaluator().evaluate(
        "Can I connect Salesforce sandboxes to Marketo and Pardot?", answer, [SALESFORCE]
    )
    assert result.coverage == "none"
    assert "Marketo" in result.reasoning


async def test_answer_without_citation_is_none() -> None:
    result = await LocalAnswerEvaluator().evaluate(
        "Does it support SSO?", "I couldn't find this in our documentation.", [SSO]
    )
    assert result.coverage == "none"


async def test_code_missing_from_passages_is_none() -> None:
    answer = "According to our documentation: **Meaning:** The connected app rejected requests [1]."
    result = await LocalAnswerEvaluator().evaluate("What does TF-9999 mean?", answer, [RATE_LIMIT])
    assert result.coverage == "none"


async def test_citation_of_a_missing_passage_lowers_quality() -> None:
    good = "Sandbox orgs can be connected alongside production [1]."
    bad = "Sandbox orgs can be connected alongside production [1]. Also [7]."
    evaluator = LocalAnswerEvaluator()
    question = "Can I connect Salesforce sandbox orgs?"
    first = await evaluator.evaluate(question, good, [SALESFORCE])
    second = await evaluator.evaluate(question, bad, [SALESFORCE])
    assert second.quality < first.quality
    assert "invalid" in second.reasoning
