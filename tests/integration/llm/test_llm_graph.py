"""Whole turns through the real graph with scripted chat models standing in for the LLM:
every structured job, tokens only from the writer, the llm_failure path, accounting."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import Field
from sqlalchemy import select

from conftest import complete, run_turn, streamed_text
from frontdesk.conversation.payload import TokenEvent
from frontdesk.conversation.service import ChatService
from frontdesk.engines.factory import build_engines
from frontdesk.engines.llm.models import ModelSet
from frontdesk.engines.llm.schemas import (
    EvaluationOutput,
    GradeOutput,
    IntentOutput,
    QueryOutput,
    SignalsOutput,
    SkillsOutput,
    SuggestionsOutput,
    VerificationOutput,
)
from frontdesk.runtime import build_runtime
from frontdesk.store.models import Handoff, OutboxItem, Trace
from tests.support.scripted import ScriptedChatModel

pytestmark = pytest.mark.integration

ANSWER = "Tessellate supports single sign-on with SAML 2.0 [1]. Write to [EMAIL_1] for setup help."


class ByJob(ScriptedChatModel):
    """Answers each structured job by its schema, so parallel nodes can't race a list."""

    replies: dict[str, Any] = Field(default_factory=dict)

    def _next(self, messages: list[Any]) -> Any:
        self.seen.append(list(messages))
        system = messages[0].text
        for marker, reply in self.replies.items():
            if marker in system:
                return reply() if callable(reply) else reply
        raise AssertionError(f"unexpected prompt: {system[:120]}")


def fast_model() -> ByJob:
    return ByJob(
        model_name="gpt-4.1-nano",
        replies={
            "Classify the intent": IntentOutput(
                reasoning="feature question", intent="LEARN", confidence=0.9
            ),
            "buying signals": SignalsOutput(reasoning="none"),
            "how the assistant's next reply should end": SkillsOutput(reasoning="early", skills=[]),
            "standalone search query": QueryOutput(reasoning="as is", query="SAML single sign-on"),
            "do NOT help": GradeOutput(reasoning="all relevant", irrelevant=[]),
            "Extract up to ten": VerificationOutput(reasoning="no claims", claims=[]),
            "Critique the drafted answer": EvaluationOutput(
                reasoning="good", quality=90, coverage="full"
            ),
            "Suggest three": SuggestionsOutput(reasoning="next", questions=["Which IdPs work?"]),
        },
    )


def writer_model(*outcomes: Any) -> ScriptedChatModel:
    return ScriptedChatModel(outcomes=list(outcomes), model_name="gpt-4.1-mini")


async def service_with(
    make_settings: Any, models: ModelSet, mode: str = "llm"
) -> AsyncIterator[ChatService]:
    settings = make_settings(
        {"name": "llm", "roles": {"main": "openai:gpt-4.1-mini"}, "routing_mode": mode}
    )
    runtime = build_runtime(settings)
    engines = build_engines(runtime.site("demo").config, settings, models=models)
    service = ChatService(runtime, engines=engines)
    try:
        yield service
    finally:
        await service.close()
        runtime.close()


@pytest.fixture
async def llm_service(
    make_settings: Any,
) -> AsyncIterator[tuple[ChatService, ByJob, ScriptedChatModel]]:
    fast = fast_model()
    writer = writer_model(ANSWER)
    async for service in service_with(make_settings, ModelSet(fast=fast, main=writer, judge=fast)):
        yield service, fast, writer


async def test_llm_turn_streams_the_writer_and_records_accounting(
    llm_service: tuple[ChatService, ByJob, ScriptedChatModel], session_id: str
) -> None:
    service, fast, writer = llm_service
    question = "Hi, I'm ann@acme.io (+49 30 1234 5678). Do you support SAML single sign-on?"
    events = await run_turn(service, session_id, question)
    result = complete(events).result
    assert result.route == "ANSWER" and result.intent == "LEARN"
    # Tokens came only from the writer, as the model wrote them; placeholders restored.
    assert streamed_text(events).startswith("Tessellate supports single sign-on with SAML 2.0 [1].")
    assert len([e for e in events if isinstance(e, TokenEvent)]) > 5
    assert result.answer.startswith("Tessellate supports single sign-on")
    assert result.citations and result.citations[0].index == 1
    assert result.suggested_follow_ups == ["Which IdPs work?"]
    # Every structured job ran on the model; no visitor PII left the process.
    systems = {m[0].text.splitlines()[2][:40] for m in fast.seen}
    assert len(fast.seen) >= 7, systems
    for messages in [*fast.seen, *writer.seen]:
        text = " ".join(m.text for m in messages)
        assert "ann@acme.io" not in text and "1234 5678" not in text
    with service.runtime.sessions() as db:
        trace = db.scalars(select(Trace).where(Trace.session_id == session_id)).one()
    assert trace.engine == "llm/llm"
    assert trace.model == "scripted:gpt-4.1-mini"
    assert trace.prompt_version and trace.prompt_version.startswith("v1-")
    assert trace.tokens_in > 0 and trace.tokens_out > 0
    assert trace.cost_usd > 0
    jobs = {node["node"] for node in trace.nodes if node["node"].startswith("llm:")}
    assert {"llm:intent_classifier", "llm:answer_writer", "llm:answer_evaluator"} <= jobs
    assert any(node["node"] == "first_token" for node in trace.nodes)


async def test_writer_failure_ends_with_the_fallback_message_and_a_handoff(
    make_settings: Any, session_id: str
) -> None:
    fast = fast_model()
    writer = writer_model(RuntimeError("500"), RuntimeError("503"), RuntimeError("500"))
    async for service in service_with(make_settings, ModelSet(fast=fast, main=writer, judge=fast)):
        events = await run_turn(service, session_id, "Do you support SAML single sign-on?")
        result = complete(events).result
        assert result.route == "HANDOFF"
        assert result.handoff is not None and result.handoff.reason == "llm_failure"
        assert result.routing == "cannot_answer"
        assert "trouble answering" in result.answer
        assert streamed_text(events).strip() == result.answer  # the message streamed too
        with service.runtime.sessions() as db:
            handoff = db.scalars(select(Handoff).where(Handoff.session_id == session_id)).one()
            outbox = db.scalars(select(OutboxItem).where(OutboxItem.handoff_id == handoff.id)).all()
        history = await service.history(service.runtime.site("demo"), session_id)
        assert [m["role"] for m in history] == ["user", "assistant"]  # nothing lost
        assert handoff.reason == "llm_failure" and outbox


async def test_hybrid_turn_needs_no_classification_call(
    make_settings: Any, session_id: str
) -> None:
    fast = fast_model()
    writer = writer_model(ANSWER)
    models = ModelSet(fast=fast, main=writer, judge=fast)
    async for service in service_with(make_settings, models, mode="hybrid"):
        events = await run_turn(service, session_id, "Do you support SAML single sign-on?")
        assert complete(events).result.route == "ANSWER"
        prompts = [m[0].text for m in fast.seen]
        assert not any("Classify the intent" in p for p in prompts)
        assert not any("do NOT help" in p for p in prompts)  # grading stays local
        assert writer.seen  # the LLM wrote the answer
