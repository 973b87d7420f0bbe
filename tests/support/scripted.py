"""A scripted chat model: each call takes the next outcome of a list (STYLE.md,
chat-langchain) — a pydantic value (answered as a forced tool call), a text (streamed
word by word), an exception (raised), `Slow(seconds, then)` or `Drop(after, text)` (the
stream breaks after `after` words). Failure paths are as easy to test as success.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field


@dataclass(frozen=True)
class Slow:
    seconds: float
    then: Any


@dataclass(frozen=True)
class Drop:
    after: int
    text: str


class ScriptedChatModel(BaseChatModel):
    outcomes: list[Any] = Field(default_factory=list)
    model_name: str = "scripted"
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "scripted"
        params["ls_model_name"] = self.model_name
        return params

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self

    def _next(self, messages: list[BaseMessage]) -> Any:
        self.seen.append(list(messages))
        if not self.outcomes:
            raise RuntimeError(f"{self.model_name}: script exhausted")
        return self.outcomes.pop(0)

    @staticmethod
    def _message(outcome: Any) -> AIMessage:
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        if isinstance(outcome, BaseException):
            raise outcome
        if isinstance(outcome, BaseModel):
            call = {"name": type(outcome).__name__, "args": outcome.model_dump(), "id": "call_1"}
            return AIMessage(content="", tool_calls=[call], usage_metadata=usage)  # type: ignore[arg-type,list-item]
        return AIMessage(content=str(outcome), usage_metadata=usage)  # type: ignore[arg-type]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        outcome = self._next(messages)
        if isinstance(outcome, Slow):
            outcome = outcome.then
        return ChatResult(generations=[ChatGeneration(message=self._message(outcome))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        outcome = self._next(messages)
        if isinstance(outcome, Slow):
            await asyncio.sleep(outcome.seconds)
            outcome = outcome.then
        return ChatResult(generations=[ChatGeneration(message=self._message(outcome))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        raise NotImplementedError("ScriptedChatModel streams asynchronously only")

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        outcome = self._next(messages)
        if isinstance(outcome, Slow):
            await asyncio.sleep(outcome.seconds)
            outcome = outcome.then
        if isinstance(outcome, BaseException):
            raise outcome
        drop_after = outcome.after if isinstance(outcome, Drop) else None
        text = outcome.text if isinstance(outcome, Drop) else str(outcome)
        words = [w + " " for w in text.split(" ")]
        words[-1] = words[-1].rstrip()
        for index, word in enumerate(words):
            if drop_after is not None and index >= drop_after:
                raise ConnectionError("scripted stream dropped")
            await asyncio.sleep(0)
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))
