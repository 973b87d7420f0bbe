"""The lean chat-completions client: what it posts, and that ChatOpenAI models get it.
(Calls against the loopback simulator: tests/integration/llm/test_llm_lean_loopback.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_openai import ChatOpenAI
from openai import NOT_GIVEN, omit
from openai._utils import async_transform
from openai.resources.chat.completions import AsyncCompletions
from openai.types.chat import completion_create_params as params

from frontdesk.engines.llm.config import ResolvedEngine
from frontdesk.engines.llm.lean_openai import LeanAsyncCompletions, request_body
from frontdesk.engines.llm.models import build_chat_model, build_models
from frontdesk.engines.llm.schemas import QueryOutput
from frontdesk.engines.llm.structured import structured_runnable

pytestmark = pytest.mark.unit

BASE_URL = "http://127.0.0.1:9/v1"  # never called: these tests build payloads only
HISTORY = [
    SystemMessage("You answer questions about Tessellate."),
    HumanMessage("Do you support SAML?"),
    AIMessage(
        "",
        tool_calls=[{"id": "call_1", "name": "QueryOutput", "args": {"query": "SAML"}}],
    ),
    ToolMessage('{"found": 2}', tool_call_id="call_1"),
    AIMessage("Yes, SAML [1]."),
    HumanMessage([{"type": "text", "text": "And SCIM? ünïcödé"}]),
]


def engine(**values: Any) -> ResolvedEngine:
    defaults: dict[str, Any] = {
        "name": "llm",
        "roles": {"fast": "openai:m", "main": "openai:m", "judge": "openai:m"},
        "routing_mode": "hybrid",
        "hybrid_confidence": 0.6,
        "base_url": BASE_URL,
    }
    return ResolvedEngine(**{**defaults, **values})


def payloads(model: ChatOpenAI) -> list[dict[str, Any]]:
    """The request payloads LangChain builds for our calls: a streamed answer, a plain
    call and a forced tool call (the structured runnable's bound kwargs)."""
    binding: Any = structured_runnable(model, QueryOutput, "function_calling").first  # type: ignore[attr-defined]
    tool_kwargs = {k: v for k, v in binding.kwargs.items() if not k.startswith("ls_")}
    return [
        model._get_request_payload(HISTORY, stream=True, stream_options={"include_usage": True}),
        model._get_request_payload(HISTORY),
        model._get_request_payload(HISTORY, **tool_kwargs),
    ]


async def test_the_sdk_transform_is_the_identity_for_our_payloads() -> None:
    """Why skipping `async_maybe_transform` is safe: it returns our payloads unchanged."""
    model = build_chat_model("openai:m", engine())
    assert isinstance(model, ChatOpenAI)
    sent = payloads(model)
    assert "tools" in sent[2] and sent[0]["stream"] is True
    for payload in sent:
        expected = (
            params.CompletionCreateParamsStreaming
            if payload.get("stream")
            else params.CompletionCreateParamsNonStreaming
        )
        assert await async_transform(payload, expected) == payload
        assert request_body(payload) == payload


def test_request_body_drops_omitted_values_and_request_options() -> None:
    body = request_body(
        {
            "model": "m",
            "messages": [],
            "temperature": omit,
            "seed": NOT_GIVEN,
            "stream": False,
            "extra_body": {"x": 1},
            "extra_headers": {"X-A": "b"},
            "timeout": 3.0,
        }
    )
    assert body == {"model": "m", "messages": [], "stream": False}


def test_request_body_rejects_what_the_sdk_rejects() -> None:
    with pytest.raises(TypeError, match="not_a_param"):
        request_body({"model": "m", "messages": [], "not_a_param": 1})
    with pytest.raises(TypeError, match="messages"):
        request_body({"model": "m"})


def test_openai_models_get_the_lean_client() -> None:
    model = build_chat_model("openai:m", engine())
    assert isinstance(model, ChatOpenAI)
    assert type(model.async_client) is LeanAsyncCompletions
    assert model.async_client._client is model.root_async_client  # same connection pool
    # The typed paths stay on the SDK: `response_format` calls and the sync client.
    assert type(model.root_async_client.chat.completions) is AsyncCompletions
    assert type(model.client).__name__ == "Completions"
    # `with_raw_response` (LangChain's non-streamed path) is built from our `create`.
    raw_create = model.async_client.with_raw_response.create
    assert raw_create.__wrapped__ == model.async_client.create
    shared = build_models(engine(fallback="openai:other"))
    assert isinstance(shared.fallback, ChatOpenAI)
    assert type(shared.fallback.async_client) is LeanAsyncCompletions


def test_azure_keeps_the_stock_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    model = build_chat_model("azure_openai:prod-4o", engine(base_url="https://x.openai.azure.com"))
    assert type(model.async_client) is AsyncCompletions  # type: ignore[attr-defined]
