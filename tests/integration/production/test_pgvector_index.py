"""The PostgreSQL knowledge index (tsvector + pgvector HNSW, fused in one query).

Runs on the local PostgreSQL with pgvector (`make pgvector` builds and installs it).
Acceptance: on StackFAQ, hybrid search on PostgreSQL finds the right document in its top 5
as often as SQLite does (within one point, and ≥ 95 %). The two backends rank words with
two BM25 implementations (SQLite's FTS5 `bm25()`, PostgreSQL's in SQL over tsvectors), so
their lists may differ in order and tail; how often the top-5 sets agree is printed (`-s`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from alembic.config import Config
from sqlalchemy import Engine, text

from frontdesk.knowledge.evaluate import read_corpus, read_queries
from frontdesk.knowledge.index import postgres
from frontdesk.knowledge.index.postgres import PostgresKnowledgeIndex
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

pytestmark = [pytest.mark.postgres, pytest.mark.integration, pytest.mark.timeout(900)]
STACKFAQ = Path(__file__).resolve().parents[3].parent / "shared/datasets/retrieval/stackfaq"
SITE = SiteKnowledge("faq", KnowledgeConfig(relevance_threshold=None))
OTHER = SiteKnowledge("faq-other", KnowledgeConfig(relevance_threshold=None))
# StackFAQ's backends are compared on the default model's search, which the second
# index (English sites) does not change: it is not built.
E5_ALONE = SiteKnowledge("faq", KnowledgeConfig(relevance_threshold=None, english_embedding=None))


@contextmanager
def both_backends(
    pgvector_url: str, tmp_path: Path, name: str
) -> Iterator[tuple[KnowledgeBase, KnowledgeBase]]:
    """A migrated SQLite and a migrated PostgreSQL knowledge base, disposed afterwards."""
    lite_engine = make_engine(f"sqlite:///{tmp_path / f'{name}.db'}")
    pg_engine = make_engine(pgvector_url)
    try:
        upgrade(lite_engine)
        upgrade(pg_engine)
        yield KnowledgeBase(lite_engine), KnowledgeBase(pg_engine)
    finally:
        lite_engine.dispose()
        pg_engine.dispose()


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
    with both_backends(pgvector_url, tmp_path, "faq") as (lite, pg):
        lite.ingest_documents(E5_ALONE, documents, progress=False)
        pg.ingest_documents(E5_ALONE, documents, progress=False)
        lite_retriever, pg_retriever = lite.retriever(E5_ALONE), pg.retriever(E5_ALONE)
        # With the heading list (BM25 over titles and headings alone) at its measured
        # weight, whatever the default: both backends must fuse three lists alike.
        options = SearchOptions(top_k=5, relevance_threshold=None, heading_weight=0.1)
        same_set = same_order = lite_hits = pg_hits = 0
        pg_ms: list[float] = []
        for item in queries:
            vector = lite_retriever.embed_query(item.query)
            a = lite_retriever.search_with_vector(E5_ALONE.site_id, item.query, vector, options)
            started = time.perf_counter()
            b = pg_retriever.search_with_vector(E5_ALONE.site_id, item.query, vector, options)
            pg_ms.append((time.perf_counter() - started) * 1000)
            ids_a, ids_b = [c.chunk_id for c in a.chunks], [c.chunk_id for c in b.chunks]
            same_set += set(ids_a) == set(ids_b)
            gold = set(item.gold_doc_ids)
            lite_hits += any(c.doc_id in gold for c in a.chunks)
            pg_hits += any(c.doc_id in gold for c in b.chunks)
            same_order += ids_a == ids_b
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


# (title, text): at a chunk size of 64 the shipping and account pages get a chunk per
# section, with heading paths such as "Shipping > Shipping abroad".
HEADED = {
    "refunds.md": (
        "Refund policy",
        "Money goes back to the card within 14 days. Shipping fees are not returned.",
    ),
    "shipping.md": (
        "Shipping",
        "## Delivery times\n\nParcels arrive in 3 to 5 working days in most regions, and a"
        " refund of the shipping fee is possible when a parcel is late by more than a week."
        "\n\n## Shipping abroad\n\nWe ship to every country of the European Union and to"
        " Switzerland and Norway, with customs paperwork prepared by our warehouse team. Orders"
        " outside Europe are not shipped yet.",
    ),
    "account.md": (
        "Your account",
        "## Password\n\nChange your password and e-mail address on the profile page, where"
        " the security settings also list the devices that are signed in to your account."
        "\n\n## Delete your account\n\nWrite to support to delete it; the team removes your"
        " data within thirty days and confirms by e-mail when everything is gone for good.",
    ),
    "returns.md": (
        "Returns and refund of shipping",
        "Send the parcel back within 30 days for a refund.",
    ),
}
HASHED = SiteKnowledge(
    "headed",
    KnowledgeConfig(embedding="hash:256", relevance_threshold=None, chunk_size=64, chunk_overlap=8),
)


def _headed_documents() -> list[Document]:
    return [Document(d, title, t, "markdown", f"test:{d}") for d, (title, t) in HEADED.items()]


def test_heading_lists_agree_with_sqlite(pgvector_url: str, tmp_path: Path) -> None:
    """The heading field ranks the same chunks in the same order on both backends, alone
    and as the third list of the hybrid search."""
    from frontdesk.text.lexical import query_terms

    with both_backends(pgvector_url, tmp_path, "headed") as (lite, pg):
        for kb in (lite, pg):
            kb.ingest_documents(HASHED, _headed_documents(), progress=False)
        questions = [
            "refund",
            "How long do refunds take?",
            "shipping abroad",
            "delete my account",
            "delivery times of parcels",
        ]
        for question in questions:
            words = query_terms(question)
            a = [h.chunk_id for h in lite.index.heading_search("headed", words, 10)]
            b = [h.chunk_id for h in pg.index.heading_search("headed", words, 10)]
            assert a and a == b, question
        # In the fusion: what the heading list adds to each candidate's score is the same on
        # both backends (the body's BM25 differs a little between FTS5 and SQL, as before).
        lite_retriever, pg_retriever = lite.retriever(HASHED), pg.retriever(HASHED)

        def added(retriever: Retriever, question: str) -> dict[str, float]:
            vector = lite_retriever.embed_query(question)
            scores = []
            for weight in (0.0, 0.5):
                options = SearchOptions(top_k=50, relevance_threshold=None, heading_weight=weight)
                result = retriever.search_with_vector("headed", question, vector, options)
                scores.append({c.chunk_id: c.rank_score for c in result.chunks})
            return {c: round(scores[1][c] - scores[0].get(c, 0.0), 5) for c in scores[1]}

        for question in questions:
            a, b = added(lite_retriever, question), added(pg_retriever, question)
            assert a == b, question
            assert any(a.values()), question


def test_upgrade_builds_the_heading_field_of_existing_chunks(pgvector_url: str) -> None:
    """Chunks written before revision 0015 (no heading columns) get the heading field
    the upgrade rebuilds from their stored tsvector: the values a fresh ingest writes;
    nothing else changes."""
    from alembic import command
    from sqlalchemy import text

    from frontdesk.store.migrate import alembic_config, current_revision, head_revision

    columns = (
        "SELECT id, site_id, chunk_id, content, heading_path, lexical::text, lexical_length,"
        " embedding_vec::text FROM knowledge_chunks ORDER BY id"
    )
    headings = "SELECT id, heading::text, heading_length FROM knowledge_chunks ORDER BY id"
    engine = make_engine(pgvector_url)
    try:
        upgrade(engine)
        kb = KnowledgeBase(engine)
        kb.ingest_documents(HASHED, _headed_documents(), progress=False)
        with engine.connect() as conn:
            before = conn.execute(text(columns)).all()
            fresh = conn.execute(text(headings)).all()
        assert any(length for _, _, length in fresh)
        searched = [c.chunk_id for c in kb.search(HASHED, "shipping abroad").chunks]
        config = alembic_config(engine.url.render_as_string(hide_password=False))
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0014")  # as the previous version left it
        with engine.connect() as conn:
            found = conn.execute(
                text(
                    "SELECT count(*) FROM information_schema.columns"
                    " WHERE table_name = 'knowledge_chunks'"
                    " AND column_name IN ('heading', 'heading_length')"
                )
            ).scalar_one()
        assert found == 0
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        with engine.connect() as conn:
            assert conn.execute(text(columns)).all() == before
            assert conn.execute(text(headings)).all() == fresh
        after = KnowledgeBase(engine)
        assert [c.chunk_id for c in after.search(HASHED, "shipping abroad").chunks] == searched
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
                assert index.tune_search(conn, limit, 384) == expected
                assert conn.execute(text("SHOW hnsw.ef_search")).scalar_one() == str(expected)
        with engine.connect() as conn:  # SET LOCAL: gone with the transaction
            assert conn.execute(text("SHOW hnsw.ef_search")).scalar_one() == "40"
    finally:
        engine.dispose()


def test_the_list_is_sized_by_the_graph_postgresql_counted(
    pgvector_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph's size comes from PostgreSQL's own estimate of the dimension's HNSW index,
    cached for a minute and then read again, so a graph that grows past a breadth step
    gets the broader list without a restart."""
    engine = make_engine(pgvector_url)
    try:
        upgrade(engine)
        kb = KnowledgeBase(engine)
        index = kb.index
        assert isinstance(index, PostgresKnowledgeIndex)
        kb.ingest_documents(SITE, [_sized_document(i) for i in range(30)], progress=False)
        # rows of another dimension: in the table, not in the 384 graph
        narrow = np.eye(12, 6, dtype=np.float32)
        chunks = [Chunk(f"n-{i}", "n", i, f"narrow {i}", (), "n") for i in range(12)]
        index.replace_document(
            "narrow", Document("n", "n", "", "text", "n"), "f", chunks, narrow, ["t"] * 12, "m"
        )
        counted = _vacuum_and_count(engine)
        with engine.connect() as conn:
            table = int(conn.execute(text("SELECT count(*) FROM knowledge_chunks")).scalar_one())
        assert table >= counted + 12
        with engine.begin() as conn:
            assert index.graph_rows(conn, 384) == counted >= 30  # the graph's, not the table's
            assert index.graph_rows(conn, 999) == table  # no such graph: the table's
        kb.ingest_documents(SITE, [_sized_document(i) for i in range(30, 60)], progress=False)
        grown = _vacuum_and_count(engine)
        assert grown >= counted + 30
        with engine.begin() as conn:
            assert index.graph_rows(conn, 384) == counted  # within the minute: cached
        monkeypatch.setattr(postgres, "GRAPH_ROWS_TTL_S", 0.0)
        with engine.begin() as conn:
            assert index.graph_rows(conn, 384) == grown
    finally:
        engine.dispose()


def _vacuum_and_count(engine: Engine) -> int:
    """Refresh PostgreSQL's estimates (autovacuum's job in production); the true count."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE knowledge_chunks"))
        return int(
            conn.execute(
                text("SELECT count(*) FROM knowledge_chunks WHERE embedding_dim = 384")
            ).scalar_one()
        )


def _sized_document(number: int) -> Document:
    return Document(f"d{number}", f"Page {number}", f"Topic {number} is covered here.", "text", "")


def _hnsw_options(engine: Engine) -> dict[str, dict[str, str]]:
    """Each HNSW index of knowledge_chunks: its options as PostgreSQL stores them."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT i.relname, i.reloptions FROM pg_index x"
                " JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
                " JOIN pg_am a ON a.oid = i.relam"
                " WHERE t.relname = 'knowledge_chunks' AND a.amname = 'hnsw'"
            )
        ).all()
    return {name: dict(o.split("=", 1) for o in options or ()) for name, options in rows}


def _nearest_by_index(engine: Engine, vector: np.ndarray) -> str:
    """The nearest chunk as the dimension's HNSW index finds it (no sequential scan)."""
    d = len(vector)
    query = (
        f"SELECT chunk_id FROM knowledge_chunks WHERE embedding_dim = {d}"
        f" ORDER BY embedding_vec::vector({d}) <=> CAST(:v AS vector({d})) LIMIT 1"
    )
    with engine.begin() as conn:
        conn.execute(text("SET LOCAL enable_seqscan = off"))
        literal = {"v": str(vector.tolist())}
        plan = "\n".join(conn.execute(text(f"EXPLAIN {query}"), literal).scalars())
        assert f"ix_knowledge_chunks_hnsw_{d}" in plan, plan
        return str(conn.execute(text(query), literal).scalar_one())


def test_hnsw_graphs_grow_with_the_broader_build_list(pgvector_url: str) -> None:
    """Revision 0016 sets ef_construction 128 on the HNSW indexes there are (revision
    0004's and a dimension's created at ingest), keeping m; a new dimension's index is
    created with it; downgrading restores 64; the altered graphs keep finding the rows
    inserted before and after the change."""
    from alembic import command

    from frontdesk.store.migrate import alembic_config, current_revision, head_revision

    engine = make_engine(pgvector_url)
    config = alembic_config(engine.url.render_as_string(hide_password=False))

    def migrate(step: Callable[[Config, str], None], to: str) -> None:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            step(config, to)

    def write(doc: str, rows: np.ndarray) -> None:
        chunks = [Chunk(f"{doc}-{n}", doc, n, f"text {n}", (), doc) for n in range(len(rows))]
        PostgresKnowledgeIndex(engine).replace_document(
            "s", Document(doc, doc, "", "text", doc), "f", chunks, rows, ["t"] * len(rows), "m"
        )

    def efc() -> dict[str, str]:
        return {name: o["ef_construction"] for name, o in _hnsw_options(engine).items()}

    rng = np.random.default_rng(3)
    unit = rng.standard_normal((60, 16)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    try:
        # Rows written by today's code, then the schema taken back to before revision
        # 0016: the rows stay in the graphs that revision alters.
        upgrade(engine)
        write("old", unit[:30])
        migrate(command.downgrade, "0015")
        with engine.begin() as conn:  # as the code before revision 0016 created it
            conn.execute(text("ALTER INDEX ix_knowledge_chunks_hnsw_16 SET (ef_construction=64)"))
        assert _hnsw_options(engine) == {
            "ix_knowledge_chunks_hnsw_384": {"m": "16", "ef_construction": "64"},
            "ix_knowledge_chunks_hnsw_16": {"m": "16", "ef_construction": "64"},
        }
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        assert _hnsw_options(engine) == {
            "ix_knowledge_chunks_hnsw_384": {"m": "16", "ef_construction": "128"},
            "ix_knowledge_chunks_hnsw_16": {"m": "16", "ef_construction": "128"},
        }
        write("new", unit[30:])  # inserted into the altered graph
        write("wide", np.eye(3, 8, dtype=np.float32))  # a new dimension's index
        assert _hnsw_options(engine)["ix_knowledge_chunks_hnsw_8"] == {
            "m": "16",
            "ef_construction": "128",
        }
        for n in range(60):  # every row, old and new, is its own nearest neighbour
            expected = f"old-{n}" if n < 30 else f"new-{n - 30}"
            assert _nearest_by_index(engine, unit[n]) == expected
        migrate(command.downgrade, "0015")
        assert efc() == dict.fromkeys(
            ["ix_knowledge_chunks_hnsw_384", "ix_knowledge_chunks_hnsw_16",
             "ix_knowledge_chunks_hnsw_8"], "64"
        )  # fmt: skip
    finally:
        engine.dispose()


TITLED = SiteKnowledge(
    "titled",
    KnowledgeConfig(embedding="hash:256", relevance_threshold=None, title_weight=0.5),
)
TITLED_PAGES = [
    Document("holiday", "Taking the bike on holiday", "Rentals may leave the city.", "text", "h"),
    Document("stolen", "Stolen bikes", "Report it to the police within a day.", "text", "s"),
    Document("cities", "Delivery cities", "We deliver bikes in three cities.", "text", "c"),
    Document("locks", "Locks", "Every bike has a lock; a holiday lock is extra.", "text", "l"),
]


def test_titles_rank_the_dense_list_alike_on_both_backends(
    pgvector_url: str, tmp_path: Path
) -> None:
    """Page titles in the dense ranking (`titles.py`) take the separate-list path on
    PostgreSQL too: the same order as SQLite, passage cosines kept, and the titles are
    in PostgreSQL's embedding cache after the ingest."""
    from dataclasses import replace

    from frontdesk.knowledge.embedding.embedders import make_embedder
    from frontdesk.knowledge.models import content_hash

    hashing = make_embedder("hash:256")
    title_of = {d.doc_id: hashing.embed_documents([d.title])[0] for d in TITLED_PAGES}

    with both_backends(pgvector_url, tmp_path, "titled") as (lite, pg):
        for kb in (lite, pg):
            kb.ingest_documents(TITLED, TITLED_PAGES, progress=False)
        cached = pg.index.cached_vectors("hash:256", [content_hash(d.title) for d in TITLED_PAGES])
        assert len(cached) == len(TITLED_PAGES)
        options = replace(TITLED.search_options(top_k=4), lexical_weight=0.0)
        plain = replace(options, title_weight=0.0)
        moved = False
        for question in ["holiday bike", "stolen", "which cities", "lock for the holiday"]:
            vector = lite.retriever(TITLED).embed_query(question)
            orders = []
            for kb in (lite, pg):
                retriever = kb.retriever(TITLED)
                titled = retriever.search_with_vector("titled", question, vector, options)
                by_cosine = retriever.search_with_vector("titled", question, vector, plain)
                scores = {c.doc_id: round(c.score, 4) for c in titled.chunks}
                assert scores == {c.doc_id: round(c.score, 4) for c in by_cosine.chunks}
                blended = [
                    round(c.score + 0.5 * float(np.dot(title_of[c.doc_id], vector)), 4)
                    for c in titled.chunks
                ]
                assert blended == sorted(blended, reverse=True), (question, blended)
                orders.append(blended)
                moved |= [c.doc_id for c in titled.chunks] != [c.doc_id for c in by_cosine.chunks]
            assert orders[0] == orders[1], question  # equal scores may swap places
        assert moved, "no question ranks differently by title: the test shows nothing"
