"""Ingestion: load → chunk → embed (cached by content hash) → index, incrementally.

A document's fingerprint covers its content, the chunking options and the embedding
model. Re-ingesting skips documents whose fingerprint is unchanged, re-chunks and
re-indexes changed ones (unchanged chunks reuse their cached vectors) and, for a
directory, removes documents that came from it and are gone.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from frontdesk.facts.extract import FACTS_VERSION, document_facts
from frontdesk.facts.meaning import confirmed
from frontdesk.facts.store import FactStore
from frontdesk.knowledge.index.base import KnowledgeIndex, Vector
from frontdesk.knowledge.ingest.chunker import TokenCounter, chunk_document
from frontdesk.knowledge.ingest.encoded import embedding_text
from frontdesk.knowledge.ingest.loaders import LoaderError, load_bytes, load_path
from frontdesk.knowledge.ingest.pace import WritePace
from frontdesk.knowledge.injection.instructions import reason_label, withhold_instructions
from frontdesk.knowledge.models import Chunk, Document, IngestReport, content_hash
from frontdesk.knowledge.search.titles import page_title, title_texts
from frontdesk.text.embedding import Embedder
from frontdesk.text.lexical import lexical_text, passage_language, text_language

# 2: lines that instruct the assistant are withheld before chunking (instructions.py).
# 5: sentences addressed to an AI or asking for a secret are withheld too (planted.py).
# 3: tokens are counted with the embedding model's tokenizer, chunks fit its window.
# 4: machine-encoded runs are left out of what the embedding model reads.
# (title, heading path, content) -> the texts of a passage's quotable units.
UnitTexts = Callable[[str, Sequence[str], str], list[str]]
log = logging.getLogger(__name__)
CHUNKER_VERSION = "5"
# Lexical rows are stemmed in each document's detected language (was: the site's).
LEXICAL_VERSION = "lexical-per-document-language"
EMBED_BATCH = 64


@dataclass(frozen=True)
class IngestOptions:
    chunk_size: int = 512
    chunk_overlap: int = 64
    language: str = "en"
    progress: bool = True
    # Embed each page's title too (into the embedding cache), for searches that rank by
    # it (`titles.py`).
    title_vectors: bool = False
    # Embed every sentence, list item and table row too (into the embedding cache), for
    # the local writer that chooses them by meaning: the writer's own `unit_texts`
    # (`engines/local/answering/meaning.py`; passed in, the knowledge package does not
    # know the engines). Off: it costs about 1.4 times the chunks' own embedding
    # (benchmarks/ingest_speed.py), while an answer needs the units of one page, embedded
    # once and then cached (`KnowledgeBase.passage_vectors`).
    unit_texts: UnitTexts | None = None


def effective_options(options: IngestOptions, embedder: Embedder) -> IngestOptions:
    """Chunk size capped at the embedding model's input window (MiniLM: 256 word pieces,
    e5: 512 sentence pieces): text past the window would be invisible to dense search."""
    window = getattr(embedder, "max_input_tokens", None)
    if not isinstance(window, int) or window <= 0 or options.chunk_size <= window:
        return options
    overlap = min(options.chunk_overlap, window // 4)
    return replace(options, chunk_size=window, chunk_overlap=overlap)


FINGERPRINT_CHARS = 64  # the column's width


def fingerprint(document: Document, options: IngestOptions, embedding_model: str) -> str:
    """`<chunker version>:<hash>`: the version stays readable, so a crawl can tell which
    pages an older chunker cut (and may hold what it did not withhold) without their text."""
    prefix = f"{CHUNKER_VERSION}:"
    digest = content_hash(
        "\x1f".join(
            [
                CHUNKER_VERSION,
                document.content_hash,
                document.source,
                str(options.chunk_size),
                str(options.chunk_overlap),
                options.language,
                embedding_model,
                LEXICAL_VERSION,
                # Titles embedded too: a site indexed without them is processed once more
                # (chunk vectors from the cache), so that its titles get embedded.
                *(["titles"] if options.title_vectors else []),
                *(["units"] if options.unit_texts is not None else []),
                # A new way of reading facts reads every document again (chunk vectors
                # from the cache); a page whose header or footer facts changed too.
                FACTS_VERSION,
                *(fact.to_json() for fact in document.facts),
            ]
        )
    )
    return prefix + digest[: FINGERPRINT_CHARS - len(prefix)]


def chunked_by_current_chunker(stored_fingerprint: str) -> bool:
    """Whether a stored document was cut by this chunker version (fingerprints from before
    the version was readable have none, and count as older)."""
    return stored_fingerprint.startswith(f"{CHUNKER_VERSION}:")


@dataclass
class _Pending:
    document: Document
    fingerprint: str
    chunks: list[Chunk]
    is_new: bool


class Ingestor:
    """Writes documents of one site into an index with one embedder."""

    def __init__(
        self,
        index: KnowledgeIndex,
        embedder: Embedder,
        options: IngestOptions | None = None,
        *,
        console: Console | None = None,
        facts: FactStore | None = None,
    ) -> None:
        self.index = index
        self.facts = facts  # None: the site's facts are not kept (an index without a store)
        self.embedder = embedder
        self.options = effective_options(options or IngestOptions(), embedder)
        self.console = console or Console(stderr=True)
        # The model's own tokenizer sizes chunks when it has one; its window bounds them.
        counter = getattr(embedder, "count_tokens", None)
        window = getattr(embedder, "max_input_tokens", None)
        self.token_counter: TokenCounter | None = counter if callable(counter) else None
        self.max_tokens = window if self.token_counter and isinstance(window, int) else None

    def ingest_path(self, site_id: str, path: Path, *, prune: bool = True) -> IngestReport:
        """A file or a directory (recursive). For a directory, `prune` removes documents
        previously ingested from it whose files are gone."""
        report = IngestReport()
        documents: list[Document] = []
        seen_sources: set[str] = set()
        for outcome in load_path(path):
            seen_sources.add(str(outcome.path.resolve()))
            if outcome.document is not None:
                documents.append(outcome.document)
            else:
                report.failed[str(outcome.path)] = outcome.error or "failed"
        self.ingest_documents(site_id, documents, report)
        if prune and path.is_dir():
            root = str(path.resolve()) + os.sep
            gone = [
                stored.doc_id
                for stored in self.index.list_documents(site_id)
                if stored.source.startswith(root) and stored.source not in seen_sources
            ]
            self.index.remove_documents(site_id, gone)
            report.removed.extend(gone)
        return report

    def ingest_upload(self, site_id: str, data: bytes, filename: str) -> IngestReport:
        """One uploaded file (bytes + its name)."""
        report = IngestReport()
        try:
            document = load_bytes(data, filename)
        except LoaderError as exc:
            report.failed[filename] = str(exc)
            return report
        return self.ingest_documents(site_id, [document], report)

    def ingest_documents(
        self,
        site_id: str,
        documents: Iterable[Document],
        report: IngestReport | None = None,
        *,
        paced: bool = False,
    ) -> IngestReport:
        """`paced`: background work (a site's sync), which leaves the database to the
        visitors' turns between two documents' writes (`WritePace`)."""
        report = report if report is not None else IngestReport()
        model = self.embedder.name
        stored = {doc.doc_id: doc for doc in self.index.list_documents(site_id)}
        pending: list[_Pending] = []
        for document in documents:
            print_ = fingerprint(document, self.options, model)
            previous = stored.get(document.doc_id)
            if previous is not None and previous.fingerprint == print_:
                report.skipped.append(document.doc_id)
                continue
            document = self._withhold_instructions(site_id, document, report)
            try:
                chunks = chunk_document(
                    document,
                    chunk_size=self.options.chunk_size,
                    chunk_overlap=self.options.chunk_overlap,
                    tokens=self.token_counter,
                    max_tokens=self.max_tokens,
                )
            except Exception as exc:  # a bug in one document must not stop the others
                report.failed[document.doc_id] = f"{document.doc_id}: cannot chunk ({exc})"
                continue
            pending.append(_Pending(document, print_, chunks, previous is None))
        vectors = self._embed([chunk for item in pending for chunk in item.chunks], report)
        if self.options.title_vectors:
            self._embed_titles([chunk for item in pending for chunk in item.chunks])
        if self.options.unit_texts is not None:
            units = self.options.unit_texts
            self._embed_units([chunk for item in pending for chunk in item.chunks], units, report)
        pace = WritePace() if paced else None
        for item in pending:
            rows = [vectors[chunk.content_hash] for chunk in item.chunks]
            matrix = np.vstack(rows) if rows else np.zeros((0, 1), dtype=np.float32)
            language = text_language(item.document.text, self.options.language)
            # Each passage's own language, for searches that weigh it (the retriever).
            chunks = [
                replace(chunk, language=passage_language(chunk.content, language))
                for chunk in item.chunks
            ]
            lexical = [lexical_text(chunk.indexed_text, language) for chunk in chunks]
            facts = (
                confirmed(document_facts(item.document, language), self.embedder)
                if self.facts is not None
                else ()
            )
            started = time.perf_counter()
            self.index.replace_document(
                site_id, item.document, item.fingerprint, chunks, matrix, lexical, model
            )
            if self.facts is not None:
                self.facts.replace_document(site_id, item.document.doc_id, facts)
            if pace is not None:
                pace.rest_after(time.perf_counter() - started)
            (report.ingested if item.is_new else report.updated).append(item.document.doc_id)
            report.chunks_total += len(item.chunks)
        return report

    def _withhold_instructions(
        self, site_id: str, document: Document, report: IngestReport
    ) -> Document:
        """The document without lines that speak to the assistant: they are never indexed,
        so no writer can quote or obey them; the team sees them in the report and on the
        stored document."""
        own_host = urlsplit(document.url).hostname if document.url else None
        text, planted = withhold_instructions(document.text, own_hosts=[own_host or ""])
        # Hidden text the loader dropped is reported with what the detector withheld.
        withheld = [*document.withheld, *planted]
        if not withheld:
            return document
        report.withheld[document.doc_id] = withheld
        log.warning(
            "knowledge_passages_withheld site=%s doc=%s passages=%d reasons=%s",
            site_id,
            document.doc_id,
            len(withheld),
            ",".join(sorted({passage.reason for passage in withheld})),
        )
        if self.options.progress:
            for passage in withheld:
                self.console.print(
                    f"[yellow]withheld[/] {document.doc_id}: {passage.excerpt!r} "
                    f"({reason_label(passage.reason)})",
                    markup=True,
                    highlight=False,
                )
        return replace(document, text=text, withheld=tuple(withheld))

    def _embed(self, chunks: Sequence[Chunk], report: IngestReport) -> dict[str, Vector]:
        """Vectors by chunk content hash: from the cache, or embedded in batches and cached.
        The cache's key is the hash of the text embedded (the same as the chunk's unless
        encoded runs were left out)."""
        model = self.embedder.name
        inputs = {chunk.content_hash: embedding_text(chunk) for chunk in chunks}
        keys = {digest: content_hash(text) for digest, text in inputs.items()}
        texts = {keys[digest]: text for digest, text in inputs.items()}
        vectors = self._embed_texts(model, texts, report)
        return {digest: vectors[key] for digest, key in keys.items()}

    def _embed_titles(self, chunks: Sequence[Chunk]) -> None:
        """Page titles into the embedding cache, so that no search embeds one (a few
        short texts per page; not counted as chunks embedded)."""
        self._embed_title_texts(
            title_texts([page_title(chunk.heading_path, chunk.title) for chunk in chunks])
        )

    def embed_page_titles(self, site_id: str) -> None:
        """Every titled page's title into the embedding cache (those already there cost
        one read). For pages kept as they were: a crawl never re-ingests an unchanged
        page, so a site crawled before titles counted gets them from its next crawl. (A
        page without a title, whose first heading stands in, gets it when next ingested:
        the fingerprint includes the titles.)"""
        if self.options.title_vectors:
            stored = self.index.list_documents(site_id)
            self._embed_title_texts(title_texts([doc.title.strip() for doc in stored]))

    def _embed_units(
        self, chunks: Sequence[Chunk], unit_texts: UnitTexts, report: IngestReport
    ) -> None:
        """Every quotable unit of the chunks into the embedding cache, as the local writer
        embeds it, so that choosing sentences by meaning embeds only the question."""
        texts = [
            text
            for chunk in chunks
            for text in unit_texts(chunk.title, chunk.heading_path, chunk.content)
        ]
        report.units_embedded += self._embed_title_texts(
            {content_hash(text): text for text in texts}
        )

    def _embed_title_texts(self, titles: dict[str, str]) -> int:
        """Short texts into the embedding cache (those already there cost one read); how
        many were embedded."""
        model = self.embedder.name
        cached = self.index.cached_vectors(model, list(titles))
        missing = [digest for digest in titles if digest not in cached]
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            embedded = self.embedder.embed_documents([titles[d] for d in batch])
            self.index.cache_vectors(model, {d: embedded[i] for i, d in enumerate(batch)})
        return len(missing)

    def _embed_texts(
        self, model: str, texts: dict[str, str], report: IngestReport
    ) -> dict[str, Vector]:
        vectors = self.index.cached_vectors(model, list(texts))
        missing = [digest for digest in texts if digest not in vectors]
        if not missing:
            return vectors
        with Progress(
            TextColumn("[bold]embedding[/] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
            disable=not self.options.progress,
        ) as progress:
            task = progress.add_task(model, total=len(missing))
            for start in range(0, len(missing), EMBED_BATCH):
                batch = missing[start : start + EMBED_BATCH]
                embedded = self.embedder.embed_documents([texts[d] for d in batch])
                fresh = {digest: embedded[i] for i, digest in enumerate(batch)}
                self.index.cache_vectors(model, fresh)
                vectors.update(fresh)
                report.chunks_embedded += len(batch)
                progress.advance(task, len(batch))
        return vectors
