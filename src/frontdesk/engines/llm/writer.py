"""The streaming answer writer: tokens as the model produces them, a first-token
timeout, retries and the fallback model before the first token, and
`WriterUnavailableError` when nothing works (the graph then answers with the
fallback message and a handoff offer).

Streaming does not go through `.with_retry` (RunnableRetry does not retry streams) nor
`.with_fallbacks` (it cannot bound the wait for the first token), so the attempt loop is
here: `attempts` tries on the writer model, then `attempts` on the fallback model. A
failure that is not retryable (a 4xx: `retry.is_retryable`) ends that model's tries at
once.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Sequence
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from frontdesk.conversation.register import address_instruction
from frontdesk.engines.base import AnswerRequest, WriterUnavailableError
from frontdesk.engines.llm.messages import (
    format_passages,
    history_messages,
    passage_scrubber,
    visitor_message,
)
from frontdesk.engines.llm.prompts import PromptBook
from frontdesk.engines.llm.retry import is_retryable
from frontdesk.guard.pii import PiiScrubber, StreamRestorer

log = logging.getLogger(__name__)

Complexity = Literal["simple", "complex"]
_COMPLEX = re.compile(
    r"\b(compare|comparison|difference|differ|versus|vs\.?|why|explain|trade-?offs?|"
    r"step[- ]by[- ]step|migrat\w*|architecture|сравн\w*|почему|объясн\w*|unterschied|warum|"
    r"diff[ée]rence|pourquoi|diferencia|por qu[ée]|differenza|perch[ée]|verschil|waarom)\b",
    re.IGNORECASE,
)
SKILL_ENDINGS = {
    "propose_demo": "End by inviting the visitor to talk to the team (a button sits below).",
    "collect_email": "End by offering to send more details by email.",
    "ask_profiling_question": "End with one short question about the visitor's company.",
    "share_case_study": "Mention a relevant customer story if a passage has one.",
    "suggest_follow_up": "",
}


def classify_complexity(question: str, chunks_count: int = 0) -> Complexity:
    """Question complexity, without a model call: long, multi-part, comparative
    or explanatory questions are complex; the rest are simple."""
    if len(question) > 160 or question.count("?") > 1 or _COMPLEX.search(question):
        return "complex"
    return "complex" if chunks_count > 5 and len(question) > 80 else "simple"


class LLMAnswerWriter:
    translates = True  # the answer is written in the visitor's language, whatever the passages'

    def __init__(
        self,
        prompts: PromptBook,
        main: BaseChatModel,
        *,
        fast: BaseChatModel | None = None,
        fallback: BaseChatModel | None = None,
        attempts: int = 2,
        first_token_timeout_s: float = 8.0,
        idle_timeout_s: float = 30.0,
        complexity_routing: bool = False,
        retry_wait_s: float = 0.2,
    ) -> None:
        self.prompts = prompts
        self.main = main
        self.fast = fast
        self.fallback = fallback
        self.attempts = max(1, attempts)
        self.first_token_timeout_s = first_token_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.complexity_routing = complexity_routing
        self.retry_wait_s = retry_wait_s

    def plan(self, request: AnswerRequest) -> list[BaseChatModel]:
        writer = self.main
        if (
            self.complexity_routing
            and self.fast is not None
            and classify_complexity(request.question, len(request.chunks)) == "simple"
        ):
            writer = self.fast
        models = [writer] * self.attempts
        if self.fallback is not None and self.fallback is not writer:
            models += [self.fallback] * self.attempts
        return models

    def messages(self, request: AnswerRequest, scrubber: PiiScrubber) -> list[BaseMessage]:
        endings = [SKILL_ENDINGS.get(skill, "") for skill in request.skills]
        if request.pricing_reply:  # the site's own pricing policy, from its configuration
            endings.insert(0, f"If asked about prices, reply with: {request.pricing_reply}")
        system = self.prompts.system(
            "answer_writer",
            language=request.language,
            address=address_instruction(request.tone),
            skills="\n".join(f"- {e}" for e in endings if e),
        )
        question = visitor_message(request.question, scrubber)
        return [
            SystemMessage(content=system),
            *history_messages(request.history, scrubber),
            HumanMessage(content=f"{format_passages(request.chunks)}\n\n{question}"),
        ]

    async def write(self, request: AnswerRequest) -> AsyncIterator[str]:
        scrubber = passage_scrubber(request.chunks)
        messages = self.messages(request, scrubber)
        restorer = StreamRestorer(scrubber)
        sent: list[str] = []
        errors: list[str] = []
        given_up: BaseChatModel | None = None  # its last failure would recur
        for attempt, model in enumerate(self.plan(request)):
            if model is given_up:
                continue
            if attempt:
                await asyncio.sleep(self.retry_wait_s * attempt)
            try:
                async for piece in self._stream(model, messages):
                    text = restorer.feed(piece)
                    if text:
                        sent.append(text)
                        yield text
                tail = restorer.flush()
                if tail:
                    yield tail
                if sent:
                    return
                errors.append("empty reply")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
                if sent:  # words already reached the visitor: no silent restart
                    log.warning("writer stream dropped", extra={"error": errors[-1]})
                    raise WriterUnavailableError("stream dropped", partial="".join(sent)) from exc
                log.info("writer attempt %d failed: %s", attempt + 1, errors[-1])
                if not is_retryable(exc):
                    given_up = model
        log.warning("writer unavailable", extra={"errors": errors})
        raise WriterUnavailableError("; ".join(errors) or "no writer model")

    async def _stream(
        self, model: BaseChatModel, messages: Sequence[BaseMessage]
    ) -> AsyncIterator[str]:
        """Text pieces of one attempt; the first must arrive within the first-token timeout."""
        stream = model.astream(
            list(messages), {"run_name": "answer_writer", "tags": ["job:answer_writer"]}
        )
        try:
            first = ""
            async with asyncio.timeout(self.first_token_timeout_s):
                while not first:
                    first = (await anext(stream)).text
            yield first
            while True:
                async with asyncio.timeout(self.idle_timeout_s):
                    try:
                        chunk = await anext(stream)
                    except StopAsyncIteration:
                        return
                if chunk.text:
                    yield chunk.text
        except StopAsyncIteration:
            return  # ended before any text: the caller sees an empty reply
        finally:
            await stream.aclose()  # type: ignore[attr-defined]
