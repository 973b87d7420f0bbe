"""`ChatService`: runs turns through the graph — abuse gate first, persistence last.

Persistence brackets the answer: the visitor's message is kept (store, else spool) before
the first token goes out, and the finished turn after the graph. A lead (a handoff or a
captured e-mail) that neither the store nor the spool could keep is mailed to the fallback
address directly; the answer is held back until then. A lead kept outside the store ends
its answer with a note saying so (`conversation/leads_in_outage.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from frontdesk.conversation.checkpoints import (
    Checkpointer,
    is_checkpoint_write_failure,
    open_checkpointer,
)
from frontdesk.conversation.context import OperatorsOnline, Relay, TurnContext
from frontdesk.conversation.graph import FINISHED_TURN_NODE, compile_graph
from frontdesk.conversation.leads_in_outage import lead_kept_note, mail_owed_lead, owed_handoff
from frontdesk.conversation.nodes.common import TEAM_MEMBER
from frontdesk.conversation.outcomes import LIVE_RING_REASONS, live_handoff_route
from frontdesk.conversation.payload import (
    CompleteEvent,
    ErrorEvent,
    RelayedEvent,
    TokenEvent,
    TurnEvent,
    TurnResult,
    VisitorContext,
)
from frontdesk.conversation.persistence import (
    OpenedTurn,
    StoreUnavailableError,
    TurnRecord,
    TurnWriter,
)
from frontdesk.conversation.result import TURN_RESET, build_result
from frontdesk.conversation.spool import Spool
from frontdesk.conversation.texts import say
from frontdesk.engines.base import Engines
from frontdesk.engines.factory import SiteEngines
from frontdesk.engines.llm.accounting import UsageMeter
from frontdesk.enrichment import Enricher, enrichment_cache_for
from frontdesk.knowledge.search.query_cache import query_cache_for
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.observability.tracing import build_exporter, langfuse_callbacks
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite
from frontdesk.sites.schema import SiteConfig
from frontdesk.takeover.desk import TakeoverDesk

log = logging.getLogger(__name__)

BLOCK_ROUTING = {"hack": "out_of_scope", "spam": "irrelevant", "length": "out_of_scope"}


def thread_id(site_id: str, session_id: str) -> str:
    return f"{site_id}:{session_id}"


class ChatService:
    """The conversation backend of the API, the CLI chat and the evaluations."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        engines: Engines | None = None,
        knowledge: KnowledgeBase | None = None,
        checkpoint_path: Path | None = None,
    ) -> None:
        self.runtime = runtime
        self.site_engines = SiteEngines(runtime.settings, injected=engines)
        settings = runtime.settings
        # Caches of repeated queries (vectors: in-process or Redis; results: in-process, per
        # index revision) and of visitor companies.
        self.knowledge = knowledge or KnowledgeBase(
            runtime.engine,
            query_cache=query_cache_for(settings),
            result_cache_size=settings.search_cache_size,
        )
        self.checkpoint_path = checkpoint_path or settings.data_dir / "checkpoints.db"
        self.writer = TurnWriter(runtime.sessions, Spool(settings.spool_path))
        self.enricher = Enricher(runtime.sessions, cache=enrichment_cache_for(settings))
        # Optional OpenTelemetry spans per stored turn, Langfuse callbacks per model call.
        self.exporter = build_exporter(settings)
        self.trace_callbacks = langfuse_callbacks(settings)
        self._graph: Any = None
        self._draft_graph: Any = None
        self._desks: dict[str, Any] = {}
        self._checkpointer: Checkpointer | None = None
        self._ready = asyncio.Lock()
        # The wall clock of a turn (opening hours, handoff times); tests set a fixed one.
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        # Live takeover (ownership, the event log); the API replaces it with the desk
        # whose bus wakes the other replicas' streams.
        self.live = TakeoverDesk(runtime.sessions)

    # -- set-up ------------------------------------------------------------------------
    @property
    def engines(self) -> Engines:
        """The injected engines, else the local engine (warm-up, tools)."""
        return self.site_engines.default()

    def engines_for(self, site: LoadedSite) -> Engines:
        """The site's engines (local or llm, per its `engine` block), built once per site."""
        return self.site_engines.for_site(site.config)

    async def graph(self) -> Any:
        async with self._ready:
            if self._graph is None:
                # SQLite file by default; PostgreSQL when the store is (shared by replicas).
                self._checkpointer = await open_checkpointer(
                    self.runtime.settings, self.checkpoint_path
                )
                self._graph = compile_graph(self._checkpointer.saver)
        return self._graph

    async def checkpointer(self) -> Checkpointer:
        """The open checkpointer (retention and erase delete threads through it)."""
        await self.graph()
        assert self._checkpointer is not None
        return self._checkpointer

    async def warm_up(self) -> None:
        """Load models and indexes before the first visitor pays for it."""
        from frontdesk.engines.local.engine import warm_up

        await self.graph()
        await warm_up(self.engines)
        for site in self.runtime.sites.values():
            await self.knowledge.asearch(site.config, "warm up")
        # Everything loaded so far lives as long as the process: keep it out of the
        # collector's scans, or each full collection stalls every turn for ~0.4 s.
        gc.collect()
        gc.freeze()

    async def close(self) -> None:
        await self.enricher.aclose()
        await asyncio.to_thread(self.exporter.shutdown)
        if self._checkpointer is not None:
            await self._checkpointer.aclose()
            self._checkpointer = None
            self._graph = None

    def context(self, site: LoadedSite, visitor: VisitorContext) -> TurnContext:
        config = site.config

        async def retrieve(query: str, language: str) -> Any:
            return await self.knowledge.asearch(config, query)

        async def topic_profile() -> Any:
            return await asyncio.to_thread(self.knowledge.topic_profile, config)

        async def everyday(text: str) -> Any:
            return await asyncio.to_thread(self.knowledge.everyday_similarity, config, text)

        async def read_act(text: str) -> Any:
            return await asyncio.to_thread(self.knowledge.read_act, config, text)

        async def facts() -> Any:
            return await asyncio.to_thread(self.knowledge.site_facts, config)

        embedder = self.knowledge.serving_embedder(config)
        return TurnContext(
            site=config,
            now=self.clock(),
            engines=self.engines_for(site),
            retrieve=retrieve,
            topic_profile=topic_profile,
            everyday=everyday,
            read_act=read_act,
            # The model its topic profile (and so its support bar) was measured with: the
            # local writer reads passages in another language by meaning, and every
            # passage when the site opts in.
            embedder=embedder,
            passage_vectors=partial(self.knowledge.passage_vectors, embedder),
            enrich=self.enricher.for_site(config),
            facts=facts,
            facts_embedder=embedder,
            visitor=visitor,
        )

    def appointment_desk(self, config: SiteConfig) -> Any:
        """The site's appointment desk (one per site and file version), or None."""
        if config.calendar is None:
            return None
        from frontdesk.appointments.desk import AppointmentDesk

        desk = self._desks.get(config.id)
        if desk is None or desk.site is not config:
            desk = AppointmentDesk(config, self.runtime.settings)
            self._desks[config.id] = desk
        return desk

    def _relay_to(self, site: LoadedSite, session_id: str) -> Relay:
        async def relay(text: str) -> int:
            return await self.live.relay_visitor(site.config.id, session_id, text)

        return relay

    def _operators_online(self, site: LoadedSite) -> OperatorsOnline:
        async def online() -> int:
            try:
                return len(await self.live.online(site.config.id))
            except Exception as exc:  # the store is down: nobody can be rung either
                log.warning("operators online unknown (%s); counted as none", exc)
                return 0

        return online

    # -- turns -------------------------------------------------------------------------
    async def stream_turn(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> AsyncIterator[TurnEvent]:
        started = time.perf_counter()
        graph = await self.graph()
        meter = UsageMeter()  # every model call of this turn reports here (accounting)
        engines = self.engines_for(site)
        # The local engine calls no model: no meter, so no handler for LangGraph to call
        # around every node.
        metered = [] if engines.name == "local" else [meter]
        config: dict[str, Any] = {
            "configurable": {"thread_id": thread_id(site.config.id, session_id)},
            "callbacks": [*metered, *self.trace_callbacks],
        }
        ctx = self.context(site, visitor)
        ctx.relay = self._relay_to(site, session_id)
        ctx.operators_online = self._operators_online(site)
        ctx.session_id = session_id
        ctx.appointments = self.appointment_desk(site.config)
        # Who owns the conversation (bot, or a person who joined): the graph's router
        # decides from it whether the bot answers at all.
        try:
            owner = await asyncio.to_thread(self.live.owner_now, site.config.id, session_id)
        except Exception as exc:  # the store is down: the turn still runs (and spools)
            log.warning("conversation owner unknown (%s); the assistant answers", exc)
            owner = "bot"
        # The abuse gate is the graph's first step (`nodes/gate.py`): the checkpoint is read
        # once per turn, by LangGraph.
        turn_input = {
            **TURN_RESET,
            "messages": [HumanMessage(content=message)],
            "input": message,
            "live_owner": owner,
        }
        streamed: list[str] = []
        values: dict[str, Any] = {}
        # The graph runs as a task that puts reply tokens (LangGraph's "custom" stream,
        # `nodes/common.emit`) on this queue and closes it with None; the queue tells
        # the SSE layer whether the next token is already here (`TokenEvent.more`).
        tokens: asyncio.Queue[str | None] = asyncio.Queue()

        async def run_graph() -> None:
            nonlocal values
            try:
                # One checkpoint per turn (at exit) instead of one per superstep: a turn
                # that fails midway is retried whole, so intermediate checkpoints buy nothing.
                async for mode, chunk in graph.astream(
                    turn_input,
                    config,
                    context=ctx,
                    stream_mode=["custom", "values"],
                    durability="exit",
                ):
                    if mode == "custom":
                        tokens.put_nowait(chunk["token"])
                    else:
                        values = chunk  # the last one is the state after finalize
            finally:
                tokens.put_nowait(None)

        # The visitor's message is written while the graph starts, and awaited before the
        # first token: nothing is answered that is not kept.
        opening = asyncio.ensure_future(
            asyncio.to_thread(
                self.writer.open_turn,
                site.config,
                session_id,
                message,
                uuid.uuid4().hex,
                visitor.page_url,
                visitor.referrer,
            )
        )
        opening.add_done_callback(lambda done: done.cancelled() or done.exception())
        opened: OpenedTurn | None = None
        # Neither the store nor the spool took the message: the answer is held back until
        # the turn's lead, if it carries one, has been mailed to the team (else: an error).
        unkept = False
        run = asyncio.ensure_future(run_graph())
        try:
            while (token := await tokens.get()) is not None:
                if not streamed:
                    opened, unkept = await _kept_message(opening)
                    ctx.timings_ms["first_token"] = round((time.perf_counter() - started) * 1000, 3)
                streamed.append(token)
                if not unkept:
                    yield TokenEvent(content=token, more=not tokens.empty())
            if not streamed:
                opened, unkept = await _kept_message(opening)
            try:
                await run  # the graph's own failure, if any, is raised here
            except Exception as exc:
                answered = bool(values.get("answer")) and not values.get("block")
                if not (answered and is_checkpoint_write_failure(exc)):
                    raise
                # The answer is out and only saving the checkpoint at exit failed (its
                # database is full or gone): the turn is kept in the store or the spool like
                # any other; the next turn starts from the previous checkpoint.
                log.error("turn checkpoint not saved (%s); the turn is kept without it", exc)
            if values.get("block"):
                yield await self._blocked(site, session_id, message, values, opened)
                return
            if values.get("relayed"):
                yield await self._relayed(site, session_id, message, values, opened)
                return
            result = build_result(values, session_id)
            if not result.turn and opened and opened.turn:  # the state before finalize
                result = result.model_copy(update={"turn": opened.turn})  # (checkpoint lost)
            record = TurnRecord(
                site=site.config,
                session_id=session_id,
                message=message,
                result=result,
                values=values,
                timings_ms=dict(ctx.timings_ms),
                latency_ms=(time.perf_counter() - started) * 1000,
                engine=ctx.engines.name,
                model=meter.usage.model,
                prompt_version=ctx.engines.prompt_version,
                tokens_in=meter.usage.tokens_in,
                tokens_out=meter.usage.tokens_out,
                cost_usd=meter.usage.cost_usd,
                llm_calls=meter.usage.as_nodes(),
            )
            # Kept in the spool or mailed, a lead is noted but nobody can join the chat.
            note = lead_kept_note(values, site.config) if owed_handoff(values) else ""
            record.spooled_note = note
            try:
                kept: str = await asyncio.to_thread(self.writer.write, record, opened)
            except StoreUnavailableError:
                if not await self._mail_lead(site, session_id, message, values, opened):
                    raise
                kept = "mail"
            if kept == "store":
                self.exporter.export(record)  # only stored turns are exported
            if unkept:  # held back until the turn was kept
                yield TokenEvent(content="".join(streamed), more=kept != "store")
            if kept != "store" and note:
                yield TokenEvent(content="\n\n" + note, more=False)
                result = result.model_copy(update={"answer": f"{result.answer}\n\n{note}"})
            if values.get("route_reason") in LIVE_RING_REASONS:
                # The visitor said yes to a person, or answered how the team can reach them:
                # ring the operators online (business hours), else the visitor hears it
                # goes the asynchronous way. The handoff itself is delivered as always, so
                # nothing depends on someone joining.
                try:
                    await self.live.offer_person(site.config, session_id, policy=live_handoff_route)
                except Exception:
                    log.exception("ringing operators failed", extra={"site": site.config.id})
            yield CompleteEvent(result=result)
        except StoreUnavailableError as exc:
            # Nothing could keep this turn: say so instead of acknowledging it.
            log.error("turn not kept (%s)", exc, extra={"site": site.config.id})
            text = say(
                "error.fallback",
                values.get("language") or site.config.default_language,
                tone=site.config.tone,
            )
            yield ErrorEvent(code="store_unavailable", message=text)
        except Exception:
            log.exception("turn failed", extra={"site": site.config.id, "session": session_id})
            text = say(
                "error.fallback",
                values.get("language") or site.config.default_language,
                tone=site.config.tone,
            )
            if opened is None:  # the graph failed before the message was awaited
                with contextlib.suppress(StoreUnavailableError):
                    opened = await opening
            try:
                await asyncio.to_thread(
                    self.writer.write_failure,
                    site.config,
                    session_id,
                    message,
                    "".join(streamed),
                    text,
                    opened,
                    values,
                )
            except StoreUnavailableError:
                await self._mail_lead(site, session_id, message, values, opened)
            yield ErrorEvent(code="turn_failed", message=text)
        finally:
            run.cancel()  # the visitor went away mid-turn: stop the graph too (no-op if done)
            cancelled = ctx.cancel_pending()
            if cancelled:
                log.debug("cancelled background work: %s", ", ".join(cancelled))

    async def _mail_lead(
        self,
        site: LoadedSite,
        session_id: str,
        message: str,
        values: dict[str, Any],
        opened: OpenedTurn | None,
    ) -> bool:
        """The last path for a lead neither the store nor the spool could keep."""
        return await mail_owed_lead(
            self.runtime.settings,
            site.config,
            session_id=session_id,
            turn=opened.turn if opened and opened.turn else 0,
            key=opened.key if opened else uuid.uuid4().hex,
            message=message,
            values=values,
        )

    async def _blocked(
        self,
        site: LoadedSite,
        session_id: str,
        message: str,
        values: dict[str, Any],
        opened: OpenedTurn | None = None,
    ) -> TurnEvent:
        """A blocked turn cost no model or retrieval call, but is remembered."""
        kind = values["block"]
        result = TurnResult(
            answer=values.get("answer") or "",
            routing=BLOCK_ROUTING[kind],  # type: ignore[arg-type]
            route="BLOCKED",
            intent="HACK" if kind == "hack" else "OTHER",
            language=values.get("language") or site.config.default_language,
            session_id=session_id,
            turn=int(values.get("turn_number") or 0),
        )
        await asyncio.to_thread(
            self.writer.write_blocked, site.config, session_id, message, result, kind, opened
        )
        return CompleteEvent(result=result)

    async def _relayed(
        self,
        site: LoadedSite,
        session_id: str,
        message: str,
        values: dict[str, Any],
        opened: OpenedTurn | None,
    ) -> TurnEvent:
        """A message a person will answer: kept in the transcript, no bot reply."""
        result = TurnResult(
            answer="",
            routing="answered",
            route="HUMAN",
            intent="OTHER",
            language=values.get("language") or site.config.default_language,
            session_id=session_id,
            turn=int(values.get("turn_number") or 0),
        )
        await asyncio.to_thread(
            self.writer.write_relayed, site.config, session_id, message, result, opened
        )
        return RelayedEvent(result=result, event_id=int(values["relayed"]))

    async def remember_exchange(
        self, site: LoadedSite, session_id: str, exchange: list[Any]
    ) -> int:
        """After a person hands the conversation back: what they and the visitor said goes
        into the thread's messages, in order, so the bot's next answers can use it. The
        visitor's words were kept out of the window while relayed (`human_relay`).
        Returns the number of messages added."""
        messages = exchange_messages(exchange)
        if not messages:
            return 0
        graph = await self.graph()
        config = {"configurable": {"thread_id": thread_id(site.config.id, session_id)}}
        await graph.aupdate_state(config, {"messages": messages}, as_node=FINISHED_TURN_NODE)
        return len(messages)

    async def draft_reply(self, site: LoadedSite, session_id: str, question: str) -> dict[str, Any]:
        """A suggested answer for an operator to edit, read as the assistant reads its
        answers (`conversation/draft.py`): with the conversation's history, in its
        language, from the site's facts or its pages. Nothing is stored or sent. An empty
        `draft`: nothing the site states fits the question."""
        from frontdesk.conversation.draft import compile_draft_graph
        from frontdesk.conversation.nodes.analysis import reply_language

        graph = await self.graph()
        config = {"configurable": {"thread_id": thread_id(site.config.id, session_id)}}
        conversation = (await graph.aget_state(config)).values
        language = await reply_language(
            question,
            conversation.get("language"),
            list(site.config.languages),
            site.config.default_language,
        )
        if self._draft_graph is None:
            self._draft_graph = compile_draft_graph()
        drafted = await self._draft_graph.ainvoke(
            {
                "input": question,
                "messages": list(conversation.get("messages") or []),
                "language": language,
                "retries": 0,
            },
            context=self.context(site, VisitorContext()),
        )
        citations = drafted.get("citations") or []
        found = bool(citations) or bool(drafted.get("fact_reply"))
        return {
            "draft": str(drafted.get("answer") or "").strip() if found else "",
            "language": language,
            "sources": [{"title": c["title"], "url": c["url"]} for c in citations],
        }

    async def ask(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> TurnResult:
        final: TurnEvent | None = None
        async for event in self.stream_turn(site, session_id, message, visitor):
            if not isinstance(event, TokenEvent):
                final = event
        if isinstance(final, CompleteEvent | RelayedEvent):
            return final.result
        if isinstance(final, ErrorEvent):
            raise TurnFailedError(final.message, code=final.code)
        raise TurnFailedError("no result")

    # -- sessions ----------------------------------------------------------------------
    async def history(self, site: LoadedSite, session_id: str) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.writer.history, site.config.id, session_id)

    async def export(self, site: LoadedSite, session_id: str) -> dict[str, Any]:
        graph = await self.graph()
        config = {"configurable": {"thread_id": thread_id(site.config.id, session_id)}}
        state = (await graph.aget_state(config)).values
        exported = await asyncio.to_thread(self.writer.export, site.config.id, session_id)
        exported["state"] = {
            key: state.get(key)
            for key in (
                "language",
                "turn_number",
                "qualification",
                "visitor_profile",
                "interest_signals",
                "booking",
                "form_collection",
            )
            if key in state
        }
        return exported

    async def erase(self, site: LoadedSite, session_id: str) -> bool:
        graph = await self.graph()
        tid = thread_id(site.config.id, session_id)
        had_state = bool((await graph.aget_state({"configurable": {"thread_id": tid}})).values)
        assert self._checkpointer is not None
        await self._checkpointer.saver.adelete_thread(tid)
        erased = await asyncio.to_thread(self.writer.erase, site.config.id, session_id)
        live = await self.live.erase(site.config.id, session_id)
        return erased or had_state or live > 0


TEAM_JOINED = "(a person from the team joined the chat)"


def exchange_messages(exchange: list[Any]) -> list[AnyMessage]:
    """The live log's messages as the bot's window reads them: the visitor's run of
    messages, then the person's reply (the window pairs a visitor message with the
    answer after it, so a person who spoke first is paired with a marker). Each reply
    keeps who wrote it, so the bot can tell the team's words from its own."""
    messages: list[AnyMessage] = []
    visitor: list[str] = []
    team: list[str] = []
    member = ""

    def flush() -> None:
        if team:
            messages.append(HumanMessage(content="\n".join(visitor) or TEAM_JOINED))
            messages.append(
                AIMessage(
                    content="\n".join(team),
                    name="operator",
                    additional_kwargs={TEAM_MEMBER: member or "team"},
                )
            )
        elif visitor:
            messages.append(HumanMessage(content="\n".join(visitor)))
        visitor.clear()
        team.clear()

    for event in exchange:
        body = event.body or {}
        text = str(body.get("text") or "")
        if event.kind == "visitor_message":
            if team:
                flush()
            visitor.append(text)
        elif event.kind == "operator_message":
            name = str(body.get("name") or event.author_name or "")
            if team and name != member:
                flush()
            member = name
            team.append(text)
    flush()
    return messages


async def _kept_message(opening: asyncio.Future[OpenedTurn]) -> tuple[OpenedTurn | None, bool]:
    """The visitor's kept message, or (None, True) when neither store nor spool took it."""
    try:
        return await opening, False
    except StoreUnavailableError:
        return None, True


class TurnFailedError(RuntimeError):
    """A turn that ended in an error event (its fallback text is the message, its code
    the event's: `store_unavailable` when nothing could keep the turn)."""

    def __init__(self, message: str, code: str = "turn_failed") -> None:
        super().__init__(message)
        self.code = code
