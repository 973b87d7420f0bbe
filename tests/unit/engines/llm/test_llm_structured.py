"""Structured calls: the retry loop and the fallback keep `.with_retry().with_fallbacks()`
semantics, and the JSON schema LangChain records per call is built once."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableSequence
from langchain_core.utils.function_calling import convert_to_json_schema
from pydantic import BaseModel
from tenacity import RetryCallState, wait_exponential_jitter

from frontdesk.engines.llm import schemas
from frontdesk.engines.llm.schemas import IntentOutput, QueryOutput
from frontdesk.engines.llm.structured import (
    RETRY_WAIT,
    StructuredCaller,
    retry_wait_s,
    schema_instruction,
    structured_runnable,
    trace_schema,
)
from tests.support.scripted import ScriptedChatModel, Slow

pytestmark = pytest.mark.unit

SCHEMAS: list[type[BaseModel]] = [
    schemas.IntentOutput,
    schemas.SignalsOutput,
    schemas.SkillsOutput,
    schemas.QueryOutput,
    schemas.GradeOutput,
    schemas.VerificationOutput,
    schemas.EvaluationOutput,
    schemas.SuggestionsOutput,
]


class Tags(BaseCallbackHandler):
    """The tags and the messages of every chat model call."""

    run_inline = True

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.calls.append([tag for tag in tags or [] if not tag.startswith("seq:")])
        self.prompts.append(messages[0])


def query(text: str = "q") -> QueryOutput:
    return QueryOutput(reasoning="r", query=text)


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Backoff pauses are recorded, not slept."""
    waits: list[float] = []

    def wait(failed_attempts: int) -> float:
        waits.append(retry_wait_s(failed_attempts))
        return 0.0

    monkeypatch.setattr("frontdesk.engines.llm.structured.retry_wait_s", wait)
    return waits


def test_recorded_schema_is_built_once_and_converts_the_same() -> None:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-4.1-nano", api_key="sk-test", base_url="http://127.0.0.1:9/v1")  # type: ignore[arg-type]
    for schema in SCHEMAS:
        original = model.with_structured_output(schema, method="function_calling")
        prebuilt = structured_runnable(model, schema, "function_calling")
        assert isinstance(original, RunnableSequence) and isinstance(prebuilt, RunnableSequence)
        before, after = original.first.kwargs, prebuilt.first.kwargs  # type: ignore[attr-defined]
        recorded = after["ls_structured_output_format"]
        assert recorded["schema"] is trace_schema(schema)  # one dict per schema
        assert convert_to_json_schema(recorded["schema"]) == convert_to_json_schema(schema)
        assert recorded["kwargs"] == before["ls_structured_output_format"]["kwargs"]
        others = {k: v for k, v in before.items() if k != "ls_structured_output_format"}
        assert others == {k: v for k, v in after.items() if k != "ls_structured_output_format"}
        assert type(prebuilt.last) is type(original.last)  # the same parser


def test_backoff_is_tenacity_exponential_jitter() -> None:
    params = {k: v for k, v in RETRY_WAIT.items() if k != "initial"}
    with pytest.warns(DeprecationWarning):  # `initial` is tenacity's old name of the multiplier
        reference = wait_exponential_jitter(initial=RETRY_WAIT["initial"], **params)
    for failed in (1, 2, 3, 6):
        state = RetryCallState(None, None, (), {})
        state.attempt_number = failed
        random.seed(failed)
        expected = reference(state)
        random.seed(failed)
        assert retry_wait_s(failed) == expected


async def test_retries_then_fallback_then_the_first_error(no_backoff: list[float]) -> None:
    model = ScriptedChatModel(outcomes=[ConnectionError("a"), RuntimeError("b")], model_name="m")
    backup = ScriptedChatModel(outcomes=[ValueError("c"), ValueError("d")], model_name="f")
    caller = StructuredCaller(model, fallback=backup, method="function_calling", attempts=2)
    tags = Tags()
    with pytest.raises(RuntimeError, match="b"):  # the model's last error, as with_fallbacks
        await caller.invoke(QueryOutput, [HumanMessage("x")], {"callbacks": [tags]})
    assert not model.outcomes and not backup.outcomes
    assert len(no_backoff) == 2 and all(0.2 <= w <= 0.3 for w in no_backoff)
    assert tags.calls == [[], ["retry:attempt:2"], [], ["retry:attempt:2"]]


async def test_job_tag_reaches_every_attempt_and_a_late_success_wins() -> None:
    model = ScriptedChatModel(outcomes=[Slow(5, query()), query("second")], model_name="m")
    caller = StructuredCaller(model, method="function_calling", attempts=3, timeout_s=0.05)
    tags = Tags()
    result = await caller.invoke(
        QueryOutput, [HumanMessage("x")], {"callbacks": [tags], "tags": ["job:query_rewriter"]}
    )
    assert result.query == "second"
    assert tags.calls == [["job:query_rewriter"], ["job:query_rewriter", "retry:attempt:2"]]


async def test_wrong_schema_is_retried_and_none_means_local() -> None:
    wrong = IntentOutput(reasoning="r", intent="LEARN", confidence=0.5)
    model = ScriptedChatModel(outcomes=[wrong, wrong], model_name="m")
    caller = StructuredCaller(model, method="function_calling", attempts=2)
    assert await caller(QueryOutput, [HumanMessage("x")], "query_rewriter") is None
    assert not model.outcomes


async def test_json_object_prompt_gets_the_schema_each_attempt() -> None:
    model = FakeListChatModel(responses=["no json", '{"reasoning": "r", "query": "sso"}'])
    caller = StructuredCaller(model, method="auto", attempts=2)
    messages = [SystemMessage("You rewrite."), HumanMessage("x")]
    seen = Tags()
    result = await caller.invoke(QueryOutput, messages, {"callbacks": [seen]})
    assert result.query == "sso"
    expected = f"You rewrite.\n\n{schema_instruction(QueryOutput)}"
    assert [prompt[0].text for prompt in seen.prompts] == [expected, expected]
    assert messages[0].text == "You rewrite."  # the caller's messages are left alone
    assert schema_instruction(QueryOutput) is schema_instruction(QueryOutput)
