"""An English site's second index: its pages embedded by an English-trained model too.

multilingual-e5-small (the default) answers questions in any language; on English help
centres with many similar pages all-MiniLM-L6-v2, trained on English alone, ranks some
questions better, and neither is better on every set; together they rank better than
either on most (benchmarks/RESULTS.md, "Ways to combine the two models"). On a site whose
language is English, `knowledge.english_embedding` (auto: MiniLM, on onnxruntime, beside
the default model; null turns it off) keeps a companion index of the same documents, in
that model's own chunks, under the key `<site id>#<model>` (site ids and generation keys
never contain `#`). An English question is searched in both and the default search's
chunks are reordered with the second model's page ranking (`search/fusion.py`); the
default model's threshold decides what is returned, so abstention is the default model's.
A question in another language is searched as on any other site.

Ingests through `KnowledgeBase` write both indexes, and a crawl brings the second one level
once it has applied its pages (`web/sync.py` `site_sync`). Whatever reaches the default
index another way (a re-embed, a site that turned the companion on) is caught up in the
background: the first search that finds the companion behind the default index
(documents missing, removed or older) starts a sync, and searches use the default index
alone until it is done.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from frontdesk.knowledge.index.base import StoredDocument
from frontdesk.knowledge.ingest.reembed import ReembedReport, recover_documents
from frontdesk.knowledge.models import IngestReport, RetrievalResult
from frontdesk.knowledge.search.fusion import document_order, reordered
from frontdesk.knowledge.search.query import SearchOptions, query_language
from frontdesk.knowledge.site import SiteKnowledge, second_model

if TYPE_CHECKING:
    from frontdesk.knowledge.ingest.ingestor import Ingestor
    from frontdesk.knowledge.service import KnowledgeBase

log = logging.getLogger(__name__)
# Chunks of each search that the document fusion ranks (as `eval retrieval` reads 30).
FUSION_DEPTH = 30


def companion_key(site_id: str, model: str) -> str:
    return f"{site_id}#{model}"


def companion_model(knowledge: SiteKnowledge) -> str | None:
    """The second model of an English site; None: the site has no companion index."""
    model = second_model(knowledge.config)
    if not model or knowledge.language != "en" or model == knowledge.config.embedding:
        return None
    return model


def behind(primary: list[StoredDocument], companion: list[StoredDocument]) -> list[str]:
    """Documents the companion lacks, holds in an older version, or holds in excess."""
    theirs = {doc.doc_id: doc for doc in companion}
    ours = {doc.doc_id for doc in primary}
    stale = [
        doc.doc_id
        for doc in primary
        if doc.doc_id not in theirs
        or (
            doc.updated_at is not None
            and (theirs[doc.doc_id].updated_at or doc.updated_at) < doc.updated_at
        )
    ]
    return stale + [doc_id for doc_id in theirs if doc_id not in ours]


class Companions:
    """The companion indexes of one `KnowledgeBase`."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self._in_sync: dict[str, tuple[object, object]] = {}
        self._syncs: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    def knowledge(self, knowledge: SiteKnowledge, model: str) -> SiteKnowledge:
        """The site as the companion model searches and ingests it (its own defaults)."""
        companion = knowledge.with_model(model)
        config = companion.config.model_copy(update={"title_weight": None, "heading_weight": None})
        return replace(companion, config=config)

    def ingestor(self, knowledge: SiteKnowledge, model: str, *, progress: bool) -> Ingestor:
        from frontdesk.knowledge.ingest.ingestor import Ingestor

        companion = self.knowledge(knowledge, model)
        # No fact store: the site's facts are read once, by the default index's ingest.
        return Ingestor(
            self.kb.index,
            self.kb.embedder(companion),
            companion.ingest_options(progress=progress),
            console=self.kb.console,
        )

    def write(
        self,
        knowledge: SiteKnowledge,
        progress: bool,
        write: Callable[[Ingestor, str], IngestReport],
    ) -> IngestReport | None:
        """Run the ingest `write(ingestor, key)` on the companion index too (failures are
        logged: the default index has the document, and a later search catches up)."""
        model = companion_model(knowledge)
        if model is None:
            return None
        try:
            return write(
                self.ingestor(knowledge, model, progress=progress),
                companion_key(knowledge.site_id, model),
            )
        except Exception:
            log.exception("companion_ingest_failed site=%s model=%s", knowledge.site_id, model)
            return None

    def drop_unused(self, knowledge: SiteKnowledge) -> None:
        """`prune` before a write (every ingestor): a failure is logged, never raised."""
        try:
            self.prune(knowledge)
        except Exception:  # the next ingest, crawl or reindex tries again
            log.exception("companion_prune_failed site=%s", knowledge.site_id)

    def prune(self, knowledge: SiteKnowledge) -> list[str]:
        """Drop the site's second indexes that its configuration no longer names (turned
        off, another model, the site's language no longer English); the keys dropped.
        Read from the site's settings, not the model of the generation being written: an
        old generation's ingestor keeps the second index too."""
        keep = second_model(knowledge.config) if knowledge.language == "en" else None
        kept = companion_key(knowledge.site_id, keep) if keep else None
        dropped = []
        for key in self.kb.index.index_keys(companion_key(knowledge.site_id, "")):
            if key == kept:
                continue
            documents = [doc.doc_id for doc in self.kb.index.list_documents(key)]
            self.kb.index.remove_documents(key, documents)
            self._in_sync.pop(key, None)
            dropped.append(key)
            log.info("companion_dropped site=%s index=%s", knowledge.site_id, key)
        return dropped

    def remove(self, knowledge: SiteKnowledge, doc_id: str) -> None:
        model = companion_model(knowledge)
        if model is not None:
            self.kb.index.remove_documents(companion_key(knowledge.site_id, model), [doc_id])

    def depth(self, knowledge: SiteKnowledge, query: str, options: SearchOptions) -> SearchOptions:
        """The default search's options: deeper when the companion will reorder it."""
        if companion_model(knowledge) is None or not self._english(query, options):
            return options
        return replace(options, top_k=max(options.top_k, FUSION_DEPTH))

    @staticmethod
    def _english(query: str, options: SearchOptions) -> bool:
        return query_language(query, options.language) == "en"

    def refine(
        self,
        knowledge: SiteKnowledge,
        key: str,
        query: str,
        options: SearchOptions,
        result: RetrievalResult,
    ) -> RetrievalResult:
        """`result` (the default search, `depth` deep) reordered with the companion's
        ranking and cut to `options.top_k`; as it is when the companion can't help."""
        model = companion_model(knowledge)
        if model is None or result.status != "ok" or not self._english(query, options):
            return replace_top_k(result, options.top_k)
        try:
            ckey = companion_key(knowledge.site_id, model)
            if not self.in_sync(knowledge, key, ckey, model):
                return replace_top_k(result, options.top_k)
            companion = self.knowledge(knowledge, model)
            searched = replace(
                companion.search_options(FUSION_DEPTH),
                relevance_threshold=None,
                proactive_threshold=None,
                language=options.language,
            )
            other = self.kb.retriever(companion).search(ckey, query, searched)
        except Exception:
            log.exception("companion_search_failed site=%s model=%s", knowledge.site_id, model)
            return replace_top_k(result, options.top_k)
        if other.status != "ok":
            return replace_top_k(result, options.top_k)
        return reordered(
            result,
            document_order(other.chunks),
            k=options.rrf_k,
            top_k=options.top_k,
            proactive_threshold=options.proactive_threshold,
        )

    def in_sync(self, knowledge: SiteKnowledge, key: str, ckey: str, model: str) -> bool:
        """Whether the companion holds every document of `key` as it is now; when not, a
        background sync starts."""
        revision = getattr(self.kb.index, "revision", None)
        state = (revision(key), revision(ckey)) if revision is not None else None
        if state is not None and self._in_sync.get(ckey) == state:
            return True
        lagging = behind(self.kb.index.list_documents(key), self.kb.index.list_documents(ckey))
        if not lagging:
            if state is not None:
                self._in_sync[ckey] = state
            return True
        self._start_sync(knowledge, key, ckey, model, lagging)
        return False

    def catch_up(self, knowledge: SiteKnowledge) -> None:
        """Bring the second index level with the default one now, in this thread (after a
        crawl wrote the default index alone), instead of at the next English search. A
        failure is logged: the next search catches up."""
        model = companion_model(knowledge)
        if model is None:
            return
        key, ckey = self.kb.index_key(knowledge), companion_key(knowledge.site_id, model)
        try:
            # Twice: a sync a search started may have read the documents before ours.
            for _ in range(2):
                primary = self.kb.index.list_documents(key)
                lagging = behind(primary, self.kb.index.list_documents(ckey))
                if not lagging:
                    return
                self._start_sync(knowledge, key, ckey, model, lagging).join()
        except Exception:
            log.exception("companion_catch_up_failed site=%s model=%s", knowledge.site_id, model)

    def _start_sync(
        self, knowledge: SiteKnowledge, key: str, ckey: str, model: str, lagging: list[str]
    ) -> threading.Thread:
        """The thread syncing `ckey`: the one already running, else a new one."""
        with self._lock:
            running = self._syncs.get(ckey)
            if running is not None and running.is_alive():
                return running
            thread = threading.Thread(
                target=self.sync,
                args=(knowledge, key, ckey, model, lagging),
                name=f"companion-{knowledge.site_id}",
                daemon=True,
            )
            self._syncs[ckey] = thread
            thread.start()
            return thread

    def sync(
        self, knowledge: SiteKnowledge, key: str, ckey: str, model: str, lagging: list[str]
    ) -> None:
        """Rewrite the lagging documents in the companion from the default index (their
        file when still on disk, else their chunks: `reembed.recover_documents`)."""
        try:
            self.kb.index.remove_documents(ckey, lagging)
            wanted = set(lagging)
            stored = [doc for doc in self.kb.index.list_documents(key) if doc.doc_id in wanted]
            report = ReembedReport(knowledge.site_id, model, model)
            documents = recover_documents(
                stored, getattr(self.kb.index, "engine", None), key, report
            )
            ingestor = self.ingestor(knowledge, model, progress=False)
            ingestor.ingest_documents(ckey, documents, report.ingest, paced=True)  # background work
            log.info("companion_synced site=%s documents=%d", knowledge.site_id, len(documents))
        except Exception:
            log.exception("companion_sync_failed site=%s model=%s", knowledge.site_id, model)


def replace_top_k(result: RetrievalResult, top_k: int) -> RetrievalResult:
    if len(result.chunks) <= top_k:
        return result
    return result.model_copy(update={"chunks": result.chunks[:top_k]})
