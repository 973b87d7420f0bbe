"""The streaming writer: tokens as they come, first-token timeout, retries, fallback
model, dropped streams, PII restored, complexity routing."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from frontdesk.engines.base import AnswerRequest, Turn, WriterUnavailableError
from frontdesk.engines.llm.prompts import PromptBook
from frontdesk.engines.llm.writer import LLMAnswerWriter, classify_complexity
from frontdesk.knowledge.models import RetrievedChunk
from tests.support.scripted import Drop, ScriptedChatModel, Slow

pytestmark = pytest.mark.unit

PROMPTS = PromptBook("Tessellate", "Answer only from the knowledge base.")


def request(question: str = "How often does sync run?", **values: Any) -> AnswerRequest:
    chunk = RetrievedChunk(
        chunk_id="c1",
        doc_id="d1",
        title="Sync",
        url="",
        content="Sync runs every 5 minutes. Questions: support@tessellate.io",
        score=0.8,
        source="s",
        chunk_index=0,
    )
    return AnswerRequest(
        question=question, search_query=question, language="en", chunks=[chunk], **values
    )


async def collect(writer: LLMAnswerWriter, req: AnswerRequest) -> list[str]:
    return [piece async for piece in writer.write(req)]


async def test_streams_tokens_from_a_generic_fake_model() -> None:
    model = GenericFakeChatModel(
        messages=iter([AIMessage(content="Sync runs every 5 minutes [1].")])
    )
    pieces = await collect(LLMAnswerWriter(PROMPTS, model), request())
    assert len(pieces) > 3
    assert "".join(pieces) == "Sync runs every 5 minutes [1]."


async def test_prompt_has_passages_history_and_skills_and_no_visitor_pii() -> None:
    model = ScriptedChatModel(outcomes=["Sure [EMAIL_1], we will write."])
    writer = LLMAnswerWriter(PROMPTS, model)
    req = request(
        "Email me at ann@acme.io: how often does sync run?",
        history=[Turn("I'm Ann, +49 30 1234 5678", "Hi Ann!")],
        skills=("propose_demo",),
    )
    text = "".join(await collect(writer, req))
    assert text == "Sure ann@acme.io, we will write."  # placeholder restored for the visitor
    sent = " ".join(m.text for m in model.seen[0])
    assert "ann@acme.io" not in sent and "1234 5678" not in sent
    assert "support@tessellate.io" in sent  # knowledge-base content is not the visitor's PII
    assert '<passage number="1" title="Sync">' in sent
    assert "inviting the visitor to talk to the team" in sent


async def test_first_token_timeout_retries_then_fallback_model() -> None:
    main = ScriptedChatModel(outcomes=[Slow(2, "late"), ConnectionError("503")])
    backup = ScriptedChatModel(outcomes=["From the fallback [1]."])
    writer = LLMAnswerWriter(
        PROMPTS, main, fallback=backup, attempts=2, first_token_timeout_s=0.1, retry_wait_s=0
    )
    assert "".join(await collect(writer, request())) == "From the fallback [1]."
    assert not main.outcomes


async def test_everything_failing_raises_writer_unavailable() -> None:
    main = ScriptedChatModel(outcomes=[ConnectionError("reset")] * 2)
    backup = ScriptedChatModel(outcomes=[Slow(1, "late"), ""])
    writer = LLMAnswerWriter(
        PROMPTS, main, fallback=backup, attempts=2, first_token_timeout_s=0.05, retry_wait_s=0
    )
    with pytest.raises(WriterUnavailableError) as failure:
        await collect(writer, request())
    assert failure.value.partial == ""
    assert "TimeoutError" in str(failure.value)
    assert not main.outcomes and not backup.outcomes  # every attempt was made


async def test_a_failure_that_is_not_retryable_goes_straight_to_the_fallback() -> None:
    main = ScriptedChatModel(outcomes=[ValueError("400 bad request"), "never used"])
    backup = ScriptedChatModel(outcomes=["From the fallback [1]."])
    writer = LLMAnswerWriter(PROMPTS, main, fallback=backup, attempts=2, retry_wait_s=0)
    assert "".join(await collect(writer, request())) == "From the fallback [1]."
    assert main.outcomes == ["never used"] and not backup.outcomes


async def test_dropped_stream_after_tokens_is_not_restarted() -> None:
    main = ScriptedChatModel(outcomes=[Drop(3, "Sync runs every five minutes."), "never used"])
    writer = LLMAnswerWriter(PROMPTS, main, attempts=2, retry_wait_s=0)
    pieces: list[str] = []
    with pytest.raises(WriterUnavailableError) as failure:
        async for piece in writer.write(request()):
            pieces.append(piece)
    assert "".join(pieces) == "Sync runs every "
    assert failure.value.partial == "Sync runs every "
    assert main.outcomes == ["never used"]


def test_complexity() -> None:
    assert classify_complexity("Do you support SSO?") == "simple"
    assert classify_complexity("What is the difference between Pro and Team plans?") == "complex"
    assert classify_complexity("Does it sync? And can I export?") == "complex"
    assert classify_complexity("x" * 200) == "complex"


async def test_complexity_routing_writes_simple_questions_with_the_fast_model() -> None:
    main = ScriptedChatModel(outcomes=["main wrote"], model_name="main")
    fast = ScriptedChatModel(outcomes=["fast wrote"], model_name="fast")
    writer = LLMAnswerWriter(PROMPTS, main, fast=fast, complexity_routing=True)
    assert "".join(await collect(writer, request("Do you support SSO?"))) == "fast wrote"
    complex_question = "Why would I choose Tessellate versus building it myself?"
    assert "".join(await collect(writer, request(complex_question))) == "main wrote"
