"""Hybrid search: BM25 over stemmed text + dense cosine (+ BM25 over the chunks' heading
paths alone, when weighted), fused by reciprocal rank.

The relevance threshold is applied to a meaningful score — the cosine similarity of the
chunk to the query, raised by the model's cross-language offset when the chunk is in
another language than the query (`language_pairs.py`) — never to the fused rank score,
whose scale depends on list sizes. The search reports `no_result` when even the best
match is below the threshold (retrieval triage), and drops any fused chunk below it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

import numpy as np

from frontdesk.knowledge.index.base import KnowledgeIndex, StoredChunk, Vector, rrf_fuse
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk
from frontdesk.knowledge.search.language_pairs import relevance
from frontdesk.knowledge.search.query import (
    FusionWeights,
    SearchOptions,
    bounded_query,
    fusion_weights,
    is_case_study,
    query_language,
    unshouted,
)
from frontdesk.knowledge.search.query_cache import (
    DEFAULT_SIZE,
    InMemoryQueryCache,
    LruCache,
    QueryCache,
)
from frontdesk.knowledge.search.titles import TitleVectors, blend_by_title
from frontdesk.text.embedding import Embedder
from frontdesk.text.lexical import passage_language, query_terms

log = logging.getLogger(__name__)


class Reranker(Protocol):
    """Optional second stage: scores for the fused candidates (higher is better)."""

    def rerank(self, query: str, chunks: Sequence[RetrievedChunk]) -> Sequence[float]: ...


class Candidates(NamedTuple):
    fused: list[tuple[str, float]]  # (chunk id, rank score), best first
    cosines: dict[str, float]
    top_score: float
    read: dict[str, StoredChunk]  # chunks the search has already read, by id


DEFAULT_RESULT_CACHE_SIZE = 1024
DEFAULT_LANGUAGE_CACHE_SIZE = 65_536


class Retriever:
    """Searches one index with one embedder. Thread-safe; keep one per process and model.

    Question vectors come from `query_cache` (default: an in-process LRU of
    `query_cache_size` vectors; `query_cache_for` layers Redis under it for replicas)."""

    def __init__(
        self,
        index: KnowledgeIndex,
        embedder: Embedder,
        *,
        reranker: Reranker | None = None,
        query_cache: QueryCache | None = None,
        query_cache_size: int = DEFAULT_SIZE,
        result_cache_size: int = DEFAULT_RESULT_CACHE_SIZE,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.reranker = reranker
        self.query_cache = (
            InMemoryQueryCache(query_cache_size) if query_cache is None else query_cache
        )
        # Results of repeated searches. Keys carry the site's index revision, which every
        # ingest or removal changes, so no result is served for content changed since.
        # Visitors repeat questions word for word (suggested questions, the same opening
        # question); such a search is then a lookup instead of a query embedding and a
        # scan of every chunk vector. Results are shared: callers must not mutate them.
        self.results: LruCache[tuple[object, ...], RetrievalResult] = LruCache(result_cache_size)
        # Indexes without revisions (test doubles) are searched every time.
        self._revision: Callable[[str], int] | None = getattr(index, "revision", None)
        self.titles = TitleVectors(index, embedder.name)
        # Each chunk's language, detected once per process (chunk ids carry the content's
        # hash, so an edited chunk is detected again); keyed with the site's language,
        # the guess when a passage can't tell.
        self.passage_languages: LruCache[tuple[str, str], str] = LruCache(
            DEFAULT_LANGUAGE_CACHE_SIZE
        )

    def passage_language(self, chunk: StoredChunk, site_language: str) -> str:
        """The language stored with the chunk at ingest; detected (once per process) for
        chunks written before languages were stored."""
        if chunk.language:
            return chunk.language
        key = (chunk.chunk_id, site_language)
        language = self.passage_languages.get(key)
        if language is None:
            language = passage_language(chunk.content, site_language)
            self.passage_languages.put(key, language)
        return language

    def embed_query(self, query: str) -> Vector:
        model = self.embedder.name
        cached = self.query_cache.get(model, query)
        if cached is not None:
            return cached
        vector = np.asarray(self.embedder.embed_query(unshouted(query)), dtype=np.float32)
        self.query_cache.put(model, query, vector)
        return vector

    def search(
        self, site_id: str, query: str, options: SearchOptions | None = None
    ) -> RetrievalResult:
        """Top chunks of `site_id` for `query`, or `no_result` / `error` with a reason."""
        options = options or SearchOptions()
        query = bounded_query(query)
        if not query:
            return RetrievalResult.no_result("empty_query")
        key: tuple[object, ...] | None = None
        if self._revision is not None and self.results.max_items > 0:
            try:
                key = (site_id, self._revision(site_id), query, options)
            except Exception:
                log.exception("search_failure site=%s", site_id)
                return RetrievalResult.error("search_failure")
            cached = self.results.get(key)
            if cached is not None:
                return cached
        try:
            vector = self.embed_query(query)
        except Exception:
            log.exception("embedding_failure site=%s", site_id)
            return RetrievalResult.error("embedding_failure")
        try:
            result = self._search(site_id, query, vector, options)
        except Exception:
            log.exception("search_failure site=%s", site_id)
            return RetrievalResult.error("search_failure")
        if key is not None:
            self.results.put(key, result)  # errors return above: never cached
        return result

    def search_with_vector(
        self, site_id: str, query: str, vector: Vector, options: SearchOptions
    ) -> RetrievalResult:
        """The search after query embedding (used by benchmarks to time the index alone)."""
        return self._search(site_id, query, vector, options)

    def _search(
        self, site_id: str, query: str, vector: Vector, options: SearchOptions
    ) -> RetrievalResult:
        model = self.embedder.name
        language = query_language(query, options.language)
        words = query_terms(query, language)
        weights = fusion_weights(query, options, getattr(self.embedder, "languages", None))
        candidates = self._candidates(site_id, model, vector, words, options, weights)
        if candidates is None:
            return RetrievalResult.no_result("empty_index", threshold=options.relevance_threshold)
        fused, cosines, top_cosine, read = candidates
        threshold = options.relevance_threshold
        offset = max(options.cross_language_offset, 0.0)
        # No chunk can reach the threshold when even the best cosine plus the offset misses.
        floor = None if threshold is None else threshold - offset
        if floor is not None and top_cosine < floor:
            return RetrievalResult.no_result(
                "below_threshold", top_score=top_cosine, threshold=threshold
            )
        depth = options.top_k * 3 if self.reranker else options.top_k
        eligible = [
            chunk_id
            for chunk_id, _ in fused
            if chunk_id in cosines and (floor is None or cosines[chunk_id] >= floor)
        ]
        # Chunks are read in rank order until `depth` of them pass: with an offset, one
        # under the threshold by its cosine may pass by its language, and one above it by
        # its cosine is still read (its relevance is what the bars downstream compare).
        stored = dict(read)
        languages: dict[str, str] = {}
        scores: dict[str, float] = {}
        kept: list[str] = []

        def examine(chunk_ids: list[str], *, rank: bool = True) -> None:
            unread = [chunk_id for chunk_id in chunk_ids if chunk_id not in stored]
            if unread:
                stored.update(self.index.get_chunks(site_id, unread))
            for chunk_id in chunk_ids:
                if chunk_id not in stored or chunk_id in scores:
                    continue
                score = cosines[chunk_id]
                if offset > 0:
                    languages[chunk_id] = self.passage_language(stored[chunk_id], options.language)
                    score = relevance(score, language, languages[chunk_id], offset)
                scores[chunk_id] = score
                if rank and (threshold is None or score >= threshold):
                    kept.append(chunk_id)

        position = 0
        while len(kept) < depth and position < len(eligible):
            batch = eligible[position : position + depth - len(kept)]
            position += len(batch)
            examine(batch)
        if offset > 0:
            # The best cosine's relevance counts for the top score (the support bar reads
            # it) even when its rank keeps it out of the results.
            best = max(eligible, key=lambda chunk_id: cosines[chunk_id], default=None)
            if best is not None and best not in scores:
                examine([best], rank=False)
        top_score = max([top_cosine, *scores.values()])
        rank_scores = dict(fused)
        chunks = [
            _retrieved(
                stored[chunk_id],
                scores[chunk_id],
                rank_scores[chunk_id],
                cosines[chunk_id],
                languages.get(chunk_id),
            )
            for chunk_id in kept[:depth]
        ]
        if threshold is not None and top_score < threshold:
            return RetrievalResult.no_result(
                "below_threshold", top_score=top_score, threshold=threshold
            )
        if self.reranker and chunks:
            reranked = list(self.reranker.rerank(query, chunks))
            order = sorted(range(len(chunks)), key=lambda i: -reranked[i])
            chunks = [chunks[i] for i in order]
        chunks = chunks[: options.top_k]
        if not chunks:
            return RetrievalResult.no_result(
                "below_threshold", top_score=top_score, threshold=threshold
            )
        proactive = options.proactive_threshold
        return RetrievalResult(
            status="ok",
            chunks=chunks,
            top_score=top_score,
            threshold=threshold,
            proactive_case_study=bool(
                proactive is not None and is_case_study(chunks[0]) and chunks[0].score >= proactive
            ),
        )

    def _candidates(
        self,
        site_id: str,
        model: str,
        vector: Vector,
        words: list[str],
        options: SearchOptions,
        weights: FusionWeights,
    ) -> Candidates | None:
        """Fused (chunk, rank score) list, cosines, the best cosine and the chunks already
        read (to rank by their page titles); None: empty index.

        An index with `hybrid_search` (both shipped ones) fuses on its side, unless page
        titles weigh in the dense list (`titles.py`); otherwise the dense, lexical and
        heading lists are fetched and fused here."""
        hybrid = getattr(self.index, "hybrid_search", None)
        if hybrid is not None and options.title_weight <= 0:
            hits = hybrid(
                site_id,
                model,
                vector,
                words,
                limit=options.candidates,
                dense_weight=weights.dense,
                lexical_weight=weights.lexical,
                heading_weight=weights.heading,
                rrf_k=options.rrf_k,
            )
            scored = {h.chunk_id: h.cosine for h in hits if h.cosine is not None}
            if not scored:
                return None
            fused_hybrid = [(h.chunk_id, h.rank_score) for h in hits]
            return Candidates(fused_hybrid, scored, max(scored.values()), {})
        dense = self.index.dense_search(site_id, model, vector, options.candidates)
        if not dense:
            return None
        cosines = {hit.chunk_id: hit.score for hit in dense}
        top_score = max(cosines.values())
        stored: dict[str, StoredChunk] = {}
        if options.title_weight > 0:
            stored = self.index.get_chunks(site_id, list(cosines))
            titles = self.titles.cosines(stored, vector)
            dense = blend_by_title(
                [hit for hit in dense if hit.chunk_id in stored], titles, options.title_weight
            )
        lexical = self.index.lexical_search(site_id, words, options.candidates) if words else []
        headings = (
            self.index.heading_search(site_id, words, options.candidates)
            if words and weights.heading > 0
            else []
        )
        fused = rrf_fuse(
            [(dense, weights.dense), (lexical, weights.lexical), (headings, weights.heading)],
            k=options.rrf_k,
        )
        missing = [chunk_id for chunk_id, _ in fused if chunk_id not in cosines]
        if missing:
            cosines.update(self.index.cosine_scores(site_id, model, vector, missing))
        return Candidates(fused, cosines, top_score, stored)


def _retrieved(
    chunk: StoredChunk, score: float, rank_score: float, cosine: float, language: str | None
) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        title=chunk.title,
        url=chunk.url,
        content=chunk.content,
        score=round(score, 6),
        source=chunk.source,
        chunk_index=chunk.chunk_index,
        heading_path=chunk.heading_path,
        rank_score=round(rank_score, 6),
        cosine=round(cosine, 6),
        language=language,
    )
