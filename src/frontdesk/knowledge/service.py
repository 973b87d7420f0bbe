"""`KnowledgeBase`: the one object the rest of Frontdesk uses for ingest and search.

    kb = KnowledgeBase(engine)                       # once per process
    kb.ingest_path(site, Path("docs/"))              # IngestReport
    result = kb.search(site, "How do I reset my password?")   # RetrievalResult
    result = await kb.asearch(site, "...")           # same, off the event loop

`site` is a `SiteConfig` or a `SiteKnowledge` (site id + knowledge config + language),
so throwaway sites (evaluation, tests) need no site file.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from sqlalchemy import Engine

from frontdesk.knowledge.embeddings import Embedder, make_embedder
from frontdesk.knowledge.index.base import KnowledgeIndex, StoredDocument
from frontdesk.knowledge.index.factory import index_for
from frontdesk.knowledge.ingest import IngestOptions, Ingestor
from frontdesk.knowledge.models import Document, IngestReport, RetrievalResult
from frontdesk.knowledge.query_cache import QueryCache, query_cache_for
from frontdesk.knowledge.search import (
    DEFAULT_RESULT_CACHE_SIZE,
    Reranker,
    Retriever,
    SearchOptions,
)
from frontdesk.knowledge.topic import TopicProfile, build_profile
from frontdesk.sites.schema import KnowledgeConfig

if TYPE_CHECKING:
    from frontdesk.sites.schema import SiteConfig

log = logging.getLogger(__name__)

# Used when a site has no calibrated threshold. Calibrate per site with
# `frontdesk kb calibrate`; see docs/knowledge.md for how this value was chosen.
DEFAULT_RELEVANCE_THRESHOLDS: dict[str, float] = {"local:all-MiniLM-L6-v2": 0.35}
PROACTIVE_MARGIN = 0.10


@dataclass(frozen=True)
class SiteKnowledge:
    """What the knowledge base needs to know about a site."""

    site_id: str
    config: KnowledgeConfig
    language: str = "en"

    @classmethod
    def of(cls, site: SiteConfig | SiteKnowledge) -> SiteKnowledge:
        if isinstance(site, SiteKnowledge):
            return site
        return cls(site_id=site.id, config=site.knowledge, language=site.default_language)

    def relevance_threshold(self) -> float | None:
        if self.config.relevance_threshold is not None:
            return self.config.relevance_threshold
        return DEFAULT_RELEVANCE_THRESHOLDS.get(self.config.embedding)

    def proactive_threshold(self) -> float | None:
        if self.config.proactive_threshold is not None:
            return self.config.proactive_threshold
        threshold = self.relevance_threshold()
        return None if threshold is None else min(1.0, threshold + PROACTIVE_MARGIN)

    def search_options(self, top_k: int | None = None) -> SearchOptions:
        return SearchOptions(
            top_k=top_k or self.config.top_k,
            relevance_threshold=self.relevance_threshold(),
            proactive_threshold=self.proactive_threshold(),
            language=self.language,
        )

    def ingest_options(self, *, progress: bool = True) -> IngestOptions:
        return IngestOptions(
            chunk_size=self.config.chunk_size,
            chunk_overlap=self.config.chunk_overlap,
            language=self.language,
            progress=progress,
        )


class KnowledgeBase:
    """Ingest and search every site's knowledge in one index (each site isolated)."""

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        index: KnowledgeIndex | None = None,
        reranker: Reranker | None = None,
        console: Console | None = None,
        query_cache: QueryCache | None = None,
        result_cache_size: int = DEFAULT_RESULT_CACHE_SIZE,
    ) -> None:
        if index is None:
            if engine is None:
                raise ValueError("KnowledgeBase needs an engine or an index")
            index = index_for(engine)  # SQLite, or PostgreSQL + pgvector (production)
        self.index = index
        self.reranker = reranker
        self.console = console
        # Embeddings of repeated questions: in-process, over Redis when FRONTDESK_REDIS_URL
        # is set (shared by replicas). One cache for every model (keys name the model).
        self.query_cache = query_cache_for() if query_cache is None else query_cache
        # Results of repeated questions, per index revision (`Retriever.results`).
        self.result_cache_size = result_cache_size
        self._retrievers: dict[str, Retriever] = {}
        self._lock = threading.Lock()
        # Per (site, index revision, model, languages): rebuilt when the content changes.
        self._profiles: dict[tuple[object, ...], TopicProfile] = {}

    def embedder(self, site: SiteConfig | SiteKnowledge) -> Embedder:
        return make_embedder(SiteKnowledge.of(site).config.embedding)

    def retriever(self, site: SiteConfig | SiteKnowledge) -> Retriever:
        spec = SiteKnowledge.of(site).config.embedding
        with self._lock:
            retriever = self._retrievers.get(spec)
            if retriever is None:
                retriever = Retriever(
                    self.index,
                    make_embedder(spec),
                    reranker=self.reranker,
                    query_cache=self.query_cache,
                    result_cache_size=self.result_cache_size,
                )
                self._retrievers[spec] = retriever
            return retriever

    def ingestor(self, site: SiteConfig | SiteKnowledge, *, progress: bool = True) -> Ingestor:
        knowledge = SiteKnowledge.of(site)
        return Ingestor(
            self.index,
            self.embedder(knowledge),
            knowledge.ingest_options(progress=progress),
            console=self.console,
        )

    # -- ingest ----------------------------------------------------------------------
    def ingest_path(
        self, site: SiteConfig | SiteKnowledge, path: Path, *, progress: bool = True
    ) -> IngestReport:
        knowledge = SiteKnowledge.of(site)
        return self.ingestor(knowledge, progress=progress).ingest_path(knowledge.site_id, path)

    def ingest_upload(
        self, site: SiteConfig | SiteKnowledge, data: bytes, filename: str
    ) -> IngestReport:
        knowledge = SiteKnowledge.of(site)
        return self.ingestor(knowledge, progress=False).ingest_upload(
            knowledge.site_id, data, filename
        )

    def ingest_documents(
        self, site: SiteConfig | SiteKnowledge, documents: list[Document], *, progress: bool = True
    ) -> IngestReport:
        knowledge = SiteKnowledge.of(site)
        return self.ingestor(knowledge, progress=progress).ingest_documents(
            knowledge.site_id, documents
        )

    def topic_profile(
        self, site: SiteConfig | SiteKnowledge, languages: tuple[str, ...] = ()
    ) -> TopicProfile:
        """The site's own bar for "its content supports this question" (`topic.py`),
        measured on its current content and kept until that content changes."""
        knowledge = SiteKnowledge.of(site)
        if not languages and not isinstance(site, SiteKnowledge):
            languages = tuple(site.languages)
        languages = languages or (knowledge.language,)
        revision = getattr(self.index, "revision", None)
        key = (
            knowledge.site_id,
            revision(knowledge.site_id) if revision is not None else None,
            knowledge.config.embedding,
            languages,
        )
        profile = self._profiles.get(key)
        if profile is not None:
            return profile
        retriever = self.retriever(knowledge)
        options = SearchOptions(top_k=1, relevance_threshold=0.0, language=knowledge.language)

        def top_score(probe: str) -> float | None:
            return retriever.search(knowledge.site_id, probe, options).top_score

        titles = [document.title for document in self.list_documents(knowledge)]
        default = DEFAULT_RELEVANCE_THRESHOLDS.get(knowledge.config.embedding)
        profile = build_profile(
            top_score, languages, knowledge.config.relevance_threshold, titles, default
        )
        self._profiles[key] = profile
        return profile

    # -- manage ----------------------------------------------------------------------
    def list_documents(self, site: SiteConfig | SiteKnowledge | str) -> list[StoredDocument]:
        site_id = site if isinstance(site, str) else SiteKnowledge.of(site).site_id
        return self.index.list_documents(site_id)

    def remove_document(self, site: SiteConfig | SiteKnowledge | str, doc_id: str) -> bool:
        site_id = site if isinstance(site, str) else SiteKnowledge.of(site).site_id
        return self.index.remove_documents(site_id, [doc_id]) > 0

    # -- search ----------------------------------------------------------------------
    def search(
        self, site: SiteConfig | SiteKnowledge, query: str, *, top_k: int | None = None
    ) -> RetrievalResult:
        """Seed 004 RAG triage: the site's best chunks above its threshold, or why not."""
        knowledge = SiteKnowledge.of(site)
        try:
            retriever = self.retriever(knowledge)
        except Exception:
            log.exception("embedding_failure site=%s (model not available)", knowledge.site_id)
            return RetrievalResult.error("embedding_failure")
        return retriever.search(knowledge.site_id, query, self._options(site, knowledge, top_k))

    def _options(
        self, site: SiteConfig | SiteKnowledge, knowledge: SiteKnowledge, top_k: int | None
    ) -> SearchOptions:
        """The site's search options; a site without a calibrated threshold uses the one
        its own content calibrates (`topic.calibrated_threshold`)."""
        options = knowledge.search_options(top_k)
        if knowledge.config.relevance_threshold is not None:
            return options
        try:
            threshold = self.topic_profile(site).relevance_threshold
        except Exception:  # the default threshold still applies
            log.exception("topic_profile_failure site=%s", knowledge.site_id)
            return options
        if threshold is None:
            return options
        proactive = knowledge.config.proactive_threshold
        return replace(
            options,
            relevance_threshold=threshold,
            proactive_threshold=proactive
            if proactive is not None
            else min(1.0, threshold + PROACTIVE_MARGIN),
        )

    async def asearch(
        self, site: SiteConfig | SiteKnowledge, query: str, *, top_k: int | None = None
    ) -> RetrievalResult:
        """`search` in a worker thread, for the event loop."""
        return await asyncio.to_thread(self.search, site, query, top_k=top_k)
