"""The embedded index: SQLite tables, an FTS5 lexical index and in-memory vectors.

- Lexical: FTS5 over pre-stemmed text (see `frontdesk.knowledge.lexical`), ranked by
  BM25. Each row carries a per-site token (`site_key`) that the MATCH expression
  requires, so a query walks only that site's postings; the join on
  `knowledge_chunks.site_id` re-checks the exact site id.
- Dense: vectors are stored as float32 blobs; on first use a site's vectors are loaded
  into one normalised matrix (plus the chunks' text), and a search is one matrix-vector
  product. The snapshot is rebuilt when the site's revision changes, which every write
  bumps in the same transaction — so other processes' writes are seen too.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, bindparam, text

from frontdesk.knowledge.index.base import Hit, StoredChunk, StoredDocument, Vector
from frontdesk.knowledge.models import Chunk, Document

_IN_BATCH = 500


def site_key(site_id: str) -> str:
    """The FTS token of a site: a digest of the exact id, so ids never collide."""
    return "k" + hashlib.sha256(site_id.encode("utf-8")).hexdigest()[:32]


def _blob(vector: Vector) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _vector(blob: bytes) -> Vector:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def _now() -> datetime:
    return datetime.now(UTC)


def _parse_time(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


@dataclass(frozen=True)
class _Snapshot:
    revision: int
    chunk_ids: list[str]
    rows: dict[str, int]
    matrix: Vector
    chunks: dict[str, StoredChunk]


class SqliteKnowledgeIndex:
    """`KnowledgeIndex` on SQLite; create one per engine and keep it for the process."""

    def __init__(self, engine: Engine) -> None:
        if engine.dialect.name != "sqlite":
            dialect = engine.dialect.name
            raise ValueError(f"SqliteKnowledgeIndex needs a SQLite engine, not {dialect}")
        self.engine = engine
        self._snapshots: dict[tuple[str, str], _Snapshot] = {}
        self._lock = threading.Lock()

    # -- documents -------------------------------------------------------------------
    def list_documents(self, site_id: str) -> list[StoredDocument]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT site_id, doc_id, title, kind, source, url, fingerprint, chunk_count,"
                    " updated_at FROM knowledge_documents WHERE site_id = :site ORDER BY doc_id"
                ),
                {"site": site_id},
            ).all()
        return [
            StoredDocument(
                site_id=row[0],
                doc_id=row[1],
                title=row[2],
                kind=row[3],
                source=row[4],
                url=row[5],
                fingerprint=row[6],
                chunk_count=row[7],
                updated_at=_parse_time(row[8]),
            )
            for row in rows
        ]

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
        with self.engine.begin() as conn:
            self._bump(conn, site_id)
            self._delete_chunks(conn, site_id, [document.doc_id])
            conn.execute(
                text(
                    "INSERT INTO knowledge_documents (site_id, doc_id, title, kind, source, url,"
                    " fingerprint, chunk_count, created_at, updated_at) VALUES (:site, :doc,"
                    " :title, :kind, :source, :url, :fingerprint, :count, :now, :now)"
                    " ON CONFLICT (site_id, doc_id) DO UPDATE SET title = :title, kind = :kind,"
                    " source = :source, url = :url, fingerprint = :fingerprint,"
                    " chunk_count = :count, updated_at = :now"
                ),
                {
                    "site": site_id,
                    "doc": document.doc_id,
                    "title": document.title,
                    "kind": document.kind,
                    "source": document.source,
                    "url": document.url,
                    "fingerprint": fingerprint,
                    "count": len(chunks),
                    "now": now,
                },
            )
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
        with self.engine.begin() as conn:
            self._bump(conn, site_id)
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
    def lexical_search(self, site_id: str, match: str, limit: int) -> list[Hit]:
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

    def _revision(self, conn: Connection, site_id: str) -> int:
        value = conn.execute(
            text("SELECT revision FROM knowledge_sites WHERE site_id = :site"), {"site": site_id}
        ).scalar()
        return int(value or 0)

    def _snapshot(self, site_id: str, embedding_model: str) -> _Snapshot:
        key = (site_id, embedding_model)
        with self.engine.connect() as conn:
            revision = self._revision(conn, site_id)
            cached = self._snapshots.get(key)
            if cached is not None and cached.revision == revision:
                return cached
            with self._lock:
                cached = self._snapshots.get(key)
                if cached is not None and cached.revision == revision:
                    return cached
                snapshot = self._load(conn, site_id, embedding_model, revision)
                self._snapshots[key] = snapshot
                return snapshot

    def _load(
        self, conn: Connection, site_id: str, embedding_model: str, revision: int
    ) -> _Snapshot:
        rows = conn.execute(
            text(
                "SELECT chunk_id, doc_id, chunk_index, title, url, source, content,"
                " heading_path, embedding FROM knowledge_chunks"
                " WHERE site_id = :site AND embedding_model = :model ORDER BY id"
            ),
            {"site": site_id, "model": embedding_model},
        ).all()
        chunks: dict[str, StoredChunk] = {}
        vectors: list[Vector] = []
        for row in rows:
            if not row[6] or not row[6].strip():
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
            vectors.append(_vector(row[8]))
        chunk_ids = list(chunks)
        matrix = np.vstack(vectors) if vectors else np.zeros((0, 1), dtype=np.float32)
        return _Snapshot(
            revision=revision,
            chunk_ids=chunk_ids,
            rows={chunk_id: row for row, chunk_id in enumerate(chunk_ids)},
            matrix=np.ascontiguousarray(matrix, dtype=np.float32),
            chunks=chunks,
        )

    def dense_search(
        self, site_id: str, embedding_model: str, vector: Vector, limit: int
    ) -> list[Hit]:
        snapshot = self._snapshot(site_id, embedding_model)
        if not snapshot.chunk_ids or limit <= 0:
            return []
        if snapshot.matrix.shape[1] != vector.shape[0]:
            raise ValueError(
                f"query vector has {vector.shape[0]} dimensions, the index has "
                f"{snapshot.matrix.shape[1]} ({embedding_model})"
            )
        scores = snapshot.matrix @ vector
        count = min(limit, len(scores))
        top = np.argpartition(-scores, count - 1)[:count]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [Hit(snapshot.chunk_ids[i], float(scores[i])) for i in top]

    def cosine_scores(
        self, site_id: str, embedding_model: str, vector: Vector, chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        snapshot = self._snapshot(site_id, embedding_model)
        rows = [snapshot.rows[c] for c in chunk_ids if c in snapshot.rows]
        if not rows:
            return {}
        scores = snapshot.matrix[rows] @ vector
        return {snapshot.chunk_ids[r]: float(s) for r, s in zip(rows, scores, strict=True)}

    def get_chunks(self, site_id: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        found: dict[str, StoredChunk] = {}
        for (site, _model), snapshot in list(self._snapshots.items()):
            if site == site_id:
                found = {c: snapshot.chunks[c] for c in chunk_ids if c in snapshot.chunks}
                if len(found) == len(set(chunk_ids)):
                    return found
        statement = text(
            "SELECT chunk_id, doc_id, chunk_index, title, url, source, content, heading_path"
            " FROM knowledge_chunks WHERE site_id = :site AND chunk_id IN :ids"
        ).bindparams(bindparam("ids", expanding=True))
        with self.engine.connect() as conn:
            rows = conn.execute(statement, {"site": site_id, "ids": list(chunk_ids)}).all()
        return {
            row[0]: StoredChunk(
                row[0], row[1], row[2], row[3], row[4], row[5], row[6], tuple(json.loads(row[7]))
            )
            for row in rows
            if row[6] and row[6].strip()
        }

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
