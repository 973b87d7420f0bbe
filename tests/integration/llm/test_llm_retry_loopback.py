"""Structured calls over real HTTP (the stock OpenAI client against the loopback simulator):
a 4xx is sent exactly once, then the fallback model or the error; a 5xx, a 429 or a
timeout is sent again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from frontdesk.engines.llm.config import ResolvedEngine
from frontdesk.engines.llm.models import build_chat_model
from frontdesk.engines.llm.schemas import QueryOutput
from frontdesk.engines.llm.structured import StructuredCaller
from tests.support.simulator import SimulatedProvider

pytestmark = pytest.mark.integration

QUERY = {"reasoning": "standalone", "query": "SAML single sign-on"}
MESSAGES = [SystemMessage("You rewrite search queries."), HumanMessage("and SAML?")]


@pytest.fixture
def provider() -> Iterator[SimulatedProvider]:
    def structured(name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        return dict(QUERY) if name == "QueryOutput" else None

    with SimulatedProvider(structured=structured) as sim:
        yield sim


@pytest.fixture(autouse=True)
def short_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("frontdesk.engines.llm.retry.RETRY_WAIT", lambda state: 0.01)


def caller(sim: SimulatedProvider, *, fallback: bool = False, timeout_s: float = 5) -> Any:
    engine = ResolvedEngine(
        name="llm",
        roles={"fast": "openai:main", "main": "openai:main", "judge": "openai:main"},
        routing_mode="llm",
        hybrid_confidence=0.6,
        base_url=sim.base_url,
        timeout_s=timeout_s,
    )
    return StructuredCaller(
        build_chat_model("openai:main", engine),
        fallback=build_chat_model("openai:backup", engine) if fallback else None,
        method="function_calling",
        attempts=3,
        timeout_s=timeout_s,
    )


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_a_client_error_is_sent_once_then_raised(
    provider: SimulatedProvider, status: int
) -> None:
    provider.script("main", f"error:{status}", "ok", "ok")
    with pytest.raises(openai.APIStatusError) as caught:
        await caller(provider).invoke(QueryOutput, MESSAGES, {})
    assert caught.value.status_code == status
    assert provider.calls("main") == 1


@pytest.mark.parametrize("status", [400, 401, 422])
async def test_a_client_error_goes_straight_to_the_fallback(
    provider: SimulatedProvider, status: int
) -> None:
    provider.script("main", f"error:{status}", "ok", "ok")
    result = await caller(provider, fallback=True).invoke(QueryOutput, MESSAGES, {})
    assert result == QueryOutput(**QUERY)
    assert (provider.calls("main"), provider.calls("backup")) == (1, 1)


@pytest.mark.parametrize("status", [429, 500, 502, 503])
async def test_a_server_error_or_rate_limit_is_retried(
    provider: SimulatedProvider, status: int
) -> None:
    provider.script("main", f"error:{status}", f"error:{status}")
    result = await caller(provider, fallback=True).invoke(QueryOutput, MESSAGES, {})
    assert result == QueryOutput(**QUERY)
    assert (provider.calls("main"), provider.calls("backup")) == (3, 0)


async def test_retries_stop_after_the_attempts_then_the_fallback(
    provider: SimulatedProvider,
) -> None:
    provider.script("main", "error:500", "error:429", "error:503")
    result = await caller(provider, fallback=True).invoke(QueryOutput, MESSAGES, {})
    assert result == QueryOutput(**QUERY)
    assert (provider.calls("main"), provider.calls("backup")) == (3, 1)


async def test_a_timeout_is_retried(provider: SimulatedProvider) -> None:
    provider.script("main", "slow:2")
    result = await caller(provider, timeout_s=0.5).invoke(QueryOutput, MESSAGES, {})
    assert result == QueryOutput(**QUERY)
    assert provider.calls("main") == 2


async def test_an_invalid_output_is_sampled_again_on_the_same_model(
    provider: SimulatedProvider,
) -> None:
    provider.script("main", "garbage", "ok")
    result = await caller(provider, fallback=True).invoke(QueryOutput, MESSAGES, {})
    assert result == QueryOutput(**QUERY)
    assert (provider.calls("main"), provider.calls("backup")) == (2, 0)
