"""`TurnContext`: per-run facts that are not conversation state and are never checkpointed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.substates import VisitorProfile
from frontdesk.engines.base import Engines
from frontdesk.facts.model import SiteFacts
from frontdesk.knowledge.models import RetrievalResult
from frontdesk.knowledge.search.acts import Act
from frontdesk.knowledge.search.everyday import EverydaySimilarity
from frontdesk.knowledge.search.topic import TopicProfile
from frontdesk.sites.schema import SiteConfig
from frontdesk.text.embedding import Embedder, Matrix

if TYPE_CHECKING:
    from frontdesk.appointments.desk import AppointmentDesk

Retriever = Callable[[str, str], Awaitable[RetrievalResult]]
"""(query, language) → RetrievalResult over the site's own knowledge base."""

ProfileLoader = Callable[[], Awaitable[TopicProfile]]
"""The site's topic profile (`knowledge/search/topic.py`): its own bar for on-topic support."""

EverydayLoader = Callable[[str], Awaitable[EverydaySimilarity | None]]
"""A message → its similarity to the nearest everyday request (`knowledge/search/everyday.py`),
with the bar; None when the site's embedding model has no everyday requests."""

ActReader = Callable[[str], Awaitable[Act | None]]
"""A short message → the conversation act the site's embedding model reads in it
(`knowledge/search/acts.py`), or None."""

Enricher = Callable[[VisitorContext], Awaitable[VisitorProfile]]
"""Visitor enrichment (priority pipeline); returns profile fields."""

FactsLoader = Callable[[], Awaitable[SiteFacts]]
"""The site's facts (`frontdesk.facts`): hours, address, phone, e-mail, prices, payment."""

Relay = Callable[[str], Awaitable[int]]
"""Live takeover: a visitor's message → the operator's live log; returns its event id."""

OperatorsOnline = Callable[[], Awaitable[int]]
"""Live takeover: how many of the site's operators are online to take a conversation over."""


async def _no_enrichment(_: VisitorContext) -> VisitorProfile:
    return {}


Loaded = TypeVar("Loaded")


def once(load: Callable[[], Awaitable[Loaded]]) -> Callable[[], Awaitable[Loaded]]:
    """`load`, run on the first call and its result returned to every later call (a
    turn's loaders: what several nodes read is read once, also by nodes of parallel
    branches asking at the same moment). A failed load is tried again."""
    loaded: list[Loaded] = []
    loading = asyncio.Lock()

    async def first() -> Loaded:
        async with loading:
            if not loaded:
                loaded.append(await load())
        return loaded[0]

    return first


@dataclass
class TurnContext:
    site: SiteConfig
    engines: Engines
    retrieve: Retriever
    enrich: Enricher = _no_enrichment
    topic_profile: ProfileLoader | None = None  # None: the relevance threshold is the bar
    everyday: EverydayLoader | None = None  # None: no everyday-request signal
    read_act: ActReader | None = None  # None: the intent model's act head alone
    # The embedder of the site's knowledge base: with the topic profile's bar, the local
    # writer reads sentences by meaning (`engines.base.SiteMeaning`). None: words only.
    embedder: Embedder | None = None
    # Passage vectors of sentences through the site's embedding cache.
    passage_vectors: Callable[[Sequence[str]], Matrix] | None = None
    # The site's facts and the embedder that reads which fact a question asks about
    # (the serving model of its knowledge base). None: facts are not a source.
    facts: FactsLoader | None = None
    facts_embedder: Embedder | None = None
    visitor: VisitorContext = field(default_factory=VisitorContext)
    relay: Relay | None = None  # None: nobody can take over (evals, CLI without a desk)
    operators_online: OperatorsOnline | None = None  # None: nobody online (no live desk)
    # The site's calendar desk (`appointments.desk`); None: booking is a link or an e-mail.
    appointments: AppointmentDesk | None = None
    session_id: str = ""
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    context_window_turns: int = 10
    # Deferred execution: tasks started at START, awaited only on ANSWER.
    tasks: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)

    def topic_questions(self, language: str) -> tuple[str, ...]:
        """Up to three example questions in the visitor's language (English as fallback)."""
        questions = self.site.starter_questions
        return tuple((questions.get(language) or questions.get("en") or [])[:3])  # type: ignore[call-overload]

    def start_task(self, name: str, work: Awaitable[Any]) -> None:
        self.tasks[name] = asyncio.ensure_future(work)

    def calendar_desk(self) -> AppointmentDesk:
        """The site's calendar desk, for the appointment nodes (the routers reach them only
        when the site has one)."""
        if self.appointments is None:
            raise RuntimeError("an appointment step on a site without a calendar desk")
        return self.appointments

    async def await_task(self, name: str) -> Any:
        task = self.tasks.get(name)
        return None if task is None else await task

    def cancel_pending(self) -> list[str]:
        """Cancel background work no path will await (REDIRECT/BOOKING/HANDOFF, a failed
        or abandoned turn)."""
        cancelled = []
        for name, task in self.tasks.items():
            if not task.done():
                task.cancel()
                cancelled.append(name)
        return cancelled
