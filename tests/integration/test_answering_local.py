"""The local answering jobs end to end over the demo knowledge base, with the real
bundled MiniLM embedder for retrieval, the writer's sentence ranking and the verifier."""

from __future__ import annotations

import pytest

from frontdesk.engines.base import AnswerRequest, Turn
from frontdesk.engines.local.answering import (
    LocalAnswerEvaluator,
    LocalAnswerWriter,
    LocalClaimVerifier,
    LocalDocumentGrader,
    LocalQueryRewriter,
    LocalSuggester,
    cited_indices,
)
from frontdesk.engines.local.answering.phrases import LEAD_IN, NOT_FOUND
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.settings import DEMO_DIR
from tests.support.passages import PassageIndex, index_pages

pytestmark = pytest.mark.integration

DOCS = ("integrations.md", "error-codes.md", "security-compliance.md", "faq.md", "ru-faq.md")


DemoIndex = PassageIndex


@pytest.fixture(scope="module")
def index() -> DemoIndex:
    return index_pages(DEMO_DIR / "kb" / name for name in DOCS)


async def run_turn(
    index: DemoIndex,
    question: str,
    language: str,
    history: list[Turn] | None = None,
    pricing_reply: str = "",
) -> tuple[str, list[RetrievedChunk], str]:
    query = await LocalQueryRewriter().rewrite(question, history or [], language)
    found = index.search(query)
    grades = await LocalDocumentGrader().grade(query, found)
    kept = [chunk for chunk, ok in zip(found, grades, strict=True) if ok] or found[:1]
    writer = LocalAnswerWriter()
    request = AnswerRequest(
        question=question,
        search_query=query,
        language=language,
        chunks=kept,
        pricing_reply=pricing_reply,
    )
    answer = "".join([piece async for piece in writer.write(request)])
    return answer, kept, query


async def test_grounded_answer_with_real_embeddings(index: DemoIndex) -> None:
    question = "Can Tessellate Flow connect to a database behind our firewall?"
    answer, chunks, _ = await run_turn(index, question, "en")
    assert answer.startswith(LEAD_IN["en"])
    assert "Relay" in answer
    assert cited_indices(answer) <= set(range(1, len(chunks) + 1))
    verification = await LocalClaimVerifier(index.embedder).verify(answer, chunks)
    assert verification.factuality_score == 1.0
    evaluation = await LocalAnswerEvaluator().evaluate(question, answer, chunks)
    assert evaluation.coverage == "full"
    suggestions = await LocalSuggester().follow_ups(question, answer, chunks, "en")
    # The FAQ's own questions; its section names ("Product") are not questions to offer.
    assert len(suggestions) >= 2
    assert not any("Product" in s for s in suggestions), suggestions
    assert question not in suggestions


async def test_follow_up_retrieves_the_previous_subject(index: DemoIndex) -> None:
    history = [
        Turn(
            "Tell me about the Salesforce integration",
            "According to our documentation: Supports standard and custom objects [1].",
        )
    ]
    answer, chunks, query = await run_turn(index, "can it use sandbox orgs?", "en", history)
    assert "Salesforce" in query
    assert any("Salesforce" in chunk.heading_path for chunk in chunks)
    assert "Sandbox orgs can be connected alongside production" in answer


async def test_russian_question_russian_answer(index: DemoIndex) -> None:
    question = "Поддерживаете ли вы SAML SSO?"
    answer, chunks, _ = await run_turn(index, question, "ru")
    assert answer.startswith(LEAD_IN["ru"])
    assert "SAML" in answer
    suggestions = await LocalSuggester().follow_ups(question, answer, chunks, "ru")
    assert all(s != question for s in suggestions)


async def test_pricing_and_off_topic(index: DemoIndex) -> None:
    reply = "Preise erstellt unser Vertriebsteam."  # a site's own copy (`pricing_reply`)
    question = "Wie viel kostet der Enterprise-Tarif?"
    answer, _, _ = await run_turn(index, question, "de", pricing_reply=reply)
    assert answer.startswith(reply)
    off_topic, chunks, _ = await run_turn(index, "What is the capital of Peru?", "en")
    assert off_topic == NOT_FOUND["en"]
    evaluation = await LocalAnswerEvaluator().evaluate(
        "What is the capital of Peru?", off_topic, chunks
    )
    assert evaluation.coverage == "none"


async def test_verifier_with_embeddings_accepts_a_paraphrase_not_an_invention(
    index: DemoIndex,
) -> None:
    chunks = index.search("Salesforce sandbox orgs")
    answer = (
        "Sandbox orgs can be connected alongside production [1]. "
        "Tessellate Flow gives every Salesforce customer a free lifetime Enterprise plan [1]. "
        "You can link sandbox orgs next to your production org [1]."
    )
    verification = await LocalClaimVerifier(index.embedder).verify(answer, chunks)
    assert [claim.supported for claim in verification.claims] == [True, False, True]
    without_model = await LocalClaimVerifier().verify(answer, chunks)
    assert [claim.supported for claim in without_model.claims] == [True, False, False]
