"""The lean chat-completions client against the loopback simulator, beside the SDK's own:
the same text, usage, structured objects, request bodies and exceptions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_openai import ChatOpenAI
from openai._utils import async_transform
from openai.types.chat import completion_create_params as params

from conftest import complete, run_turn, streamed_text
from frontdesk.conversation.service import ChatService
from frontdesk.engines.llm import lean_openai
from frontdesk.engines.llm.accounting import UsageMeter
from frontdesk.engines.llm.config import ResolvedEngine
from frontdesk.engines.llm.lean_openai import LeanAsyncCompletions
from frontdesk.engines.llm.models import build_chat_model
from frontdesk.engines.llm.schemas import QueryOutput
from frontdesk.engines.llm.simulator import DEFAULT_ANSWER, SimulatedProvider
from frontdesk.engines.llm.structured import structured_runnable
from frontdesk.runtime import build_runtime

pytestmark = pytest.mark.integration

QUERY = {"reasoning": "the visitor asks about SSO", "query": "SAML single sign-on ß→ü"}
HISTORY: list[BaseMessage] = [
    SystemMessage("You answer questions about Tessellate."),
    HumanMessage("Do you support SAML?"),
    AIMessage("", tool_calls=[{"id": "call_1", "name": "lookup", "args": {"q": "SAML"}}]),
    ToolMessage('{"found": 2}', tool_call_id="call_1"),
    AIMessage("Yes, SAML [1]."),
    HumanMessage([{"type": "text", "text": "And SCIM? ünïcödé"}]),
]


def structured(name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    return dict(QUERY) if name == "QueryOutput" else None


@pytest.fixture
def provider() -> Iterator[SimulatedProvider]:
    with SimulatedProvider(structured=structured) as sim:
        yield sim


def build(sim: SimulatedProvider, *, lean: bool, timeout_s: float = 5) -> ChatOpenAI:
    engine = ResolvedEngine(
        name="llm",
        roles={"fast": "openai:m", "main": "openai:m", "judge": "openai:m"},
        routing_mode="llm",
        hybrid_confidence=0.6,
        base_url=sim.base_url,
        timeout_s=timeout_s,
    )
    model = build_chat_model("openai:m", engine)
    assert isinstance(model, ChatOpenAI)
    assert isinstance(model.async_client, LeanAsyncCompletions)
    if not lean:  # the SDK's own resource, as LangChain builds it
        model.async_client = model.root_async_client.chat.completions
    return model


async def stream(model: ChatOpenAI, meter: UsageMeter | None = None) -> tuple[str, Any]:
    config: Any = {"callbacks": [meter]} if meter else {}
    text, usage = "", None
    async for chunk in model.astream(HISTORY, config):
        text += chunk.text
        usage = chunk.usage_metadata or usage
    return text, usage


async def test_lean_client_hands_langchain_plain_json(provider: SimulatedProvider) -> None:
    client = build(provider, lean=True).async_client
    reply = await client.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert isinstance(reply, dict) and reply["usage"]["total_tokens"] > 0
    chunks = await client.create(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    assert all([isinstance(chunk, dict) async for chunk in chunks])
    raw = await client.with_raw_response.create(model="m", messages=[])
    assert raw.status_code == 200 and isinstance(raw.parse(), dict)


async def test_streamed_text_and_usage_match_the_stock_client(
    provider: SimulatedProvider,
) -> None:
    results = {}
    for lean in (False, True):
        meter = UsageMeter()
        model = build(provider, lean=lean)
        text, usage = await stream(model, meter)
        await model.ainvoke(HISTORY, {"callbacks": [meter]})
        calls = meter.usage.calls
        results[lean] = (text, usage, [(c.tokens_in, c.tokens_out) for c in calls])
    assert results[True] == results[False]
    text, usage, tokens = results[True]
    assert text == DEFAULT_ANSWER
    assert usage is not None and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert len(tokens) == 2 and all(i > 0 and o > 0 for i, o in tokens)  # streamed, then not


async def test_forced_tool_call_parses_the_same_object(provider: SimulatedProvider) -> None:
    parsed = [
        await structured_runnable(
            build(provider, lean=lean), QueryOutput, "function_calling"
        ).ainvoke(HISTORY)
        for lean in (False, True)
    ]
    assert parsed[0] == parsed[1] == QueryOutput(**QUERY)


async def calls(model: ChatOpenAI) -> None:
    await stream(model)
    await model.ainvoke(HISTORY, stop=["\n\n"], temperature=0.2, max_tokens=50)
    await structured_runnable(model, QueryOutput, "function_calling").ainvoke(HISTORY)


async def test_request_bodies_match_the_stock_client(provider: SimulatedProvider) -> None:
    await calls(build(provider, lean=False))
    stock = list(provider.requests)
    provider.requests.clear()
    await calls(build(provider, lean=True))
    assert len(stock) == 3 and "tools" in stock[2] and stock[0]["stream"] is True
    assert provider.requests == stock


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        ("error:500", openai.InternalServerError),
        ("error:429", openai.RateLimitError),
        ("slow:1", openai.APITimeoutError),
    ],
)
@pytest.mark.parametrize("streamed", [False, True])
async def test_errors_raise_the_same_openai_exceptions(
    provider: SimulatedProvider, behaviour: str, error: type[Exception], streamed: bool
) -> None:
    raised = []
    for lean in (False, True):
        provider.script("m", behaviour)
        model = build(provider, lean=lean, timeout_s=0.3)
        with pytest.raises(openai.APIError) as caught:
            if streamed:
                await stream(model)
            else:
                await model.ainvoke(HISTORY)
        raised.append(type(caught.value))
    # LangChain re-raises some as its own subclasses (OpenAITimeoutError, ...): same for both.
    assert raised[0] is raised[1] and issubclass(raised[0], error)


def _canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, ensure_ascii=False)


async def test_a_whole_llm_turn_sends_payloads_the_sdk_would_not_change(
    provider: SimulatedProvider,
    make_settings: Any,
    session_id: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every body an LLM turn posts (classifiers, rewriter, grader, streamed answer) is
    left as it is by the SDK's transform: skipping it changes nothing on the wire."""
    sent: list[dict[str, Any]] = []
    original = lean_openai.request_body

    def spy(params: dict[str, Any]) -> dict[str, Any]:
        body = original(params)
        sent.append(body)
        return body

    monkeypatch.setattr(lean_openai, "request_body", spy)
    engine = {
        "name": "llm",
        "roles": {"fast": "openai:fast", "main": "openai:main", "judge": "openai:fast"},
        "base_url": provider.base_url,
        "routing_mode": "llm",
    }
    service = ChatService(build_runtime(make_settings(engine)))
    try:
        events = await run_turn(service, session_id, "Do you support SAML single sign-on?")
    finally:
        await service.close()
        service.runtime.close()
    assert complete(events).result.route == "ANSWER"
    assert streamed_text(events).startswith(DEFAULT_ANSWER)
    assert len(sent) >= 3 and any(b.get("stream") for b in sent)
    assert any("tools" in b for b in sent)
    # The background rewrite and the classifiers run concurrently: compare as multisets.
    assert sorted(map(_canonical, sent)) == sorted(map(_canonical, provider.requests))
    for body in sent:
        expected = (
            params.CompletionCreateParamsStreaming
            if body.get("stream")
            else params.CompletionCreateParamsNonStreaming
        )
        assert await async_transform(body, expected) == body
