"""Re-embedding a site's knowledge with a new model, beside the index that answers.

The documents of the serving generation are recovered — from their file when it is still
on disk (the same text `kb ingest` read), otherwise rebuilt from their stored chunks in
order (headings restored, the overlap between consecutive chunks removed) — and ingested
under the pending generation's key with the new model, chunked with its tokenizer; what
a crawl changed or removed in the serving generation meanwhile is copied again. Then
`GenerationStore.switch` makes the new generation the serving one in one statement, and
the old generation's chunks are removed.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from sqlalchemy import Engine, text

from frontdesk.knowledge.index.base import KnowledgeIndex, StoredDocument
from frontdesk.knowledge.index.generations import (
    Generation,
    GenerationStore,
    MemoryGenerationStore,
)
from frontdesk.knowledge.ingest.ingestor import Ingestor
from frontdesk.knowledge.ingest.loaders import LoaderError, load_file
from frontdesk.knowledge.models import Document, DocumentKind, IngestReport

log = logging.getLogger(__name__)
_MAX_OVERLAP_CHARS = 4_000
# Passes over the old generation: the whole copy, then what changed while the previous
# pass ran. A site still changing after the last one switches with what was copied.
COPY_PASSES = 3


@dataclass
class ReembedReport:
    site_id: str
    old_model: str
    new_model: str
    switched: bool = False
    from_files: int = 0
    from_chunks: int = 0
    ingest: IngestReport = field(default_factory=IngestReport)


@dataclass(frozen=True)
class _StoredPiece:
    chunk_index: int
    content: str
    heading_path: tuple[str, ...]


def _stored_pieces(engine: Engine, index_key: str) -> dict[str, list[_StoredPiece]]:
    """Every chunk of the generation, per document, in order (read-only; the chunk table
    has the same columns on SQLite and PostgreSQL)."""
    pieces: dict[str, list[_StoredPiece]] = defaultdict(list)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT doc_id, chunk_index, content, heading_path FROM knowledge_chunks"
                " WHERE site_id = :site ORDER BY doc_id, chunk_index"
            ),
            {"site": index_key},
        )
        for doc_id, chunk_index, content, heading_path in rows:
            pieces[doc_id].append(
                _StoredPiece(int(chunk_index), content or "", tuple(json.loads(heading_path)))
            )
    return pieces


def _without_overlap(previous: str, current: str) -> str:
    """`current` without the start it repeats from the end of `previous` (chunk overlap)."""
    longest = min(len(previous), len(current), _MAX_OVERLAP_CHARS)
    for size in range(longest, 19, -1):
        if previous.endswith(current[:size]):
            return current[size:].lstrip()
    return current


def text_from_chunks(title: str, pieces: list[_StoredPiece]) -> str:
    """A Markdown document equivalent to the chunks: headings where the path changes."""
    lines: list[str] = []
    path: tuple[str, ...] = ()
    previous = ""
    for piece in sorted(pieces, key=lambda p: p.chunk_index):
        headings = (
            piece.heading_path[1:]
            if title and piece.heading_path[:1] == (title,)
            else (piece.heading_path)
        )
        if headings != path:
            shared = 0
            while shared < min(len(path), len(headings)) and path[shared] == headings[shared]:
                shared += 1
            lines += [f"{'#' * (level + 2)} {name}" for level, name in enumerate(headings)][shared:]
            path = headings
            previous = ""
        body = _without_overlap(previous, piece.content) if previous else piece.content
        if body.strip():
            lines.append(body)
        previous = piece.content
    return "\n\n".join(lines)


def _kind(value: str) -> DocumentKind:
    for kind in get_args(DocumentKind):
        if kind == value:
            return kind  # type: ignore[no-any-return]
    return "text"


def recover_documents(
    stored: list[StoredDocument], engine: Engine | None, index_key: str, report: ReembedReport
) -> list[Document]:
    pieces = _stored_pieces(engine, index_key) if engine is not None else {}
    documents: list[Document] = []
    for doc in stored:
        path = Path(doc.source)
        if doc.source and path.is_absolute() and path.is_file():
            try:
                loaded = load_file(path, doc_id=doc.doc_id)
            except (LoaderError, OSError) as exc:
                log.warning(
                    "reembed_file_unreadable doc=%s (%s); using its chunks", doc.doc_id, exc
                )
            else:
                documents.append(
                    Document(
                        doc.doc_id,
                        doc.title or loaded.title,
                        loaded.text,
                        loaded.kind,
                        doc.source,
                        doc.url,
                    )
                )
                report.from_files += 1
                continue
        if doc.doc_id not in pieces:
            log.warning("reembed_document_lost doc=%s: no file and no chunks", doc.doc_id)
            report.ingest.failed[doc.doc_id] = "no file and no stored chunks to rebuild from"
            continue
        body = text_from_chunks(doc.title, pieces[doc.doc_id])
        documents.append(
            Document(doc.doc_id, doc.title, body, _kind(doc.kind), doc.source, doc.url)
        )
        report.from_chunks += 1
    return documents


def rebuild(
    index: KnowledgeIndex,
    engine: Engine | None,
    old_key: str,
    new_key: str,
    ingestor: Ingestor,
    report: ReembedReport,
) -> None:
    """Fill `new_key` with the documents of `old_key`, embedded by `ingestor`. What
    changed in `old_key` meanwhile (a crawl writes the generation that answers) is copied
    again, and what was removed from it is removed, until a pass finds nothing new."""
    leftovers = [doc.doc_id for doc in index.list_documents(new_key)]
    if leftovers:  # a re-embed that died half-way: start clean
        index.remove_documents(new_key, leftovers)
    copied: dict[str, str] = {}  # doc id → the fingerprint in `old_key` it was copied at
    stale = index.list_documents(old_key)
    for _ in range(COPY_PASSES):
        documents = recover_documents(stale, engine, old_key, report)
        ingestor.ingest_documents(new_key, documents, report.ingest)
        copied |= {doc.doc_id: doc.fingerprint for doc in stale}
        serving = index.list_documents(old_key)
        stale = [doc for doc in serving if copied.get(doc.doc_id) != doc.fingerprint]
        removed = sorted(set(copied) - {doc.doc_id for doc in serving})
        if removed:
            index.remove_documents(new_key, removed)
            for doc_id in removed:
                del copied[doc_id]
        if not stale:
            return
        log.info("reembed_catch_up key=%s changed_meanwhile=%d", new_key, len(stale))


def switch_generation(
    index: KnowledgeIndex,
    engine: Engine | None,
    generations: GenerationStore | MemoryGenerationStore,
    site_id: str,
    claimed: Generation,
    make_ingestor: Callable[[], Ingestor],
) -> ReembedReport:
    """Build the claimed pending generation with an ingestor for the new model, switch
    searches to it and drop the old one; on failure release the claim (the old generation
    keeps answering)."""
    assert claimed.pending_key is not None and claimed.pending_model is not None
    report = ReembedReport(site_id, claimed.embedding_model, claimed.pending_model)
    log.info(
        "reembed_started site=%s from=%s to=%s",
        site_id,
        claimed.embedding_model,
        claimed.pending_model,
    )
    try:
        ingestor = make_ingestor()
        rebuild(index, engine, claimed.index_key, claimed.pending_key, ingestor, report)
        if report.ingest.failed:
            raise RuntimeError(f"documents failed: {sorted(report.ingest.failed)[:5]}")
        report.switched = generations.switch(claimed)
    except Exception:
        log.exception("reembed_failed site=%s (the old index keeps answering)", claimed.site_id)
        generations.release(claimed)
        return report
    if report.switched:
        old = [doc.doc_id for doc in index.list_documents(claimed.index_key)]
        index.remove_documents(claimed.index_key, old)
    log.info(
        "reembed_finished site=%s model=%s switched=%s documents=%d chunks=%d",
        claimed.site_id,
        claimed.pending_model,
        report.switched,
        len(report.ingest.ingested) + len(report.ingest.updated),
        report.ingest.chunks_total,
    )
    return report
