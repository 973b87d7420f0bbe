"""Fault injection: a loopback server speaking the OpenAI API answers with 500s, 429s, a
late first token or a dropped stream. The real provider client (ChatOpenAI) retries,
moves to the fallback model, and finally the visitor gets the graceful message and a
handoff offer. Every turn is persisted either way."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from conftest import complete, run_turn, streamed_text
from frontdesk.conversation.service import ChatService
from frontdesk.runtime import build_runtime
from tests.support.simulator import DEFAULT_ANSWER, SimulatedProvider

pytestmark = pytest.mark.integration

QUESTION = "Do you support SAML single sign-on? My email is ann@acme.io"


def structured(name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if name == "QueryOutput":  # the rewritten search query must find the SSO article
        return {"reasoning": "standalone", "query": "SAML single sign-on SSO"}
    return None  # everything else: the schema's benign sample


@pytest.fixture
def provider() -> Iterator[SimulatedProvider]:
    with SimulatedProvider(structured=structured) as sim:
        yield sim


def engine_block(sim: SimulatedProvider, **values: Any) -> dict[str, Any]:
    return {
        "name": "llm",
        "roles": {"fast": "openai:fast", "main": "openai:main", "judge": "openai:fast"},
        "fallback": "openai:backup",
        "base_url": sim.base_url,
        "routing_mode": "llm",
        "max_retries": 2,
        "timeout_s": 5,
        "stream_timeout_ms": 1500,
        **values,
    }


@pytest.fixture
async def make_service(make_settings: Any) -> AsyncIterator[Any]:
    made: list[ChatService] = []

    def make(engine: dict[str, Any]) -> ChatService:
        service = ChatService(build_runtime(make_settings(engine)))
        made.append(service)
        return service

    yield make
    for service in made:
        await service.close()
        service.runtime.close()


async def persisted(service: ChatService, session: str) -> list[str]:
    history = await service.history(service.runtime.site("demo"), session)
    return [m["role"] for m in history]


async def test_500_and_429_are_retried(
    provider: SimulatedProvider, make_service: Any, session_id: str
) -> None:
    provider.script("main", "error:500", "error:429")
    service = make_service(engine_block(provider))
    events = await run_turn(service, session_id, QUESTION)
    result = complete(events).result
    assert result.route == "ANSWER"
    assert streamed_text(events) == DEFAULT_ANSWER
    assert provider.calls("main", stream=True) == 3
    assert provider.calls("backup") == 0
    # What left the process: the visitor's email never did.
    assert not any("ann@acme.io" in str(body) for body in provider.requests)
    assert await persisted(service, session_id) == ["user", "assistant"]


async def test_fallback_model_after_retries(
    provider: SimulatedProvider, make_service: Any, session_id: str
) -> None:
    provider.script("main", "error:500", "error:500", "error:500")
    service = make_service(engine_block(provider))
    events = await run_turn(service, session_id, QUESTION)
    assert complete(events).result.route == "ANSWER"
    assert streamed_text(events) == DEFAULT_ANSWER
    assert provider.calls("backup", stream=True) == 1


async def test_slow_first_token_everywhere_ends_gracefully(
    provider: SimulatedProvider, make_service: Any, session_id: str
) -> None:
    service = make_service(engine_block(provider, stream_timeout_ms=200, max_retries=2))
    # A first turn pays the one-time costs (models built, language detector and vectors
    # loaded: ~5 s on a 2-core machine without AVX-512), so the timed turn is the retries.
    await run_turn(service, str(uuid.uuid4()), QUESTION)
    # First tokens far later than any stall of a loaded machine: with 3-s delays, one
    # loaded CI run got an answer where every attempt should have timed out.
    provider.script("main", *["slow:30"] * 3)
    provider.script("backup", *["slow:30"] * 3)
    started = time.perf_counter()
    events = await run_turn(service, session_id, QUESTION)
    elapsed = time.perf_counter() - started
    result = complete(events).result
    calls = [(body.get("model"), bool(body.get("stream"))) for body in provider.requests]
    assert result.handoff is not None and result.handoff.reason == "llm_failure", calls
    assert "trouble answering" in result.answer
    # Six attempts × 0.2 s first-token timeout plus ~3 s of backoff is ~4.5 s; waiting
    # out each slow first token instead would take 6 × 30 s.
    assert elapsed < 9
    assert await persisted(service, session_id) == ["user", "assistant"]


async def test_dropped_stream_keeps_what_was_said_and_offers_a_person(
    provider: SimulatedProvider, make_service: Any, session_id: str
) -> None:
    provider.script("main", "drop:4")
    service = make_service(engine_block(provider))
    events = await run_turn(service, session_id, QUESTION)
    result = complete(events).result
    shown = streamed_text(events)
    assert shown.startswith("Tessellate syncs your data ")
    assert "trouble answering" in shown
    assert result.handoff is not None and result.handoff.reason == "llm_failure"
    assert result.answer.startswith("Tessellate syncs your data")
    assert provider.calls("main", stream=True) == 1  # words were out: no silent restart
    assert await persisted(service, session_id) == ["user", "assistant"]


async def test_failing_classifiers_fall_back_to_the_local_engine(
    provider: SimulatedProvider, make_service: Any, session_id: str
) -> None:
    provider.script("fast", *["error:500"] * 60)
    block = engine_block(provider, max_retries=1)
    del block["fallback"]
    service = make_service(block)
    events = await run_turn(service, session_id, "Do you support SAML single sign-on?")
    result = complete(events).result
    assert result.route == "ANSWER" and result.intent == "LEARN"  # the local classifier
    assert streamed_text(events).startswith(DEFAULT_ANSWER)  # the local judge may add a line
    assert provider.calls("fast") >= 4


async def test_garbage_structured_output_is_retried_then_local(
    provider: SimulatedProvider, make_service: Any, session_id: str
) -> None:
    provider.script("fast", *["garbage"] * 60)
    block = engine_block(provider, max_retries=0, structured_output="json_object")
    del block["fallback"]
    service = make_service(block)
    events = await run_turn(service, session_id, "Do you support SAML single sign-on?")
    assert complete(events).result.route == "ANSWER"
    json_calls = [b for b in provider.requests if b.get("model") == "fast"]
    assert json_calls and all(b["response_format"]["type"] == "json_object" for b in json_calls)
    assert all("schema" in b["response_format"] for b in json_calls)
