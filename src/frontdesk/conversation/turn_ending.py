"""`TurnEnding`: how a turn that ran through the graph is kept and acknowledged.

An answered turn is written (store, else spool); a lead (a handoff or a captured e-mail)
that neither could keep is mailed to the fallback address directly, and the answer is
held back until then. A lead kept outside the store ends its answer with a note saying so
(`conversation/leads_in_outage.py`). Blocked and relayed turns are remembered without a
bot reply; a failed turn keeps what was streamed and the fallback text.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from frontdesk.conversation.graph_run import GraphRun
from frontdesk.conversation.leads_in_outage import lead_kept_note, mail_owed_lead, owed_handoff
from frontdesk.conversation.outcomes import after_kept_turn, live_handoff_route
from frontdesk.conversation.payload import (
    CompleteEvent,
    ErrorEvent,
    RelayedEvent,
    TokenEvent,
    TurnEvent,
    TurnResult,
)
from frontdesk.conversation.persistence import OpenedTurn, StoreUnavailableError, TurnRecord
from frontdesk.conversation.result import build_result
from frontdesk.conversation.state import TurnValues
from frontdesk.conversation.texts import say
from frontdesk.conversation.vocabulary import Block, Routing
from frontdesk.sites.registry import LoadedSite

if TYPE_CHECKING:
    from frontdesk.conversation.service import ChatService

log = logging.getLogger(__name__)

BLOCK_ROUTING: dict[Block, Routing] = {
    "hack": "out_of_scope",
    "spam": "irrelevant",
    "length": "out_of_scope",
}


@dataclass
class TurnEnding:
    """One turn's ending, read through the service (tests swap its writer and desk)."""

    service: ChatService
    site: LoadedSite
    session_id: str
    message: str
    run: GraphRun

    @property
    def values(self) -> TurnValues:
        return self.run.values

    async def answered(self) -> AsyncIterator[TurnEvent]:
        """The answered turn kept (store, spool, else its lead mailed), then acknowledged."""
        run, writer = self.run, self.service.writer
        result = build_result(self.values, self.session_id)
        if not result.turn and run.opened and run.opened.turn:  # the state before finalize
            result = result.model_copy(update={"turn": run.opened.turn})  # (checkpoint lost)
        record = self._record(result)
        try:
            kept: str = await asyncio.to_thread(writer.write, record, run.opened)
        except StoreUnavailableError:
            if not await self._mail_lead(run.opened):
                raise
            kept = "mail"
        if kept == "store":
            self.service.exporter.export(record)  # only stored turns are exported
        if run.unkept:  # held back until the turn was kept
            yield TokenEvent(content=run.reply, more=kept != "store")
        note = record.spooled_note
        if kept != "store" and note:
            yield TokenEvent(content="\n\n" + note, more=False)
            result = result.model_copy(update={"answer": f"{result.answer}\n\n{note}"})
        if after_kept_turn(self.values.get("route_reason")) == "ring_operators":
            await self._ring_operators()
        yield CompleteEvent(result=result)

    async def blocked(self) -> TurnEvent:
        """A blocked turn cost no model or retrieval call, but is remembered."""
        values, config = self.values, self.site.config
        kind = values.get("block")
        assert kind is not None  # a blocked turn
        result = TurnResult(
            answer=values.get("answer") or "",
            routing=BLOCK_ROUTING[kind],
            route="BLOCKED",
            intent="HACK" if kind == "hack" else "OTHER",
            language=values.get("language") or config.default_language,
            session_id=self.session_id,
            turn=int(values.get("turn_number") or 0),
        )
        await asyncio.to_thread(
            self.service.writer.write_blocked,
            config,
            self.session_id,
            self.message,
            result,
            kind,
            self.run.opened,
        )
        return CompleteEvent(result=result)

    async def relayed(self) -> TurnEvent:
        """A message a person will answer: kept in the transcript, no bot reply."""
        values, config = self.values, self.site.config
        result = TurnResult(
            answer="",
            routing="answered",
            route="HUMAN",
            intent="OTHER",
            language=values.get("language") or config.default_language,
            session_id=self.session_id,
            turn=int(values.get("turn_number") or 0),
        )
        await asyncio.to_thread(
            self.service.writer.write_relayed,
            config,
            self.session_id,
            self.message,
            result,
            self.run.opened,
        )
        return RelayedEvent(result=result, event_id=int(values.get("relayed") or 0))

    def unkept(self, exc: StoreUnavailableError) -> TurnEvent:
        """Nothing could keep this turn: say so instead of acknowledging it."""
        log.error("turn not kept (%s)", exc, extra={"site": self.site.config.id})
        return ErrorEvent(code="store_unavailable", message=self._fallback_text())

    async def failed(self) -> TurnEvent:
        """A turn that failed midway: what was streamed and the fallback text are kept, and
        a handoff it had already proposed too (mailed when nothing else can keep it)."""
        text = self._fallback_text()
        opened = await self.run.opened_if_kept()
        try:
            await asyncio.to_thread(
                self.service.writer.write_failure,
                self.site.config,
                self.session_id,
                self.message,
                self.run.reply,
                text,
                opened,
                self.values,
            )
        except StoreUnavailableError:
            await self._mail_lead(opened)
        return ErrorEvent(code="turn_failed", message=text)

    def _record(self, result: TurnResult) -> TurnRecord:
        run, config = self.run, self.site.config
        ctx, usage = run.ctx, run.meter.usage
        return TurnRecord(
            site=config,
            session_id=self.session_id,
            message=self.message,
            result=result,
            values=run.values,
            timings_ms=dict(ctx.timings_ms),
            latency_ms=run.elapsed_ms,
            engine=ctx.engines.name,
            model=usage.model,
            prompt_version=ctx.engines.prompt_version,
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            cost_usd=usage.cost_usd,
            llm_calls=usage.as_nodes(),
            # Kept in the spool or mailed, a lead is noted but nobody can join the chat.
            spooled_note=lead_kept_note(run.values, config) if owed_handoff(run.values) else "",
        )

    async def _ring_operators(self) -> None:
        """Ring the operators online (business hours), else the visitor hears it goes the
        asynchronous way (`outcomes.live_handoff_route`)."""
        config = self.site.config
        try:
            await self.service.live.offer_person(config, self.session_id, policy=live_handoff_route)
        except Exception:
            log.exception("ringing operators failed", extra={"site": config.id})

    def _fallback_text(self) -> str:
        config = self.site.config
        language = self.values.get("language") or config.default_language
        return say("error.fallback", language, tone=config.tone)

    async def _mail_lead(self, opened: OpenedTurn | None) -> bool:
        """The last path for a lead neither the store nor the spool could keep."""
        return await mail_owed_lead(
            self.service.runtime.settings,
            self.site.config,
            session_id=self.session_id,
            turn=opened.turn if opened and opened.turn else 0,
            key=opened.key if opened else uuid.uuid4().hex,
            message=self.message,
            values=self.values,
        )
