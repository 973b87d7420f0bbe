"""Structured calls: retries (of retryable failures only) and the fallback keep
`.with_retry().with_fallbacks()` semantics, and the JSON schema LangChain records per call
is built once."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableSequence
from langchain_core.utils.function_calling import convert_to_json_schema
from pydantic import BaseModel
from tenacity import RetryCallState

from frontdesk.engines.llm import schemas
from frontdesk.engines.llm.retry import RETRY_WAIT
from frontdesk.engines.llm.schemas import IntentOutput, QueryOutput
from frontdesk.engines.llm.structured import (
    InvalidOutputError,
    StructuredCaller,
    schema_instruction,
    should_retry,
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
    """Backoff pauses are computed and recorded, not slept (tenacity also computes the one
    after the last attempt, which it does not sleep)."""
    waits: list[float] = []

    def wait(state: RetryCallState) -> float:
        waits.append(RETRY_WAIT(state))
        return 0.0

    monkeypatch.setattr("frontdesk.engines.llm.retry.RETRY_WAIT", wait)
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


async def test_retryable_errors_are_retried_then_fallback_then_the_first_error(
    no_backoff: list[float],
) -> None:
    model = ScriptedChatModel(
        outcomes=[ConnectionError("a"), TimeoutError("b"), ConnectionError("c")], model_name="m"
    )
    backup = ScriptedChatModel(outcomes=[ConnectionError("d"), ValueError("e")], model_name="f")
    caller = StructuredCaller(model, fallback=backup, method="function_calling", attempts=3)
    tags = Tags()
    with pytest.raises(ConnectionError, match="c"):  # the model's last error, as with_fallbacks
        await caller.invoke(QueryOutput, [HumanMessage("x")], {"callbacks": [tags]})
    assert not model.outcomes and not backup.outcomes
    assert 0.2 <= no_backoff[0] <= 0.3 and 0.4 <= no_backoff[1] <= 0.5  # backoff, jitter
    assert tags.calls == [
        [], ["retry:attempt:2"], ["retry:attempt:3"], [], ["retry:attempt:2"]
    ]  # fmt: skip


async def test_a_failure_that_is_not_retryable_goes_straight_to_the_fallback(
    no_backoff: list[float],
) -> None:
    model = ScriptedChatModel(outcomes=[RuntimeError("bad request"), query("unused")])
    backup = ScriptedChatModel(outcomes=[query("from the fallback")], model_name="f")
    caller = StructuredCaller(model, fallback=backup, method="function_calling", attempts=3)
    result = await caller.invoke(QueryOutput, [HumanMessage("x")], {})
    assert result.query == "from the fallback"
    assert len(model.outcomes) == 1 and no_backoff == []  # tried once, no pause


async def test_job_tag_reaches_every_attempt_and_a_late_success_wins() -> None:
    model = ScriptedChatModel(outcomes=[Slow(5, query()), query("second")], model_name="m")
    caller = StructuredCaller(model, method="function_calling", attempts=3, timeout_s=0.05)
    tags = Tags()
    result = await caller.invoke(
        QueryOutput, [HumanMessage("x")], {"callbacks": [tags], "tags": ["job:query_rewriter"]}
    )
    assert result.query == "second"
    assert tags.calls == [["job:query_rewriter"], ["job:query_rewriter", "retry:attempt:2"]]


async def test_wrong_schema_is_sampled_again_then_none_means_local() -> None:
    wrong = IntentOutput(reasoning="r", intent="LEARN", confidence=0.5)
    model = ScriptedChatModel(outcomes=[wrong, wrong, wrong], model_name="m")
    caller = StructuredCaller(model, method="function_calling", attempts=2)
    assert await caller(QueryOutput, [HumanMessage("x")], "query_rewriter") is None
    assert len(model.outcomes) == 1  # two samples, both wrong: the local engine answers


async def test_a_second_sample_that_fits_the_schema_wins() -> None:
    wrong = IntentOutput(reasoning="r", intent="LEARN", confidence=0.5)
    model = ScriptedChatModel(outcomes=[wrong, query("second")], model_name="m")
    caller = StructuredCaller(model, method="function_calling", attempts=2)
    result = await caller(QueryOutput, [HumanMessage("x")], "query_rewriter")
    assert result is not None and result.query == "second"


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (InvalidOutputError("no JSON object in reply"), True),
        (OutputParserException("not json"), True),
        (ValueError("a bug, not an output"), False),
    ],
)
def test_invalid_outputs_are_sampled_again_other_errors_are_not(
    error: Exception, retried: bool
) -> None:
    assert should_retry(error) is retried


async def test_json_object_prompt_gets_the_schema_on_every_model() -> None:
    model = FakeListChatModel(responses=["no json"])
    backup = FakeListChatModel(responses=['{"reasoning": "r", "query": "sso"}'])
    caller = StructuredCaller(model, fallback=backup, method="auto", attempts=2)
    messages = [SystemMessage("You rewrite."), HumanMessage("x")]
    seen = Tags()
    result = await caller.invoke(QueryOutput, messages, {"callbacks": [seen]})
    assert result.query == "sso"
    expected = f"You rewrite.\n\n{schema_instruction(QueryOutput)}"
    # Two samples of the model (neither is JSON), then the fallback: each with the schema.
    assert [prompt[0].text for prompt in seen.prompts] == [expected, expected, expected]
    assert messages[0].text == "You rewrite."  # the caller's messages are left alone
    assert schema_instruction(QueryOutput) is schema_instruction(QueryOutput)
