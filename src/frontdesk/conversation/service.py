"""`ChatService`: runs turns through the graph — abuse gate first, persistence last.

Persistence brackets the answer: the visitor's message is kept (store, else spool) before
the first token goes out (`conversation/graph_run.py`), and the finished turn after the
graph (`conversation/turn_ending.py`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig

from frontdesk.conversation.checkpoints import Checkpointer, open_checkpointer
from frontdesk.conversation.context import OperatorsOnline, Relay, TurnContext, once
from frontdesk.conversation.exchange import exchange_messages
from frontdesk.conversation.graph import FINISHED_TURN_NODE, CompiledChatGraph, compile_graph
from frontdesk.conversation.graph_run import GraphRun
from frontdesk.conversation.payload import (
    CompleteEvent,
    ErrorEvent,
    RelayedEvent,
    TokenEvent,
    TurnEvent,
    TurnResult,
    VisitorContext,
)
from frontdesk.conversation.persistence import StoreUnavailableError, TurnWriter
from frontdesk.conversation.result import TURN_RESET
from frontdesk.conversation.spool import Spool
from frontdesk.conversation.state import ChatUpdate, TurnValues
from frontdesk.conversation.transcripts import (
    HistoryMessage,
    SessionExport,
    Transcripts,
    exported_state,
)
from frontdesk.conversation.turn_ending import TurnEnding
from frontdesk.conversation.vocabulary import LiveOwner
from frontdesk.engines.base import Engines
from frontdesk.engines.factory import SiteEngines
from frontdesk.engines.llm.accounting import UsageMeter
from frontdesk.enrichment import Enricher, enrichment_cache_for
from frontdesk.knowledge.search.query_cache import CachedQueryEmbedder, query_cache_for
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.observability.tracing import build_exporter, langfuse_callbacks
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite
from frontdesk.sites.schema import SiteConfig
from frontdesk.takeover.desk import TakeoverDesk

if TYPE_CHECKING:
    from frontdesk.appointments.desk import AppointmentDesk
    from frontdesk.conversation.draft import DraftReply
    from frontdesk.facts.model import SiteFacts
    from frontdesk.knowledge.models import RetrievalResult
    from frontdesk.knowledge.search.acts import Act
    from frontdesk.knowledge.search.everyday import EverydaySimilarity
    from frontdesk.knowledge.search.topic import TopicProfile

log = logging.getLogger(__name__)


def thread_id(site_id: str, session_id: str) -> str:
    return f"{site_id}:{session_id}"


def thread_config(site_id: str, session_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id(site_id, session_id)}}


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
        self.transcripts = Transcripts(runtime.sessions)
        self.enricher = Enricher(runtime.sessions, cache=enrichment_cache_for(settings))
        # Optional OpenTelemetry spans per stored turn, Langfuse callbacks per model call.
        self.exporter = build_exporter(settings)
        self.trace_callbacks = langfuse_callbacks(settings)
        self._graph: CompiledChatGraph | None = None
        self._desks: dict[str, AppointmentDesk] = {}
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

    async def graph(self) -> CompiledChatGraph:
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

        async def retrieve(query: str, language: str) -> RetrievalResult:
            return await self.knowledge.asearch(config, query)

        # Read once per turn: site_support_check, grade_docs and the writer each need the
        # topic profile, match_facts and site_support_check the facts.
        @once
        async def topic_profile() -> TopicProfile:
            return await asyncio.to_thread(self.knowledge.topic_profile, config)

        async def everyday(text: str) -> EverydaySimilarity | None:
            return await asyncio.to_thread(self.knowledge.everyday_similarity, config, text)

        async def read_act(text: str) -> Act | None:
            return await asyncio.to_thread(self.knowledge.read_act, config, text)

        @once
        async def facts() -> SiteFacts:
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
            # Its question vectors from the searches' cache: the turn's search has most
            # often embedded the very question already.
            facts_embedder=CachedQueryEmbedder(embedder, self.knowledge.query_cache),
            visitor=visitor,
        )

    def appointment_desk(self, config: SiteConfig) -> AppointmentDesk | None:
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
        run = await self._start_turn(site, session_id, message, visitor)
        ending = TurnEnding(self, site, session_id, message, run)
        try:
            async for token in run.token_events():
                yield token
            await run.finished()
            if run.values.get("block"):
                yield await ending.blocked()
            elif run.values.get("relayed"):
                yield await ending.relayed()
            else:
                async for event in ending.answered():
                    yield event
        except StoreUnavailableError as exc:
            yield ending.unkept(exc)
        except Exception:
            log.exception("turn failed", extra={"site": site.config.id, "session": session_id})
            yield await ending.failed()
        finally:
            run.cancel()
            cancelled = run.ctx.cancel_pending()
            if cancelled:
                log.debug("cancelled background work: %s", ", ".join(cancelled))

    async def _start_turn(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> GraphRun:
        """The graph started on the visitor's message, and the message being kept."""
        started = time.perf_counter()
        graph = await self.graph()
        meter = UsageMeter()
        # The local engine calls no model: no meter, so no handler for LangGraph to call
        # around every node.
        metered = [] if self.engines_for(site).name == "local" else [meter]
        config: RunnableConfig = {
            "configurable": {"thread_id": thread_id(site.config.id, session_id)},
            "callbacks": [*metered, *self.trace_callbacks],
        }
        ctx = self.context(site, visitor)
        ctx.relay = self._relay_to(site, session_id)
        ctx.operators_online = self._operators_online(site)
        ctx.session_id = session_id
        ctx.appointments = self.appointment_desk(site.config)
        # The abuse gate is the graph's first step (`nodes/gate.py`): the checkpoint is read
        # once per turn, by LangGraph.
        turn_input: ChatUpdate = {
            **TURN_RESET,
            "messages": [HumanMessage(content=message)],
            "input": message,
            "live_owner": await self._owner(site, session_id),
        }
        open_turn = partial(
            asyncio.to_thread,
            self.writer.open_turn,
            site.config,
            session_id,
            message,
            uuid.uuid4().hex,
            visitor.page_url,
            visitor.referrer,
        )
        return GraphRun(graph, turn_input, config, ctx, meter, open_turn, started)

    async def _owner(self, site: LoadedSite, session_id: str) -> LiveOwner:
        """Who owns the conversation (bot, or a person who joined): the graph's router
        decides from it whether the bot answers at all."""
        try:
            return await asyncio.to_thread(self.live.owner_now, site.config.id, session_id)
        except Exception as exc:  # the store is down: the turn still runs (and spools)
            log.warning("conversation owner unknown (%s); the assistant answers", exc)
            return "bot"

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
        config = thread_config(site.config.id, session_id)
        await graph.aupdate_state(config, {"messages": messages}, as_node=FINISHED_TURN_NODE)
        return len(messages)

    async def draft_reply(self, site: LoadedSite, session_id: str, question: str) -> DraftReply:
        """A suggested answer for an operator to edit, read as the assistant reads its
        answers (`conversation/draft.py`): with the conversation's history, in its
        language, from the site's facts or its pages. Nothing is stored or sent. An empty
        `draft`: nothing the site states fits the question."""
        from frontdesk.conversation.draft import draft_reply

        conversation = await self.conversation_state(site, session_id)
        ctx = self.context(site, VisitorContext())
        return await draft_reply(conversation, question, site.config, ctx)

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
    async def conversation_state(self, site: LoadedSite, session_id: str) -> TurnValues:
        """The conversation's state as its last turn left it (empty for a new session)."""
        graph = await self.graph()
        snapshot = await graph.aget_state(thread_config(site.config.id, session_id))
        return cast(TurnValues, snapshot.values)  # the checkpoint's values, untyped

    async def history(self, site: LoadedSite, session_id: str) -> list[HistoryMessage]:
        return await asyncio.to_thread(self.transcripts.history, site.config.id, session_id)

    async def export(self, site: LoadedSite, session_id: str) -> SessionExport:
        state = await self.conversation_state(site, session_id)
        exported = await asyncio.to_thread(self.transcripts.export, site.config.id, session_id)
        exported["state"] = exported_state(state)
        return exported

    async def erase(self, site: LoadedSite, session_id: str) -> bool:
        graph = await self.graph()
        tid = thread_id(site.config.id, session_id)
        had_state = bool((await graph.aget_state({"configurable": {"thread_id": tid}})).values)
        assert self._checkpointer is not None
        await self._checkpointer.saver.adelete_thread(tid)
        erased = await asyncio.to_thread(self.transcripts.erase, site.config.id, session_id)
        live = await self.live.erase(site.config.id, session_id)
        return erased or had_state or live > 0


class TurnFailedError(RuntimeError):
    """A turn that ended in an error event (its fallback text is the message, its code
    the event's: `store_unavailable` when nothing could keep the turn)."""

    def __init__(self, message: str, code: str = "turn_failed") -> None:
        super().__init__(message)
        self.code = code
