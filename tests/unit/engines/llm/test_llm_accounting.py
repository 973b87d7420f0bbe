"""Tokens, model, latency and estimated cost per turn."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from frontdesk.engines.llm.accounting import UsageMeter, estimate_cost
from frontdesk.engines.llm.schemas import QueryOutput
from frontdesk.engines.llm.structured import StructuredCaller
from tests.support.scripted import ScriptedChatModel

pytestmark = pytest.mark.unit


def test_price_table() -> None:
    assert estimate_cost("openai:gpt-4.1-mini", 1_000_000, 0) == pytest.approx(0.40)
    assert estimate_cost("gpt-4.1-mini-2025-04-14", 0, 1_000_000) == pytest.approx(1.60)
    assert estimate_cost("openai:gpt-4.1", 1000, 1000) == pytest.approx(0.01)
    assert estimate_cost("anthropic:claude-haiku-4-5", 2000, 1000) == pytest.approx(0.007)
    assert estimate_cost("openai:SmolLM2-135M", 10_000, 10_000) == 0.0
    assert estimate_cost("ollama:llama3.2", 10_000, 10_000) == 0.0


async def test_meter_collects_calls_by_job() -> None:
    meter = UsageMeter()
    model = ScriptedChatModel(
        outcomes=[QueryOutput(reasoning="r", query="q"), "Hello there"], model_name="gpt-4.1-nano"
    )
    caller = StructuredCaller(model, method="function_calling", attempts=1)
    await caller.invoke(
        QueryOutput, [HumanMessage("x")], {"callbacks": [meter], "tags": ["job:rewriter"]}
    )
    async for _ in model.astream(
        [HumanMessage("y")], {"callbacks": [meter], "tags": ["job:answer_writer"]}
    ):
        pass
    usage = meter.usage
    assert [c.job for c in usage.calls] == ["rewriter", "answer_writer"]
    assert usage.calls[0].model == "scripted:gpt-4.1-nano"
    assert usage.tokens_in == 10 and usage.tokens_out == 5  # the stream reports no usage
    assert usage.cost_usd == pytest.approx(estimate_cost("gpt-4.1-nano", 10, 5))
    assert usage.model == "scripted:gpt-4.1-nano"
    assert usage.as_nodes()[0]["node"] == "llm:rewriter"
