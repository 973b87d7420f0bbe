"""Models from `build_chat_model` (LangChain's stock `ChatOpenAI`) against the loopback
simulator: streamed text and usage, structured objects and the SDK's own exceptions."""

from __future__ import annotations

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
from openai.resources.chat.completions import AsyncCompletions

from frontdesk.engines.llm.accounting import UsageMeter
from frontdesk.engines.llm.config import ResolvedEngine
from frontdesk.engines.llm.models import build_chat_model
from frontdesk.engines.llm.schemas import QueryOutput
from frontdesk.engines.llm.structured import structured_runnable
from tests.support.simulator import DEFAULT_ANSWER, SimulatedProvider

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


def build(
    sim: SimulatedProvider, *, timeout_s: float = 5, options: dict[str, Any] | None = None
) -> ChatOpenAI:
    engine = ResolvedEngine(
        name="llm",
        roles={"fast": "openai:m", "main": "openai:m", "judge": "openai:m"},
        routing_mode="llm",
        hybrid_confidence=0.6,
        base_url=sim.base_url,
        timeout_s=timeout_s,
        options=options or {},
    )
    model = build_chat_model("openai:m", engine)
    assert isinstance(model, ChatOpenAI)
    assert type(model.async_client) is AsyncCompletions  # the SDK's own, as LangChain builds it
    return model


async def stream(model: ChatOpenAI, meter: UsageMeter | None = None) -> tuple[str, Any]:
    config: Any = {"callbacks": [meter]} if meter else {}
    text, usage = "", None
    async for chunk in model.astream(HISTORY, config):
        text += chunk.text
        usage = chunk.usage_metadata or usage
    return text, usage


async def test_streamed_text_and_usage(provider: SimulatedProvider) -> None:
    meter = UsageMeter()
    model = build(provider)
    text, usage = await stream(model, meter)
    await model.ainvoke(HISTORY, {"callbacks": [meter]})
    tokens = [(c.tokens_in, c.tokens_out) for c in meter.usage.calls]
    assert text == DEFAULT_ANSWER
    assert usage is not None and usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert len(tokens) == 2 and all(i > 0 and o > 0 for i, o in tokens)  # streamed, then not
    assert provider.calls("m", stream=True) == 1 and provider.calls("m", stream=False) == 1


async def test_the_token_limit_reaches_a_compatible_server_as_max_tokens(
    provider: SimulatedProvider,
) -> None:
    # llama.cpp's server reads `max_tokens` only; LangChain sends `max_completion_tokens`.
    model = build(provider, options={"max_tokens": 48})
    await model.ainvoke(HISTORY)
    await stream(model)
    for body in provider.requests:
        assert body["max_tokens"] == 48 and body["max_completion_tokens"] == 48


async def test_forced_tool_call_parses_the_object(provider: SimulatedProvider) -> None:
    runnable = structured_runnable(build(provider), QueryOutput, "function_calling")
    assert await runnable.ainvoke(HISTORY) == QueryOutput(**QUERY)
    assert "tools" in provider.requests[-1]


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        ("error:500", openai.InternalServerError),
        ("error:429", openai.RateLimitError),
        ("error:400", openai.BadRequestError),
        ("slow:1", openai.APITimeoutError),
    ],
)
@pytest.mark.parametrize("streamed", [False, True])
async def test_errors_raise_the_openai_exceptions(
    provider: SimulatedProvider, behaviour: str, error: type[Exception], streamed: bool
) -> None:
    provider.script("m", behaviour)
    model = build(provider, timeout_s=0.3)
    with pytest.raises(error):  # LangChain may re-raise a subclass (OpenAITimeoutError, ...)
        if streamed:
            await stream(model)
        else:
            await model.ainvoke(HISTORY)
    assert provider.calls("m") == 1  # the client's own retries are off


def test_two_models_of_the_same_server_work_each_on_its_own_event_loop(
    provider: SimulatedProvider,
) -> None:
    # langchain-openai caches one async HTTP client per server for the whole process; its
    # connections belong to the loop that first used them, so a model built later and
    # run on another loop (every test, `asyncio.run` in a tool) failed with "Event loop
    # is closed" and the job fell back to the local engine.
    import asyncio

    for _ in range(2):
        model = build(provider)
        reply = asyncio.run(model.ainvoke([HumanMessage("Hello?")]))
        assert reply.text == DEFAULT_ANSWER
