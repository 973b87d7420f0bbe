"""`GraphRun`: one turn's graph running as a task, its reply tokens streamed as they come.

The graph puts reply tokens (LangGraph's "custom" stream, `nodes/common.emit`) on a queue
and closes it with None; the queue tells the SSE layer whether the next token is already
here (`TokenEvent.more`). The visitor's message is written while the graph starts and
awaited before the first token goes out: nothing is answered that is not kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import cast

from langchain_core.runnables import RunnableConfig

from frontdesk.conversation.checkpoints import is_checkpoint_write_failure
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.graph import CompiledChatGraph
from frontdesk.conversation.payload import TokenEvent
from frontdesk.conversation.persistence import OpenedTurn, StoreUnavailableError
from frontdesk.conversation.state import ChatUpdate, TurnValues
from frontdesk.engines.llm.accounting import UsageMeter

log = logging.getLogger(__name__)


class GraphRun:
    """The graph's task, the tokens it streamed, its last state and the kept message."""

    def __init__(
        self,
        graph: CompiledChatGraph,
        turn_input: ChatUpdate,
        config: RunnableConfig,
        ctx: TurnContext,
        meter: UsageMeter,
        open_turn: Callable[[], Awaitable[OpenedTurn]],
        started: float,
    ) -> None:
        self.started = started  # `time.perf_counter()` when the turn came in
        self.ctx = ctx
        self.meter = meter  # every model call of this turn reports here (accounting)
        self.streamed: list[str] = []
        # The state after the last superstep: after finalize when the graph finished.
        self.values: TurnValues = {}
        self.opened: OpenedTurn | None = None
        # Neither the store nor the spool took the message: the answer is held back until
        # the turn's lead, if it carries one, has been mailed to the team (else: an error).
        self.unkept = False
        self._tokens: asyncio.Queue[str | None] = asyncio.Queue()
        self._opening = asyncio.ensure_future(open_turn())
        self._opening.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._task = asyncio.ensure_future(self._run(graph, turn_input, config))

    async def _run(
        self, graph: CompiledChatGraph, turn_input: ChatUpdate, config: RunnableConfig
    ) -> None:
        try:
            # One checkpoint per turn (at exit) instead of one per superstep: a turn that
            # fails midway is retried whole, so intermediate checkpoints buy nothing.
            async for mode, chunk in graph.astream(
                turn_input,
                config,
                context=self.ctx,
                stream_mode=["custom", "values"],
                durability="exit",
            ):
                # A stream of several modes yields untyped chunks: the writers' tokens
                # (`emit_words`) and the state's values after each superstep.
                if mode == "custom":
                    self._tokens.put_nowait(cast(dict[str, str], chunk)["token"])
                else:
                    self.values = cast(TurnValues, chunk)
        finally:
            self._tokens.put_nowait(None)

    @property
    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    @property
    def reply(self) -> str:
        return "".join(self.streamed)

    async def token_events(self) -> AsyncIterator[TokenEvent]:
        """The reply's tokens as they come, once the visitor's message is kept (none when
        it could not be kept: the caller sends the reply after the lead is safe)."""
        while (token := await self._tokens.get()) is not None:
            if not self.streamed:
                await self._keep_message()
                self.ctx.timings_ms["first_token"] = round(self.elapsed_ms, 3)
            self.streamed.append(token)
            if not self.unkept:
                yield TokenEvent(content=token, more=not self._tokens.empty())
        if not self.streamed:
            await self._keep_message()

    async def finished(self) -> None:
        """Wait for the graph; its own failure, if any, is raised here."""
        try:
            await self._task
        except Exception as exc:
            answered = bool(self.values.get("answer")) and not self.values.get("block")
            if not (answered and is_checkpoint_write_failure(exc)):
                raise
            # The answer is out and only saving the checkpoint at exit failed (its database
            # is full or gone): the turn is kept in the store or the spool like any other;
            # the next turn starts from the previous checkpoint.
            log.error("turn checkpoint not saved (%s); the turn is kept without it", exc)

    async def opened_if_kept(self) -> OpenedTurn | None:
        """The kept message, also when the graph failed before it was awaited."""
        if self.opened is None:
            with contextlib.suppress(StoreUnavailableError):
                self.opened = await self._opening
        return self.opened

    def cancel(self) -> None:
        """The visitor went away mid-turn: stop the graph too (no-op if it is done)."""
        self._task.cancel()

    async def _keep_message(self) -> None:
        try:
            self.opened = await self._opening
        except StoreUnavailableError:
            self.opened, self.unkept = None, True
