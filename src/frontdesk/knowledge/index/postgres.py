"""The production index: PostgreSQL with a tsvector column and pgvector HNSW.

- Lexical: `knowledge_chunks.lexical` is a tsvector of the chunk's pre-stemmed terms
  (`frontdesk.text.lexical`: the Snowball stemmer of the site's language — the same
  stemmers PostgreSQL's language text-search configurations use), written as a tsvector
  literal with positions so that indexed text and queries are stemmed exactly once and
  the same way as on SQLite. GIN-indexed; ranked by Okapi BM25 computed in SQL from the
  positions (term frequency), `lexical_length` and the site's own statistics — the
  ranking of the SQLite index, with its common-terms policy (which terms a query asks
  for under the postings budget: `frontdesk.knowledge.index.postgres_lexicon`).
  `heading` / `heading_length` are the same for the chunk's heading path alone (the
  heading field, `lexical.heading_terms`), with its own statistics: the third list.
- Dense: `embedding_vec` is an untyped pgvector column; each dimension has a partial
  HNSW expression index (`vector_cosine_ops`, m 16, ef_construction
  `HNSW_EF_CONSTRUCTION`), created on first ingest of that dimension.
  `ef_search` (recall/latency) is set per query: at least the rows it asks for, broader
  on a large graph, at least the configured floor; pgvector ≥ 0.8 iterative scans keep a
  per-site filter from starving the result list.
- Hybrid: `hybrid_search` runs dense top-N, lexical top-N, heading top-N (when weighted),
  reciprocal-rank fusion and the cosine of every fused candidate in one SQL statement
  (one round trip per search).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, text

from frontdesk.knowledge.index.base import (
    FusedHit,
    Hit,
    StoredChunk,
    Vector,
    read_revision,
    upsert_document,
    utc_now,
)
from frontdesk.knowledge.index.postgres_hnsw import (
    DEFAULT_EF_SEARCH,
    HNSW_EF_CONSTRUCTION,
    ef_search_for,
)
from frontdesk.knowledge.index.postgres_lexicon import PgLexicon
from frontdesk.knowledge.index.postgres_sql import (
    BM25,
    BM25_HEADING,
    HEADING_PREFIX,
    HYBRID,
    tsvector_literal,
    vector_literal,
)
from frontdesk.knowledge.index.shared import SharedRows, check_aligned, chunk_row
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.text.lexical import heading_terms

GRAPH_ROWS_TTL_S = 60.0  # the graph's size is a catalog estimate; re-read once a minute


def has_pgvector(engine: Engine) -> bool:
    """True when the knowledge tables carry the pgvector columns (revision 0004 ran)."""
    with engine.connect() as conn:
        found = conn.execute(
            text(
                "SELECT 1 FROM information_schema.columns WHERE table_name = 'knowledge_chunks'"
                " AND column_name = 'embedding_vec'"
            )
        ).scalar()
    return found is not None


class PostgresKnowledgeIndex(SharedRows):
    """`KnowledgeIndex` on PostgreSQL + pgvector; one per engine, kept for the process."""

    def __init__(self, engine: Engine, *, ef_search: int = DEFAULT_EF_SEARCH) -> None:
        if engine.dialect.name != "postgresql":
            raise ValueError(f"PostgresKnowledgeIndex needs PostgreSQL, not {engine.dialect.name}")
        self.engine = engine
        self.ef_search = ef_search
        self._dims: set[int] = set()
        self._iterative: bool | None = None
        self._graph_rows: dict[int, tuple[int, float]] = {}
        self._lock = threading.Lock()
        self.lexicon = PgLexicon()
        self.headings = PgLexicon(column="heading", length="heading_length")

    # -- documents -------------------------------------------------------------------
    def _ensure_dim_index(self, conn: Any, dim: int) -> None:
        if dim in self._dims:
            return
        conn.execute(
            text(
                f"CREATE INDEX IF NOT EXISTS ix_knowledge_chunks_hnsw_{dim} ON knowledge_chunks"
                f" USING hnsw ((embedding_vec::vector({dim})) vector_cosine_ops)"
                f" WITH (m = 16, ef_construction = {HNSW_EF_CONSTRUCTION})"
                f" WHERE embedding_dim = {dim}"
            )
        )
        self._dims.add(dim)

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
        with self.engine.begin() as conn:
            self._bump(conn, site_id)
            conn.execute(
                text("DELETE FROM knowledge_chunks WHERE site_id = :site AND doc_id = :doc"),
                {"site": site_id, "doc": document.doc_id},
            )
            upsert_document(conn, site_id, document, fingerprint, len(chunks), now)
            if not chunks:
                return
            dim = int(vectors.shape[1])
            self._ensure_dim_index(conn, dim)
            conn.execute(
                text(
                    "INSERT INTO knowledge_chunks (site_id, doc_id, chunk_id, chunk_index, title,"
                    " heading_path, content, url, source, content_hash, language,"
                    " embedding_model, embedding, embedding_vec, embedding_dim, lexical,"
                    " lexical_length, heading, heading_length) VALUES (:site, :doc,"
                    " :chunk_id, :chunk_index, :title, :heading_path, :content, :url, :source,"
                    " :content_hash, :language, :model, :embedding, CAST(:vec AS vector), :dim,"
                    " CAST(:body AS tsvector), :length, CAST(:heading AS tsvector),"
                    " :heading_length)"
                ),
                [
                    chunk_row(site_id, document.doc_id, chunk, embedding_model, vector)
                    | {
                        "vec": vector_literal(vector),
                        "dim": dim,
                        "body": body[0],
                        "length": body[1],
                        "heading": heading[0],
                        "heading_length": heading[1],
                    }
                    for chunk, vector, text_ in zip(chunks, vectors, lexical, strict=True)
                    for body, heading in [
                        (
                            tsvector_literal(text_),
                            tsvector_literal(heading_terms(text_, chunk.heading_path)),
                        )
                    ]
                ],
            )

    def revision(self, site_id: str) -> int:
        """The site's revision as the database has it now (shared by every replica)."""
        with self.engine.connect() as conn:
            return read_revision(conn, site_id)

    def _bump(self, conn: Any, site_id: str) -> None:
        conn.execute(
            text(
                "INSERT INTO knowledge_sites (site_id, revision, updated_at)"
                " VALUES (:site, 1, :now) ON CONFLICT (site_id)"
                " DO UPDATE SET revision = knowledge_sites.revision + 1, updated_at = :now"
            ),
            {"site": site_id, "now": utc_now()},
        )

    def remove_documents(self, site_id: str, doc_ids: Sequence[str]) -> int:
        if not doc_ids:
            return 0
        with self.engine.begin() as conn:
            self._bump(conn, site_id)
            conn.execute(
                text(
                    "DELETE FROM knowledge_chunks WHERE site_id = :site AND doc_id IN :docs"
                ).bindparams(bindparam("docs", expanding=True)),
                {"site": site_id, "docs": list(doc_ids)},
            )
            result = conn.execute(
                text(
                    "DELETE FROM knowledge_documents WHERE site_id = :site AND doc_id IN :docs"
                ).bindparams(bindparam("docs", expanding=True)),
                {"site": site_id, "docs": list(doc_ids)},
            )
        return int(result.rowcount)

    # -- search ----------------------------------------------------------------------
    def graph_rows(self, conn: Any, dim: int) -> int:
        """Rows in the `dim` HNSW graph, as PostgreSQL's statistics estimate them (kept by
        CREATE INDEX, VACUUM and ANALYZE; the table's estimate until the index has one);
        cached for `GRAPH_ROWS_TTL_S`."""
        now = time.monotonic()
        cached = self._graph_rows.get(dim)
        if cached is not None and now - cached[1] < GRAPH_ROWS_TTL_S:
            return cached[0]
        # reltuples is -1 until a relation's first VACUUM / ANALYZE (PostgreSQL >= 14).
        graph, table = conn.execute(
            text(
                "SELECT i.reltuples, t.reltuples FROM pg_class t"
                " LEFT JOIN pg_class i ON i.relname = :index WHERE t.relname = 'knowledge_chunks'"
            ),
            {"index": f"ix_knowledge_chunks_hnsw_{dim}"},
        ).one()
        estimate = graph if graph is not None and graph >= 0 else table
        rows = max(0, int(estimate or 0))
        self._graph_rows[dim] = (rows, now)
        return rows

    def tune_search(self, conn: Any, limit: int, dim: int) -> int:
        """Set this transaction's HNSW search for `limit` rows of the `dim` graph; the
        `ef_search` set."""
        if self._iterative is None:
            version = conn.execute(
                text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            ).scalar()
            major, minor = (int(p) for p in str(version or "0.0").split(".")[:2])
            self._iterative = (major, minor) >= (0, 8)
        ef_search = ef_search_for(int(limit), int(self.ef_search), self.graph_rows(conn, dim))
        conn.execute(text(f"SET LOCAL hnsw.ef_search = {ef_search}"))
        if self._iterative:
            conn.execute(text("SET LOCAL hnsw.iterative_scan = relaxed_order"))
        return ef_search

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
        """Dense, lexical and heading candidates fused by reciprocal rank, with cosines,
        in one query (the heading list is not searched at weight 0)."""
        dim = int(vector.shape[0])
        with self.engine.begin() as conn:
            tsq, asked = self.lexicon.query(conn, site_id, terms)
            count, average = self.lexicon.stats(conn, site_id) if tsq else (0, 1.0)
            heading = self._heading_parameters(conn, site_id, terms if heading_weight > 0 else [])
            self.tune_search(conn, limit, dim)
            rows = conn.execute(
                text(HYBRID.format(d=dim, bm25=BM25, bm25_heading=BM25_HEADING)),
                {
                    **heading,
                    "site": site_id,
                    "model": embedding_model,
                    "vec": vector_literal(vector),
                    "limit": limit,
                    "tsq": tsq,
                    "terms": asked,
                    "has_terms": bool(tsq),
                    "n": count,
                    "avgdl": average,
                    "wd": dense_weight,
                    "wl": lexical_weight,
                    "wh": heading_weight,
                    "k": rrf_k,
                },
            ).all()
        return [
            FusedHit(row[0], float(row[1]), None if row[2] is None else float(row[2]))
            for row in rows
        ]

    def lexical_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        with self.engine.connect() as conn:
            tsq, asked = self.lexicon.query(conn, site_id, terms)
            if not tsq:
                return []
            count, average = self.lexicon.stats(conn, site_id)
            rows = conn.execute(
                text(BM25),
                {
                    "site": site_id,
                    "tsq": tsq,
                    "terms": asked,
                    "has_terms": True,
                    "n": count,
                    "avgdl": average,
                    "limit": limit,
                },
            ).all()
        return [Hit(row[0], float(row[1])) for row in rows]

    def _heading_parameters(
        self, conn: Any, site_id: str, terms: Sequence[str]
    ) -> dict[str, object]:
        """The heading list's BM25 parameters (named with `HEADING_PREFIX`); they ask for
        nothing when no term is given or none fits the budget."""
        tsq, asked = self.headings.query(conn, site_id, terms) if terms else ("", [])
        count, average = self.headings.stats(conn, site_id) if tsq else (0, 1.0)
        values = {"tsq": tsq, "terms": asked, "has_terms": bool(tsq), "n": count, "avgdl": average}
        return {HEADING_PREFIX + name: value for name, value in values.items()}

    def heading_search(self, site_id: str, terms: Sequence[str], limit: int) -> list[Hit]:
        """Best chunks by BM25 over their heading paths alone (the heading field)."""
        with self.engine.connect() as conn:
            parameters = self._heading_parameters(conn, site_id, terms)
            if not parameters[HEADING_PREFIX + "has_terms"]:
                return []
            rows = conn.execute(
                text(BM25_HEADING), {**parameters, "site": site_id, "limit": limit}
            ).all()
        return [Hit(row[0], float(row[1])) for row in rows]

    def dense_search(
        self, site_id: str, embedding_model: str, vector: Vector, limit: int
    ) -> list[Hit]:
        d = int(vector.shape[0])
        with self.engine.begin() as conn:
            self.tune_search(conn, limit, d)
            rows = conn.execute(
                text(
                    f"SELECT chunk_id, 1 - (embedding_vec::vector({d}) <=>"
                    f" CAST(:vec AS vector({d}))) FROM knowledge_chunks WHERE site_id = :site"
                    f" AND embedding_model = :model AND embedding_dim = {d}"
                    f" ORDER BY embedding_vec::vector({d}) <=> CAST(:vec AS vector({d}))"
                    " LIMIT :limit"
                ),
                {
                    "site": site_id,
                    "model": embedding_model,
                    "vec": vector_literal(vector),
                    "limit": limit,
                },
            ).all()
        hits = [Hit(row[0], float(row[1])) for row in rows]
        return sorted(hits, key=lambda h: -h.score)

    def cosine_scores(
        self, site_id: str, embedding_model: str, vector: Vector, chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        if not chunk_ids:
            return {}
        d = int(vector.shape[0])
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    f"SELECT chunk_id, 1 - (embedding_vec::vector({d}) <=>"
                    f" CAST(:vec AS vector({d}))) FROM knowledge_chunks WHERE site_id = :site"
                    f" AND embedding_model = :model AND embedding_dim = {d}"
                    " AND chunk_id IN :ids"
                ).bindparams(bindparam("ids", expanding=True)),
                {
                    "site": site_id,
                    "model": embedding_model,
                    "vec": vector_literal(vector),
                    "ids": list(chunk_ids),
                },
            ).all()
        return {row[0]: float(row[1]) for row in rows}

    def get_chunks(self, site_id: str, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        if not chunk_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT chunk_id, doc_id, chunk_index, title, url, source, content,"
                    " heading_path, language FROM knowledge_chunks WHERE site_id = :site"
                    " AND chunk_id IN :ids AND btrim(content) <> ''"
                ).bindparams(bindparam("ids", expanding=True)),
                {"site": site_id, "ids": list(chunk_ids)},
            ).all()
        return {
            row[0]: StoredChunk(
                *row[:7],  # type: ignore[misc]
                heading_path=tuple(json.loads(row[7])),
                language=row[8],
            )
            for row in rows
        }
