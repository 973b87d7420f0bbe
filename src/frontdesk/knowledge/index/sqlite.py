"""The embedded index: SQLite tables, per-site FTS5 lexical tables and mapped vectors.

- Lexical: one FTS5 table per site over pre-stemmed text, ranked by bm25()
  (`frontdesk.knowledge.index.lexicon`), and one over the chunks' heading paths (the
  heading field), written in the chunk write's transaction: a write costs its own
  postings, a search never rebuilds anything.
- Dense: vectors are stored as float32 blobs (the source of truth) and searched through
  `frontdesk.knowledge.index.vectors`: a memory-mapped base shared by every worker (exact
  scan on small sites, HNSW on large ones) plus the rows written since, read from a
  change log the chunk table's triggers append to.
- Text of found chunks is read by id; nothing per site is held in RAM but the delta.
- Every write bumps the site's revision in the same transaction; a process rereads it at
  most every `REVISION_RECHECK_S` (its own writes at once), and a new revision applies
  the logged changes to its vector view — so other processes' writes are seen too.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, Engine, TextClause, bindparam, text

from frontdesk.knowledge.index.base import (
    IN_BATCH,
    FusedHit,
    Hit,
    StoredChunk,
    Vector,
    as_vector,
    read_revision,
    rrf_fuse,
    upsert_document,
    utc_now,
)
from frontdesk.knowledge.index.lexicon import Lexicon, heading_table
from frontdesk.knowledge.index.shared import SharedRows, check_aligned, chunk_row
from frontdesk.knowledge.index.vectors import VectorStore
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.text.lexical import heading_terms

REVISION_RECHECK_S = 0.25
log = logging.getLogger(__name__)


def vector_folder(engine: Engine) -> Path | None:
    """Where a file database keeps its vector bases: `<db>.vectors/` beside it."""
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    path = Path(database)
    return path.with_name(path.name + ".vectors")


def _marks(values: Sequence[object]) -> str:
    """`?, ?, …` for an IN list. The hot search queries go to the driver directly:
    SQLAlchemy's compile of an expanding IN list cost more than the query itself."""
    return ", ".join("?" * len(values))


def _expanding(sql: str, name: str) -> TextClause:
    return text(sql).bindparams(bindparam(name, expanding=True))


class SqliteKnowledgeIndex(SharedRows):
    """`KnowledgeIndex` on SQLite; create one per engine and keep it for the process."""

    def __init__(self, engine: Engine, *, vectors: VectorStore | None = None) -> None:
        if engine.dialect.name != "sqlite":
            dialect = engine.dialect.name
            raise ValueError(f"SqliteKnowledgeIndex needs a SQLite engine, not {dialect}")
        self.engine = engine
        self.lexicon = Lexicon()
        self.headings = Lexicon(table_of=heading_table, column="heading")
        self.vectors = vectors or VectorStore(engine, vector_folder(engine))
        self._revisions: dict[str, int] = {}  # site → revision this process has applied
        self._checked_at: dict[str, float] = {}  # site → when its revision was last read
        self._lock = threading.Lock()

    # -- documents -------------------------------------------------------------------
    @contextmanager
    def _writing(self, site_id: str) -> Iterator[Connection]:
        """A transaction that bumps the site's revision; once it ends, this process's
        next search reads the revision again instead of trusting its recent check."""
        try:
            with self.engine.begin() as conn:
                self._bump(conn, site_id)
                yield conn
        finally:
            self._checked_at.pop(site_id, None)
        self.vectors.after_write(site_id)

    def _bump(self, conn: Connection, site_id: str) -> None:
        conn.execute(
            text(
                "INSERT INTO knowledge_sites (site_id, revision, updated_at)"
                " VALUES (:site, 1, :now) ON CONFLICT (site_id)"
                " DO UPDATE SET revision = knowledge_sites.revision + 1, updated_at = :now"
            ),
            {"site": site_id, "now": utc_now()},
        )

    def _delete_chunks(self, conn: Connection, site_id: str, doc_ids: Sequence[str]) -> None:
        """Chunk rows of the documents and their FTS rows (the change log records the
        deletions through the chunk table's trigger)."""
        select = _expanding(
            "SELECT id FROM knowledge_chunks WHERE site_id = :site AND doc_id IN :docs", "docs"
        )
        delete = _expanding(
            "DELETE FROM knowledge_chunks WHERE site_id = :site AND doc_id IN :docs", "docs"
        )
        for start in range(0, len(doc_ids), IN_BATCH):
            batch = list(doc_ids[start : start + IN_BATCH])
            rows = list(conn.execute(select, {"site": site_id, "docs": batch}).scalars())
            self.lexicon.remove(conn, site_id, rows)
            self.headings.remove(conn, site_id, rows)
            conn.execute(delete, {"site": site_id, "docs": batch})

    def replace_document(
        self,
        site_id: str,
        document: Document,
        fingerprint: str,
        chunks: Sequence[Chunk],
        vectors: Vector,
        lexical: Sequence[str],
        embedding_model: str,
    ) -> None:
        check_aligned(chunks, vectors, lexical)
        now = utc_now()
        with self._writing(site_id) as conn:
            self._delete_chunks(conn, site_id, [document.doc_id])
            upsert_document(conn, site_id, document, fingerprint, len(chunks), now)
            if not chunks:
                return
            conn.execute(
                text(
                    "INSERT INTO knowledge_chunks (site_id, doc_id, chunk_id, chunk_index, title,"
                    " heading_path, content, url, source, content_hash, language,"
                    " embedding_model, embedding) VALUES (:site, :doc, :chunk_id, :chunk_index,"
                    " :title, :heading_path, :content, :url, :source, :content_hash, :language,"
                    " :model, :embedding)"
                ),
                [
                    chunk_row(site_id, document.doc_id, chunk, embedding_model, vector)
                    for chunk, vector in zip(chunks, vectors, strict=True)
                ],
            )
            ids: dict[str, int] = dict(
                conn.execute(
                    text(
                        "SELECT chunk_id, id FROM knowledge_chunks"
                        " WHERE site_id = :site AND doc_id = :doc"
                    ),
                    {"site": site_id, "doc": document.doc_id},
                ).all()
            )
            rows = [
                (ids[chunk.chunk_id], chunk, body)
                for chunk, body in zip(chunks, lexical, strict=True)
            ]
            self.lexicon.add(conn, site_id, [(row, body) for row, _, body in rows])
            self.headings.add(
                conn,
                site_id,
                [(row, heading_terms(body, chunk.heading_path)) for row, chunk, body in rows],
            )

    def remove_documents(self, site_id: str, doc_ids: Sequence[str]) -> int:
        if not doc_ids:
            return 0
        removed = 0
        statement = _expanding(
            "DELETE FROM knowledge_documents WHERE site_id = :site AND doc_id IN :docs", "docs"
        )
        with self._writing(site_id) as conn:
            self._delete_chunks(conn, site_id, doc_ids)
            for start in range(0, len(doc_ids), IN_BATCH):
                batch = list(doc_ids[start : start + IN_BATCH])
                removed += conn.execute(statement, {"site": site_id, "docs": batch}).rowcount
        return removed

    # -- search ----------------------------------------------------------------------
    def revision(self, site_id: str) -> int:
        """The revision searches see now (re-read at most every `REVISION_RECHECK_S`;
        this process's own writes at once). A new one applies the logged vector changes."""
        checked_at = self._checked_at.get(site_id)
        now = time.monotonic()
        known = self._revisions.get(site_id)
        if known is not None and checked_at is not None and now - checked_at < REVISION_RECHECK_S:
            return known
        with self.engine.connect() as conn:
            revision = read_revision(conn, site_id)
        with self._lock:
            if self._revisions.get(site_id) != revision:
                self.vectors.refresh(site_id)
                self._revisions[site_id] = revision
            self._checked_at[site_id] = now
        return revision

    def lexical_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        with self.engine.connect() as conn:
            found = self.lexicon.search(conn, site_id, terms, limit)
            names = self._chunk_ids(conn, site_id, [row for row, _ in found])
        return [Hit(names[row], score) for row, score in found if row in names]

    def heading_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        with self.engine.connect() as conn:
            found = self.headings.search(conn, site_id, terms, limit)
            names = self._chunk_ids(conn, site_id, [row for row, _ in found])
        return [Hit(names[row], score) for row, score in found if row in names]

    def dense_search(
        self, site_id: str, embedding_model: str, vector: Vector, limit: int
    ) -> list[Hit]:
        self.revision(site_id)
        found = self.vectors.search(site_id, embedding_model, vector, limit)
        if not found:
            return []
        with self.engine.connect() as conn:
            names = self._chunk_ids(conn, site_id, [row for row, _ in found])
        return [Hit(names[row], score) for row, score in found if row in names]

    def hybrid_search(
        self,
        site_id: str,
        embedding_model: str,
        vector: Vector,
        terms: Sequence[str],
        *,
        limit: int,
        dense_weight: float,
        lexical_weight: float,
        rrf_k: int,
        heading_weight: float = 0.0,
    ) -> list[FusedHit]:
        """Dense, lexical and heading candidates fused by reciprocal rank, with cosines:
        the same fusion as searching each list (`rrf_fuse`; a list of weight 0 is not
        searched), on one connection and one read of chunk ids; cosines of candidates
        that only the word lists found come from the vector store's rows."""
        self.revision(site_id)
        dense = self.vectors.search(site_id, embedding_model, vector, limit)
        if not dense:
            return []
        with self.engine.connect() as conn:
            lexical = self.lexicon.search(conn, site_id, terms, limit) if terms else []
            headings = (
                self.headings.search(conn, site_id, terms, limit)
                if terms and heading_weight > 0
                else []
            )
            rows = list(dict.fromkeys(row for row, _ in dense + lexical + headings))
            names = self._chunk_ids(conn, site_id, rows)

        def hits(found: list[tuple[int, float]]) -> list[Hit]:
            return [Hit(names[row], score) for row, score in found if row in names]

        fused = rrf_fuse(
            [
                (hits(dense), dense_weight),
                (hits(lexical), lexical_weight),
                (hits(headings), heading_weight),
            ],
            k=rrf_k,
        )
        cosines = {names[row]: score for row, score in dense if row in names}
        lexical_only = list(
            dict.fromkeys(
                row for row, _ in lexical + headings if row in names and names[row] not in cosines
            )
        )
        stored_rows = self.vectors.vectors(
            site_id, embedding_model, np.array(lexical_only, dtype=np.int64)
        )
        for row, stored in stored_rows.items():
            cosines[names[row]] = float(np.dot(stored, vector))
        return [FusedHit(chunk_id, score, cosines.get(chunk_id)) for chunk_id, score in fused]

    def _chunk_ids(self, conn: Connection, site_id: str, rows: Sequence[int]) -> dict[int, str]:
        """Chunk ids of row ids, re-checking the exact site; empty chunks are left out
        (an empty chunk is skipped, never returned)."""
        if not rows:
            return {}
        # By primary key only: with `site_id = :site` in the WHERE clause SQLite walks
        # the site's index instead (milliseconds on a large site); the site is checked here.
        found = conn.exec_driver_sql(
            "SELECT id, chunk_id, site_id, trim(content) <> '' FROM knowledge_chunks"
            f" WHERE id IN ({_marks(rows)})",
            tuple(rows),
        ).all()
        return {row[0]: row[1] for row in found if row[2] == site_id and row[3]}

    def cosine_scores(
        self, site_id: str, embedding_model: str, vector: Vector, chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        if not chunk_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT chunk_id, embedding FROM knowledge_chunks WHERE site_id = ?"
                f" AND embedding_model = ? AND chunk_id IN ({_marks(chunk_ids)})",
                (site_id, embedding_model, *chunk_ids),
            ).all()
        scores: dict[str, float] = {}
        for chunk_id, blob in rows:
            stored = as_vector(blob)
            if stored.shape != vector.shape:
                raise ValueError(
                    f"query vector has {vector.shape[0]} dimensions, the index has "
                    f"{stored.shape[0]} ({embedding_model})"
                )
            scores[chunk_id] = float(np.dot(stored, vector))
        return scores

    def get_chunks(self, site_id: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        if not chunk_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT chunk_id, doc_id, chunk_index, title, url, source, content,"
                " heading_path, language FROM knowledge_chunks"
                f" WHERE site_id = ? AND chunk_id IN ({_marks(chunk_ids)})",
                (site_id, *chunk_ids),
            ).all()
        found: dict[str, StoredChunk] = {}
        for row in rows:
            if not row[6] or not row[6].strip():
                log.warning("corrupt_chunk_skipped site=%s chunk=%s", site_id, row[0])
                continue  # an empty chunk is skipped, never returned
            found[row[0]] = StoredChunk(
                chunk_id=row[0],
                doc_id=row[1],
                chunk_index=row[2],
                title=row[3],
                url=row[4],
                source=row[5],
                content=row[6],
                heading_path=tuple(json.loads(row[7])),
                language=row[8],
            )
        return found

    def rebuild_vectors(self, site_id: str) -> int:
        """Rebuild the site's vector bases from SQLite (graph included on large sites);
        the rows they hold. For `frontdesk kb reindex`, benchmarks, or after a lost folder."""
        with self.engine.connect() as conn:
            models = list(
                conn.execute(
                    text(
                        "SELECT DISTINCT embedding_model FROM knowledge_chunks WHERE site_id = :s"
                    ),
                    {"s": site_id},
                ).scalars()
            )
        return sum(len(self.vectors.build(site_id, model).ids) for model in models)
