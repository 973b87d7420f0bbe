"""`KnowledgeBase`: the one object the rest of Frontdesk uses for ingest and search.

    kb = KnowledgeBase(engine)                       # once per process
    kb.ingest_path(site, Path("docs/"))              # IngestReport
    result = kb.search(site, "How do I reset my password?")   # or await kb.asearch(...)

`site`: a `SiteConfig` or a `SiteKnowledge` (throwaway sites need no site file).

Changing a site's `knowledge.embedding` re-embeds its documents in the background
(`start_reembed`, started by the first search or ingest that sees the change); searches then
switch atomically (`generations.py`). English sites keep a second index (`companion.py`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from rich.console import Console
from sqlalchemy import Engine

from frontdesk.facts.corrections import apply_corrections
from frontdesk.facts.model import SiteFacts
from frontdesk.facts.store import CorrectionStore, FactStore
from frontdesk.knowledge.companion import Companions
from frontdesk.knowledge.embedding.embedders import make_embedder
from frontdesk.knowledge.index.base import KnowledgeIndex, StoredDocument
from frontdesk.knowledge.index.factory import index_for
from frontdesk.knowledge.index.generations import Generation, GenerationStore, MemoryGenerationStore
from frontdesk.knowledge.ingest.ingestor import Ingestor
from frontdesk.knowledge.ingest.reembed import ReembedReport, switch_generation
from frontdesk.knowledge.models import Document, IngestReport, RetrievalResult, content_hash
from frontdesk.knowledge.search.acts import load_acts
from frontdesk.knowledge.search.everyday import EverydaySimilarity, load_everyday
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.knowledge.search.query_cache import QueryCache, query_cache_for
from frontdesk.knowledge.search.retriever import DEFAULT_RESULT_CACHE_SIZE, Reranker, Retriever
from frontdesk.knowledge.search.topic import TopicProfile, build_profile
from frontdesk.knowledge.site import DEFAULT_RELEVANCE_THRESHOLDS, PROACTIVE_MARGIN, SiteKnowledge
from frontdesk.text.embedding import Embedder, Matrix

if TYPE_CHECKING:
    from frontdesk.knowledge.search.acts import Act
    from frontdesk.sites.schema import SiteConfig

log = logging.getLogger(__name__)
_Write = Callable[[Ingestor, str], IngestReport]


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
        self._engine = engine if engine is not None else getattr(index, "engine", None)
        self.generations: GenerationStore | MemoryGenerationStore = (
            GenerationStore(self._engine) if self._engine is not None else MemoryGenerationStore()
        )
        self._reembeds: dict[str, threading.Thread] = {}
        self.fact_store = FactStore(self._engine) if self._engine is not None else None
        self.corrections = CorrectionStore(self._engine) if self._engine is not None else None
        self.companions = Companions(self)  # English sites' second index (`companion.py`)

    def site_facts(self, site: SiteConfig | SiteKnowledge) -> SiteFacts:
        """What the site's serving pages state in structure (`frontdesk.facts`), with the
        team's corrections winning (kept per site, not per page: they outlive re-crawls
        and re-embeds)."""
        if self.fact_store is None or self.corrections is None:
            return SiteFacts()
        crawled = self.fact_store.for_site(self.index_key(site))
        return apply_corrections(crawled, self.corrections.history(SiteKnowledge.of(site).site_id))

    def embedder(self, site: SiteConfig | SiteKnowledge) -> Embedder:
        return make_embedder(SiteKnowledge.of(site).config.embedding)

    def serving_embedder(self, site: SiteConfig | SiteKnowledge) -> Embedder:
        """The embedder of the generation that answers now, the one searches and the topic
        profile use (during a re-embed after a model change, still the previous model)."""
        _, knowledge = self._serving(SiteKnowledge.of(site))
        return self.embedder(knowledge)

    def passage_vectors(self, embedder: Embedder, texts: Sequence[str]) -> Matrix:
        """Passage vectors of `texts` (one row each): from the embedding cache, else
        embedded now and cached, so each sentence is embedded once per model."""
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        keys = [content_hash(text) for text in texts]
        cached = self.index.cached_vectors(embedder.name, list(dict.fromkeys(keys)))
        missing = list(
            dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in cached)
        )
        if missing:
            fresh = embedder.embed_documents(missing)
            made = {content_hash(text): fresh[i] for i, text in enumerate(missing)}
            self.index.cache_vectors(embedder.name, made)
            cached = {**cached, **made}
        return np.vstack([np.ravel(cached[key]) for key in keys]).astype(np.float32)

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
        self.companions.drop_unused(knowledge)  # a second index the site turned off
        return Ingestor(
            self.index,
            self.embedder(knowledge),
            knowledge.ingest_options(progress=progress),
            console=self.console,
            facts=self.fact_store,
        )

    # -- generations -----------------------------------------------------------------
    def index_key(self, site: SiteConfig | SiteKnowledge | str) -> str:
        """Where the site's serving chunks live in the index (see `generations.py`)."""
        site_id = site if isinstance(site, str) else SiteKnowledge.of(site).site_id
        generation = self.generations.get(site_id)
        return generation.index_key if generation is not None else site_id

    def _serving(self, knowledge: SiteKnowledge) -> tuple[str, SiteKnowledge]:
        """The index key and model that answer now; a changed model starts a re-embed."""
        generation = self.generations.get(knowledge.site_id)
        if generation is None or generation.embedding_model == knowledge.config.embedding:
            key = generation.index_key if generation is not None else knowledge.site_id
            return key, knowledge
        self._start_quietly(knowledge)
        return generation.index_key, knowledge.with_model(generation.embedding_model)

    def write_targets(self, knowledge: SiteKnowledge) -> list[tuple[str, SiteKnowledge]]:
        """Where an ingest writes: the serving generation, and during a re-embed also the
        generation being built (so nothing ingested meanwhile is missing after the switch)."""
        configured = knowledge.config.embedding
        generation = self.generations.get(knowledge.site_id) or self.generations.register(
            knowledge.site_id, configured
        )
        if generation.embedding_model == configured:
            return [(generation.index_key, knowledge)]
        self._start_quietly(knowledge)
        current = self.generations.get(knowledge.site_id) or generation
        targets = []
        if current.pending_key is not None and current.pending_model == configured:
            targets.append((current.pending_key, knowledge))
        targets.append((current.index_key, knowledge.with_model(current.embedding_model)))
        return targets

    def _ingest(
        self, site: SiteConfig | SiteKnowledge, progress: bool, write: _Write
    ) -> IngestReport:
        reports: list[IngestReport] = []
        for key, knowledge in self.write_targets(SiteKnowledge.of(site)):
            try:
                reports.append(write(self.ingestor(knowledge, progress=progress), key))
            except Exception:
                if not reports:
                    raise
                # The old generation's model may be gone (e.g. torch uninstalled): the new
                # generation has the document, which is what will answer after the switch.
                log.exception("ingest_old_generation_failed site=%s", knowledge.site_id)
        self.companions.write(SiteKnowledge.of(site), progress, write)
        return reports[0]

    def start_reembed(self, site: SiteConfig | SiteKnowledge) -> threading.Thread | None:
        """Re-embed the site with its configured model in a background thread, unless
        nothing changed or another thread or process is already doing it."""
        knowledge = SiteKnowledge.of(site)
        with self._lock:
            running = self._reembeds.get(knowledge.site_id)
            if running is not None and running.is_alive():
                return running
            claimed = self._claim(knowledge)
            if claimed is None:
                return None
            thread = threading.Thread(
                target=self._reembed,
                args=(knowledge, claimed, False),
                name=f"reembed-{knowledge.site_id}",
                daemon=True,
            )
            self._reembeds[knowledge.site_id] = thread
            thread.start()
            return thread

    def reembed(
        self, site: SiteConfig | SiteKnowledge, *, progress: bool = True
    ) -> ReembedReport | None:
        """Re-embed now, in this thread (CLI); None when there is nothing to do or another
        process holds the re-embed (a thread of this process is waited for)."""
        knowledge = SiteKnowledge.of(site)
        with self._lock:
            running = self._reembeds.get(knowledge.site_id)
            claimed = None if running is not None and running.is_alive() else self._claim(knowledge)
        if claimed is None:
            if running is not None:
                running.join()
            return None
        return self._reembed(knowledge, claimed, progress)

    def _claim(self, knowledge: SiteKnowledge) -> Generation | None:
        generation = self.generations.get(knowledge.site_id)
        if generation is None or generation.embedding_model == knowledge.config.embedding:
            return None
        return self.generations.claim(knowledge.site_id, knowledge.config.embedding)

    def _start_quietly(self, knowledge: SiteKnowledge) -> None:
        try:
            self.start_reembed(knowledge)
        except Exception:  # the serving generation keeps answering
            log.exception("reembed_start_failed site=%s", knowledge.site_id)

    def _reembed(
        self, knowledge: SiteKnowledge, claimed: Generation, progress: bool
    ) -> ReembedReport:
        return switch_generation(
            self.index,
            self._engine,
            self.generations,
            knowledge.site_id,
            claimed,
            lambda: self.ingestor(knowledge, progress=progress),
        )

    # -- ingest ----------------------------------------------------------------------
    def ingest_path(
        self, site: SiteConfig | SiteKnowledge, path: Path, *, progress: bool = True
    ) -> IngestReport:
        return self._ingest(site, progress, lambda ingestor, key: ingestor.ingest_path(key, path))

    def ingest_upload(
        self, site: SiteConfig | SiteKnowledge, data: bytes, filename: str
    ) -> IngestReport:
        return self._ingest(
            site, False, lambda ingestor, key: ingestor.ingest_upload(key, data, filename)
        )

    def ingest_documents(
        self, site: SiteConfig | SiteKnowledge, documents: list[Document], *, progress: bool = True
    ) -> IngestReport:
        return self._ingest(
            site, progress, lambda ingestor, key: ingestor.ingest_documents(key, documents)
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
        # Probed on the generation that answers now, with the model that built it.
        index_key, knowledge = self._serving(knowledge)
        revision = getattr(self.index, "revision", None)
        key = (
            index_key,
            revision(index_key) if revision is not None else None,
            knowledge.config.embedding,
            languages,
        )
        profile = self._profiles.get(key)
        if profile is not None:
            return profile
        retriever = self.retriever(knowledge)
        # Probes are scored by their cosines: the bars keep the scale same-language
        # questions are judged on, and a question in another language than the pages meets
        # them with its offset (`language_pairs.py`).
        options = SearchOptions(top_k=1, relevance_threshold=0.0, language=knowledge.language)

        def top_score(probe: str) -> float | None:
            return retriever.search(index_key, probe, options).top_score

        titles = [document.title for document in self.list_documents(knowledge)]
        default = DEFAULT_RELEVANCE_THRESHOLDS.get(knowledge.config.embedding)
        profile = build_profile(
            top_score, languages, knowledge.config.relevance_threshold, titles, default
        )
        self._profiles[key] = profile
        return profile

    def everyday_similarity(
        self, site: SiteConfig | SiteKnowledge, text: str
    ) -> EverydaySimilarity | None:
        """How close `text` is to a known everyday request (`knowledge/search/everyday.py`), read
        by the model of the generation that answers now; None when that model has none."""
        _, knowledge = self._serving(SiteKnowledge.of(site))
        requests = load_everyday(knowledge.config.embedding)
        if requests is None:
            return None
        vector = self.retriever(knowledge).embed_query(text)
        return EverydaySimilarity(nearest=requests.nearest(vector), bar=requests.bar)

    def read_act(self, site: SiteConfig | SiteKnowledge, text: str) -> Act | None:
        """The conversation act `text` is, read by the model of the generation that answers
        now against its shipped acts (`knowledge/search/acts.py`); None when it is none of them or
        that model has no shipped acts."""
        _, knowledge = self._serving(SiteKnowledge.of(site))
        examples = load_acts(knowledge.config.embedding)
        if examples is None:
            return None
        return examples.read(self.retriever(knowledge).embed_query(text))

    # -- manage ----------------------------------------------------------------------
    def list_documents(self, site: SiteConfig | SiteKnowledge | str) -> list[StoredDocument]:
        return self.index.list_documents(self.index_key(site))

    def remove_document(self, site: SiteConfig | SiteKnowledge | str, doc_id: str) -> bool:
        site_id = site if isinstance(site, str) else SiteKnowledge.of(site).site_id
        generation = self.generations.get(site_id)
        if generation is not None and generation.pending_key is not None:
            self.index.remove_documents(generation.pending_key, [doc_id])
        if not isinstance(site, str):  # else the companion catches up at the next search
            self.companions.remove(SiteKnowledge.of(site), doc_id)
        return self.index.remove_documents(self.index_key(site_id), [doc_id]) > 0

    # -- search ----------------------------------------------------------------------
    def search(
        self, site: SiteConfig | SiteKnowledge, query: str, *, top_k: int | None = None
    ) -> RetrievalResult:
        """Retrieval triage: the site's best chunks above its threshold, or why not."""
        key, knowledge = self._serving(SiteKnowledge.of(site))
        try:
            retriever = self.retriever(knowledge)
        except Exception:
            log.exception("embedding_failure site=%s (model not available)", knowledge.site_id)
            return RetrievalResult.error("embedding_failure")
        options = self._options(site, knowledge, top_k)
        result = retriever.search(key, query, self.companions.depth(knowledge, query, options))
        return self.companions.refine(knowledge, key, query, options, result)

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
