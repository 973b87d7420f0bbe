"""The index interface: what ingestion and search need from a storage backend.

Every method takes the exact site id; an implementation must never return another
site's rows (no sanitising, no prefix matching). SQLite (FTS5 + vectors in memory) is
the embedded default; PostgreSQL (tsvector + pgvector) implements the same protocol.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import Connection, Engine, bindparam, text

from frontdesk.knowledge.injection.instructions import WithheldPassage
from frontdesk.knowledge.models import Chunk, Document

Vector = NDArray[np.float32]
IN_BATCH = 500  # ids per `IN (...)`: under SQLite's bound on a statement's parameters


@dataclass(frozen=True)
class StoredDocument:
    site_id: str
    doc_id: str
    title: str
    kind: str
    source: str
    url: str
    fingerprint: str
    chunk_count: int
    updated_at: datetime | None = None
    withheld: tuple[WithheldPassage, ...] = ()


@dataclass(frozen=True)
class StoredChunk:
    chunk_id: str
    doc_id: str
    chunk_index: int
    title: str
    url: str
    source: str
    content: str
    heading_path: tuple[str, ...]
    language: str | None = None  # detected at ingest; None for chunks written before


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    score: float


@dataclass(frozen=True)
class FusedHit:
    """A fused candidate of `hybrid_search`: its RRF score and its cosine to the query."""

    chunk_id: str
    rank_score: float
    cosine: float | None


def rrf_fuse(
    rankings: Sequence[tuple[Sequence[Hit], float]], k: int = 60
) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of ranked lists, each with a weight: Σ w / (k + rank)."""
    scores: dict[str, float] = {}
    for hits, weight in rankings:
        for rank, hit in enumerate(hits, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


class KnowledgeIndex(Protocol):
    """Per-site storage of documents, chunks, lexical terms and vectors."""

    # -- documents -------------------------------------------------------------------
    def list_documents(self, site_id: str) -> list[StoredDocument]: ...

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
        """Insert or replace the document and all its chunks in one transaction.

        `lexical[i]` is chunk i's stemmed text, `lexical_text(chunk.indexed_text, …)`:
        it begins with the heading path, whose terms are the heading field
        (`lexical.heading_terms`)."""
        ...

    def remove_documents(self, site_id: str, doc_ids: Sequence[str]) -> int: ...

    def index_keys(self, prefix: str) -> list[str]:
        """The index keys holding documents that begin with `prefix`."""
        ...

    def chunk_count(self, site_id: str) -> int: ...

    def revision(self, site_id: str) -> int:
        """A number every write to the site's chunks changes (search results are cached
        under it, so no cached result outlives the content it was found in)."""
        ...

    # -- search ----------------------------------------------------------------------
    def lexical_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        """Best chunks (BM25-like, higher is better) for stemmed query terms."""
        ...

    def heading_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        """Best chunks by BM25 over their heading paths alone (title and headings)."""
        ...

    def dense_search(
        self, site_id: str, embedding_model: str, vector: Vector, limit: int
    ) -> list[Hit]:
        """Chunks with the highest cosine similarity to `vector`."""
        ...

    def cosine_scores(
        self, site_id: str, embedding_model: str, vector: Vector, chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        """Cosine similarity of `vector` to each of the given chunks of the site."""
        ...

    def get_chunks(self, site_id: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]: ...

    # -- embedding cache (shared by sites: keyed by model and content hash) -----------
    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, Vector]: ...

    def cache_vectors(self, model: str, vectors: Mapping[str, Vector]) -> None: ...


def upsert_document(
    conn: Connection,
    site_id: str,
    document: Document,
    fingerprint: str,
    chunk_count: int,
    now: datetime,
) -> None:
    """Insert or refresh a document row (the same SQL on SQLite and PostgreSQL)."""
    conn.execute(
        text(
            "INSERT INTO knowledge_documents (site_id, doc_id, title, kind, source, url,"
            " fingerprint, chunk_count, withheld, created_at, updated_at) VALUES (:site, :doc,"
            " :title, :kind, :source, :url, :fingerprint, :count, :withheld, :now, :now)"
            " ON CONFLICT (site_id, doc_id) DO UPDATE SET title = :title, kind = :kind,"
            " source = :source, url = :url, fingerprint = :fingerprint,"
            " chunk_count = :count, withheld = :withheld, updated_at = :now"
        ),
        {
            "site": site_id,
            "doc": document.doc_id,
            "title": document.title,
            "kind": document.kind,
            "source": document.source,
            "url": document.url,
            "fingerprint": fingerprint,
            "count": chunk_count,
            "withheld": json.dumps([asdict(passage) for passage in document.withheld]),
            "now": now,
        },
    )


def read_documents(conn: Connection, site_id: str) -> list[StoredDocument]:
    """A site's document rows (the same SQL on SQLite and PostgreSQL)."""
    rows = conn.execute(
        text(
            "SELECT site_id, doc_id, title, kind, source, url, fingerprint, chunk_count,"
            " updated_at, withheld FROM knowledge_documents WHERE site_id = :site"
            " ORDER BY doc_id"
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
            updated_at=parse_time(row[8]),
            withheld=tuple(WithheldPassage(**item) for item in json.loads(row[9] or "[]")),
        )
        for row in rows
    ]


def parse_time(value: object) -> datetime | None:
    """SQLite returns timestamps as text, PostgreSQL as datetimes."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


def utc_now() -> datetime:
    return datetime.now(UTC)


def vector_blob(vector: Vector) -> bytes:
    """A vector as stored: little-endian float32."""
    return np.asarray(vector, dtype="<f4").tobytes()


def as_vector(blob: bytes) -> Vector:
    """A stored vector (`vector_blob`) read back."""
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def read_revision(conn: Connection, site_id: str) -> int:
    """The site's revision in `knowledge_sites` (0 before its first write); both indexes."""
    value = conn.execute(
        text("SELECT revision FROM knowledge_sites WHERE site_id = :site"), {"site": site_id}
    ).scalar()
    return int(value or 0)


def read_cached_vectors(engine: Engine, model: str, hashes: Sequence[str]) -> dict[str, Vector]:
    """The embedding cache's vectors of `model` for these content hashes (the same SQL on
    SQLite and PostgreSQL)."""
    statement = text(
        "SELECT content_hash, vector FROM knowledge_embedding_cache"
        " WHERE model = :model AND content_hash IN :hashes"
    ).bindparams(bindparam("hashes", expanding=True))
    found: dict[str, Vector] = {}
    unique = list(dict.fromkeys(hashes))
    if not unique:
        return found
    with engine.connect() as conn:
        for start in range(0, len(unique), IN_BATCH):
            batch = unique[start : start + IN_BATCH]
            for digest, blob in conn.execute(statement, {"model": model, "hashes": batch}):
                found[digest] = as_vector(bytes(blob))
    return found


def write_cached_vectors(engine: Engine, model: str, vectors: Mapping[str, Vector]) -> None:
    """Keep these vectors of `model` by content hash; a hash already kept stays as it is."""
    if not vectors:
        return
    now = utc_now()
    with engine.begin() as conn:
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
                    "vector": vector_blob(vector),
                    "now": now,
                }
                for digest, vector in vectors.items()
            ],
        )
