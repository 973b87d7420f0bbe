"""The embedded index: SQLite tables, an FTS5 lexical index and in-memory vectors.

- Lexical: FTS5 over pre-stemmed text (see `frontdesk.knowledge.lexical`), ranked by
  BM25. Each row carries a per-site token (`site_key`) that the MATCH expression
  requires, so a query walks only that site's postings; the join on
  `knowledge_chunks.site_id` re-checks the exact site id.
- Dense: vectors are stored as float32 blobs; on first use a site's vectors are loaded
  into one normalised matrix (plus the chunks' text), and a search is one matrix-vector
  product. The snapshot is rebuilt when the site's revision changes, which every write
  bumps in the same transaction — so other processes' writes are seen too (within
  `REVISION_RECHECK_S`: one search asks for the snapshot three or four times, and a
  revision query each time was a third of its CPU; this process's own writes are seen
  at once).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import Connection, Engine, bindparam, text

from frontdesk.knowledge.index.base import (
    Hit,
    StoredChunk,
    StoredDocument,
    Vector,
    read_documents,
    upsert_document,
)
from frontdesk.knowledge.index.bm25 import Bm25Index
from frontdesk.knowledge.models import Chunk, Document

_IN_BATCH = 500
REVISION_RECHECK_S = 0.25
log = logging.getLogger(__name__)


def site_key(site_id: str) -> str:
    """The FTS token of a site: a digest of the exact id, so ids never collide."""
    return "k" + hashlib.sha256(site_id.encode("utf-8")).hexdigest()[:32]


def _blob(vector: Vector) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _vector(blob: bytes) -> Vector:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def _dot(matrix: Vector, vector: Vector) -> Vector:
    """Row-wise dot products without BLAS threads: a matrix-vector product is memory-bound,
    and multi-threaded BLAS on a busy 2-core machine turns 0.2 ms into 20 ms at p95."""
    scores: Vector = np.einsum("ij,j->i", matrix, vector)
    return scores


def read_revision(conn: Connection, site_id: str) -> int:
    """The site's revision in `knowledge_sites` (0 before its first write); both indexes."""
    value = conn.execute(
        text("SELECT revision FROM knowledge_sites WHERE site_id = :site"), {"site": site_id}
    ).scalar()
    return int(value or 0)


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Snapshot:
    """One site's chunks in memory: text, BM25 postings and per-model vector matrices."""

    revision: int
    chunk_ids: list[str]
    rows: dict[str, int]
    chunks: dict[str, StoredChunk]
    lexicon: Bm25Index
    models: list[str]
    blobs: list[bytes]
    _matrices: dict[str, tuple[NDArray[np.int64], Vector]] = field(default_factory=dict)
    _positions: dict[str, dict[int, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def vectors(self, model: str) -> tuple[NDArray[np.int64], Vector]:
        """Rows embedded with `model` and their vectors as one contiguous matrix."""
        cached = self._matrices.get(model)
        if cached is not None:
            return cached
        with self._lock:
            cached = self._matrices.get(model)
            if cached is None:
                rows = np.array(
                    [i for i, m in enumerate(self.models) if m == model], dtype=np.int64
                )
                matrix = (
                    np.vstack([_vector(self.blobs[i]) for i in rows])
                    if len(rows)
                    else np.zeros((0, 1), dtype=np.float32)
                )
                cached = (rows, np.ascontiguousarray(matrix, dtype=np.float32))
                self._positions[model] = {int(row): p for p, row in enumerate(rows)}
                self._matrices[model] = cached
            return cached

    def positions(self, model: str) -> dict[int, int]:
        self.vectors(model)
        return self._positions[model]


class SqliteKnowledgeIndex:
    """`KnowledgeIndex` on SQLite; create one per engine and keep it for the process."""

    def __init__(self, engine: Engine) -> None:
        if engine.dialect.name != "sqlite":
            dialect = engine.dialect.name
            raise ValueError(f"SqliteKnowledgeIndex needs a SQLite engine, not {dialect}")
        self.engine = engine
        self._snapshots: dict[str, _Snapshot] = {}
        self._checked_at: dict[str, float] = {}  # site → when its revision was last read
        self._lock = threading.Lock()

    # -- documents -------------------------------------------------------------------
    def list_documents(self, site_id: str) -> list[StoredDocument]:
        with self.engine.connect() as conn:
            return read_documents(conn, site_id)

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

    def _bump(self, conn: Connection, site_id: str) -> None:
        conn.execute(
            text(
                "INSERT INTO knowledge_sites (site_id, revision, updated_at)"
                " VALUES (:site, 1, :now) ON CONFLICT (site_id)"
                " DO UPDATE SET revision = knowledge_sites.revision + 1, updated_at = :now"
            ),
            {"site": site_id, "now": _now()},
        )

    def _delete_chunks(self, conn: Connection, site_id: str, doc_ids: Sequence[str]) -> None:
        statement_fts = text(
            "DELETE FROM knowledge_fts WHERE rowid IN (SELECT id FROM knowledge_chunks"
            " WHERE site_id = :site AND doc_id IN :docs)"
        ).bindparams(bindparam("docs", expanding=True))
        statement_chunks = text(
            "DELETE FROM knowledge_chunks WHERE site_id = :site AND doc_id IN :docs"
        ).bindparams(bindparam("docs", expanding=True))
        for start in range(0, len(doc_ids), _IN_BATCH):
            batch = list(doc_ids[start : start + _IN_BATCH])
            conn.execute(statement_fts, {"site": site_id, "docs": batch})
            conn.execute(statement_chunks, {"site": site_id, "docs": batch})

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
        if len(chunks) != len(vectors) or len(chunks) != len(lexical):
            raise ValueError("chunks, vectors and lexical texts must have the same length")
        now = _now()
        with self._writing(site_id) as conn:
            self._delete_chunks(conn, site_id, [document.doc_id])
            upsert_document(conn, site_id, document, fingerprint, len(chunks), now)
            if not chunks:
                return
            conn.execute(
                text(
                    "INSERT INTO knowledge_chunks (site_id, doc_id, chunk_id, chunk_index, title,"
                    " heading_path, content, url, source, content_hash, embedding_model,"
                    " embedding) VALUES (:site, :doc, :chunk_id, :chunk_index, :title,"
                    " :heading_path, :content, :url, :source, :content_hash, :model, :embedding)"
                ),
                [
                    {
                        "site": site_id,
                        "doc": document.doc_id,
                        "chunk_id": chunk.chunk_id,
                        "chunk_index": chunk.chunk_index,
                        "title": chunk.title,
                        "heading_path": json.dumps(list(chunk.heading_path), ensure_ascii=False),
                        "content": chunk.content,
                        "url": chunk.url,
                        "source": chunk.source,
                        "content_hash": chunk.content_hash,
                        "model": embedding_model,
                        "embedding": _blob(vector),
                    }
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
            key = site_key(site_id)
            conn.execute(
                text("INSERT INTO knowledge_fts (rowid, site_key, body) VALUES (:id, :key, :body)"),
                [
                    {"id": ids[chunk.chunk_id], "key": key, "body": body}
                    for chunk, body in zip(chunks, lexical, strict=True)
                ],
            )

    def remove_documents(self, site_id: str, doc_ids: Sequence[str]) -> int:
        if not doc_ids:
            return 0
        removed = 0
        statement = text(
            "DELETE FROM knowledge_documents WHERE site_id = :site AND doc_id IN :docs"
        ).bindparams(bindparam("docs", expanding=True))
        with self._writing(site_id) as conn:
            self._delete_chunks(conn, site_id, doc_ids)
            for start in range(0, len(doc_ids), _IN_BATCH):
                batch = list(doc_ids[start : start + _IN_BATCH])
                removed += conn.execute(statement, {"site": site_id, "docs": batch}).rowcount
        return removed

    def chunk_count(self, site_id: str) -> int:
        with self.engine.connect() as conn:
            value = conn.execute(
                text("SELECT count(*) FROM knowledge_chunks WHERE site_id = :site"),
                {"site": site_id},
            ).scalar_one()
        return int(value)

    # -- search ----------------------------------------------------------------------
    def lexical_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        snapshot = self._snapshot(site_id)
        return [
            Hit(snapshot.chunk_ids[row], score) for row, score in snapshot.lexicon.top(terms, limit)
        ]

    def fts_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        """The same query through SQLite FTS5 (persistent, no snapshot; slower on big sites)."""
        if not terms:
            return []
        match = " OR ".join(f'"{term}"' for term in dict.fromkeys(terms))
        expression = f'site_key : "{site_key(site_id)}" AND body : ({match})'
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT c.chunk_id, bm25(knowledge_fts, 0.0, 1.0) AS rank"
                    " FROM knowledge_fts JOIN knowledge_chunks c ON c.id = knowledge_fts.rowid"
                    " WHERE knowledge_fts MATCH :match AND c.site_id = :site"
                    " ORDER BY rank LIMIT :limit"
                ),
                {"match": expression, "site": site_id, "limit": limit},
            ).all()
        # FTS5's bm25() is negative: more negative is better.
        return [Hit(row[0], -float(row[1])) for row in rows]

    def revision(self, site_id: str) -> int:
        """The revision of the snapshot searches use now (re-read at most every
        `REVISION_RECHECK_S`; this process's own writes at once)."""
        return self._snapshot(site_id).revision

    def _snapshot(self, site_id: str) -> _Snapshot:
        cached = self._snapshots.get(site_id)
        checked_at = self._checked_at.get(site_id)
        now = time.monotonic()
        if cached is not None and checked_at is not None and now - checked_at < REVISION_RECHECK_S:
            return cached
        with self.engine.connect() as conn:
            revision = read_revision(conn, site_id)
            if cached is not None and cached.revision == revision:
                self._checked_at[site_id] = now
                return cached
            with self._lock:
                cached = self._snapshots.get(site_id)
                if cached is None or cached.revision != revision:
                    cached = self._load(conn, site_id, revision)
                    self._snapshots[site_id] = cached
                self._checked_at[site_id] = now
                return cached

    def _load(self, conn: Connection, site_id: str, revision: int) -> _Snapshot:
        rows = conn.execute(
            text(
                "SELECT c.chunk_id, c.doc_id, c.chunk_index, c.title, c.url, c.source, c.content,"
                " c.heading_path, c.embedding_model, c.embedding, f.body FROM knowledge_chunks c"
                " JOIN knowledge_fts f ON f.rowid = c.id WHERE c.site_id = :site ORDER BY c.id"
            ),
            {"site": site_id},
        ).all()
        chunks: dict[str, StoredChunk] = {}
        models: list[str] = []
        blobs: list[bytes] = []
        bodies: list[str] = []
        for row in rows:
            if not row[6] or not row[6].strip():
                log.warning("corrupt_chunk_skipped site=%s chunk=%s", site_id, row[0])
                continue  # seed 004: an empty chunk is skipped, never returned
            chunks[row[0]] = StoredChunk(
                chunk_id=row[0],
                doc_id=row[1],
                chunk_index=row[2],
                title=row[3],
                url=row[4],
                source=row[5],
                content=row[6],
                heading_path=tuple(json.loads(row[7])),
            )
            models.append(row[8])
            blobs.append(row[9])
            bodies.append(row[10] or "")
        chunk_ids = list(chunks)
        return _Snapshot(
            revision=revision,
            chunk_ids=chunk_ids,
            rows={chunk_id: row for row, chunk_id in enumerate(chunk_ids)},
            chunks=chunks,
            lexicon=Bm25Index.build(bodies),
            models=models,
            blobs=blobs,
        )

    def dense_search(
        self, site_id: str, embedding_model: str, vector: Vector, limit: int
    ) -> list[Hit]:
        snapshot = self._snapshot(site_id)
        rows, matrix = snapshot.vectors(embedding_model)
        if not len(rows) or limit <= 0:
            return []
        if matrix.shape[1] != vector.shape[0]:
            raise ValueError(
                f"query vector has {vector.shape[0]} dimensions, the index has "
                f"{matrix.shape[1]} ({embedding_model})"
            )
        scores = _dot(matrix, vector)
        count = min(limit, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [Hit(snapshot.chunk_ids[rows[i]], float(scores[i])) for i in top]

    def cosine_scores(
        self, site_id: str, embedding_model: str, vector: Vector, chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        snapshot = self._snapshot(site_id)
        _rows, matrix = snapshot.vectors(embedding_model)
        position = snapshot.positions(embedding_model)
        wanted = [
            (c, position[snapshot.rows[c]])
            for c in chunk_ids
            if c in snapshot.rows and snapshot.rows[c] in position
        ]
        if not wanted:
            return {}
        scores = _dot(matrix[[p for _, p in wanted]], vector)
        return {c: float(s) for (c, _), s in zip(wanted, scores, strict=True)}

    def get_chunks(self, site_id: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        snapshot = self._snapshot(site_id)
        return {c: snapshot.chunks[c] for c in chunk_ids if c in snapshot.chunks}

    # -- embedding cache -------------------------------------------------------------
    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, Vector]:
        statement = text(
            "SELECT content_hash, vector FROM knowledge_embedding_cache"
            " WHERE model = :model AND content_hash IN :hashes"
        ).bindparams(bindparam("hashes", expanding=True))
        found: dict[str, Vector] = {}
        unique = list(dict.fromkeys(hashes))
        with self.engine.connect() as conn:
            for start in range(0, len(unique), _IN_BATCH):
                batch = unique[start : start + _IN_BATCH]
                for digest, blob in conn.execute(statement, {"model": model, "hashes": batch}):
                    found[digest] = _vector(blob)
        return found

    def cache_vectors(self, model: str, vectors: Mapping[str, Vector]) -> None:
        if not vectors:
            return
        now = _now()
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO knowledge_embedding_cache (model, content_hash, dim, vector,"
                    " created_at) VALUES (:model, :hash, :dim, :vector, :now)"
                    " ON CONFLICT (model, content_hash) DO NOTHING"
                ),
                [
                    {
                        "model": model,
                        "hash": digest,
                        "dim": int(vector.shape[0]),
                        "vector": _blob(vector),
                        "now": now,
                    }
                    for digest, vector in vectors.items()
                ],
            )
