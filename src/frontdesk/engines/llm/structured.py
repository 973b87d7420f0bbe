"""Structured calls: schema → validated object, with retry, per-call timeout and fallback.

Methods (EngineConfig.structured_output):
- `function_calling` — `.with_structured_output(schema, method="function_calling")`: a
  forced tool call; works with OpenAI, Azure, Anthropic, Ollama and llama.cpp's server.
- `json_schema` / `json_mode` — the same call with those methods (OpenAI and compatible).
- `json_object` — `response_format={"type": "json_object", "schema": ...}` with the
  schema also described in the prompt, parsed here; for servers where `json_schema` is
  not supported (llama.cpp) and for models without tool calling.
- `auto` — `function_calling` when the model can bind tools, else `json_object`.

Every attempt is bounded by the per-call timeout. Only failures that may pass on a second
try are retried, with exponential backoff and jitter (tenacity): timeouts, connection
errors, HTTP 408/429/5xx (`retry.is_retryable`), and a reply that is not the schema — a
sampled output, which small models in `json_object` mode get right on a second try often
enough (the llama.cpp tier showed it). A 4xx or any other failure moves on to the
fallback model at once, which gets the same policy (`StructuredCaller.invoke`). When all
of that fails the caller gets None and the job answers with the local engine instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import (
    Runnable,
    RunnableBinding,
    RunnableConfig,
    RunnableLambda,
    RunnableSequence,
)
from langchain_core.utils.function_calling import convert_to_json_schema
from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from frontdesk.engines.llm import retry
from frontdesk.sites.schema import StructuredOutput

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def supports_tools(model: BaseChatModel) -> bool:
    return type(model).bind_tools is not BaseChatModel.bind_tools


class InvalidOutputError(ValueError):
    """The model replied, but not with the requested schema."""


def is_invalid_output(exc: BaseException) -> bool:
    return isinstance(exc, InvalidOutputError | OutputParserException | ValidationError)


def should_retry(exc: BaseException) -> bool:
    """A transient failure, or an output that another sample may get right."""
    return retry.is_retryable(exc) or is_invalid_output(exc)


def parse_json_object(message: BaseMessage | str, schema: type[T]) -> T:
    """The first JSON object in a reply (code fences and chatter around it are ignored)."""
    text = message if isinstance(message, str) else message.text
    text = _FENCE.sub("", text.strip())
    start = text.find("{")
    if start < 0:
        raise InvalidOutputError(f"no JSON object in reply: {text[:80]!r}")
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise InvalidOutputError(f"reply is not JSON: {exc}") from exc
    return schema.model_validate(value)


@cache
def schema_instruction(schema: type[BaseModel]) -> str:
    return (
        "Reply with ONLY a JSON object (no prose) that matches this JSON schema; write "
        "the fields in order, reasoning first:\n"
        + json.dumps(schema.model_json_schema(), ensure_ascii=False)
    )


@cache
def trace_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The schema as LangChain records it in a call's trace metadata, built once."""
    return convert_to_json_schema(schema)


def with_prebuilt_trace_schema(
    runnable: Runnable[Any, Any], schema: type[BaseModel]
) -> Runnable[Any, Any]:
    """`with_structured_output` binds the pydantic class as `ls_structured_output_format`,
    and LangChain converts it to a JSON schema again on EVERY call (pydantic's
    `model_json_schema`: 6–11 % of an LLM turn's event-loop CPU). Bound to the dict
    instead, the same conversion is a shallow copy with an identical result. Anything
    shaped differently is returned as it is."""
    if not isinstance(runnable, RunnableSequence) or not isinstance(
        runnable.first, RunnableBinding
    ):
        return runnable
    binding = runnable.first
    recorded = binding.kwargs.get("ls_structured_output_format")
    if not isinstance(recorded, dict) or recorded.get("schema") is not schema:
        return runnable
    prebuilt = binding.bind(
        ls_structured_output_format={**recorded, "schema": trace_schema(schema)}
    )
    return RunnableSequence(prebuilt, *runnable.middle, runnable.last)


def structured_runnable(
    model: BaseChatModel, schema: type[T], method: StructuredOutput
) -> Runnable[Sequence[BaseMessage], T]:
    chosen = method
    if method == "auto":
        chosen = "function_calling" if supports_tools(model) else "json_object"
    if chosen == "json_object":
        bound = model.bind(
            response_format={"type": "json_object", "schema": schema.model_json_schema()}
        )

        def parse(message: AIMessage) -> T:
            return parse_json_object(message, schema)

        return bound | RunnableLambda(parse)  # type: ignore[return-value]
    runnable: Runnable[Sequence[BaseMessage], T] = with_prebuilt_trace_schema(
        model.with_structured_output(schema, method=chosen), schema
    )
    return runnable


def _retry_wait(state: RetryCallState) -> float:
    return retry.RETRY_WAIT(state)  # looked up per call, so tests can stub the pause


class StructuredCaller:
    """Calls one role's model (and the fallback model) for structured outputs.

    The retries (tenacity) and the fallback are plain code around one runnable per model
    and schema (built once): LangChain's `.with_retry` / `.with_fallbacks` and a lambda
    around each attempt cost a callback run each and a signature inspection per call,
    as much CPU as the model call's own LangChain overhead."""

    def __init__(
        self,
        model: BaseChatModel,
        *,
        fallback: BaseChatModel | None = None,
        method: StructuredOutput = "auto",
        attempts: int = 3,
        timeout_s: float = 30.0,
    ) -> None:
        self.model = model
        self.fallback = fallback
        self.method = method
        self.attempts = max(1, attempts)
        self.timeout_s = timeout_s
        self.models = [model] if fallback is None or fallback is model else [model, fallback]
        self._cache: dict[tuple[int, type[BaseModel]], Runnable[Sequence[BaseMessage], Any]] = {}

    def _uses_json_prompt(self, model: BaseChatModel) -> bool:
        return self.method in ("json_object", "json_mode") or (
            self.method == "auto" and not supports_tools(model)
        )

    def _runnable(self, index: int, schema: type[T]) -> Runnable[Sequence[BaseMessage], T]:
        key = (index, schema)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = structured_runnable(self.models[index], schema, self.method)
        return cached

    async def _attempt(
        self, index: int, schema: type[T], messages: list[BaseMessage], config: RunnableConfig
    ) -> T:
        if (
            messages
            and isinstance(messages[0], SystemMessage)
            and self._uses_json_prompt(self.models[index])
        ):
            system = f"{messages[0].text}\n\n{schema_instruction(schema)}"
            messages = [SystemMessage(content=system), *messages[1:]]
        async with asyncio.timeout(self.timeout_s):
            result = await self._runnable(index, schema).ainvoke(messages, config)
        if not isinstance(result, schema):  # e.g. a parser that returned None
            raise InvalidOutputError(f"invalid {schema.__name__}: {result!r}")
        return result

    async def invoke(
        self, schema: type[T], messages: Sequence[BaseMessage], config: RunnableConfig
    ) -> T:
        """Up to `attempts` tries on the model while its failures are retryable, with
        backoff between them, then the same on the fallback model, each bounded by the
        per-call timeout. When none validates, the model's last error is raised (as
        `.with_retry().with_fallbacks()` would)."""
        sent = list(messages)
        tags = list(config.get("tags") or [])
        errors: list[Exception] = []
        for index in range(len(self.models)):
            attempts = AsyncRetrying(
                stop=stop_after_attempt(self.attempts),
                wait=_retry_wait,
                retry=retry_if_exception(should_retry),
                reraise=True,
            )
            try:
                async for attempt in attempts:
                    with attempt:
                        number = attempt.retry_state.attempt_number
                        tagged = config
                        if number > 1:  # LangChain's RunnableRetry tags retries the same way
                            tagged = {**config, "tags": [*tags, f"retry:attempt:{number}"]}
                        return await self._attempt(index, schema, sent, tagged)
            except Exception as exc:
                errors.append(exc)
        raise errors[0]

    async def __call__(
        self, schema: type[T], messages: Sequence[BaseMessage], job: str
    ) -> T | None:
        try:
            result: T = await self.invoke(
                schema, messages, {"run_name": job, "tags": [f"job:{job}"]}
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning(
                "llm job failed; the local engine answers",
                extra={"job": job, "error": f"{type(exc).__name__}: {exc}"[:300]},
            )
            return None
        return result
