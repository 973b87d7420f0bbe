"""When the LLM writer fails (provider errors, first-token timeout, dropped stream) the
turn still ends well: seed 004 error table — a graceful message and a handoff offer
(reason `llm_failure`), persisted like any other turn."""

from __future__ import annotations

import functools
import logging
import re
from typing import Literal

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import NodeFn, Update
from frontdesk.conversation.state import ChatState
from frontdesk.engines.base import WriterUnavailableError

log = logging.getLogger(__name__)
_CITATION = re.compile(r"\s?\[\d+\]")


def handoff_on_writer_failure(fn: NodeFn) -> NodeFn:
    """Turn a `WriterUnavailableError` into the HANDOFF route with reason llm_failure."""

    @functools.wraps(fn)
    async def wrapper(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
        try:
            return await fn(state, runtime)
        except WriterUnavailableError as exc:
            log.warning(
                "llm_generation_failure",
                extra={"site": runtime.context.site.id, "error": str(exc)[:300]},
            )
            return {
                "answer": _CITATION.sub("", exc.partial).strip(),
                "citations": [],
                "route": "HANDOFF",
                "route_reason": "llm_failure",
            }

    return wrapper  # type: ignore[return-value]


def after_answer_writer(state: ChatState) -> Literal["check_answer", "propose_handoff"]:
    if state.get("route") == "HANDOFF" and state.get("route_reason") == "llm_failure":
        return "propose_handoff"
    if state.get("route") != "ANSWER":
        raise ValueError(f"unexpected route after the writer: {state.get('route')!r}")
    return "check_answer"
