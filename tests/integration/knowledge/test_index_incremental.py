"""The embedded index while it changes: per-language stemming, vector bases on disk,
the change log, compaction, HNSW recall and the rebuild path — on a real SQLite file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import Engine, text

from frontdesk.knowledge.index.base import rrf_fuse
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex, vector_folder
from frontdesk.knowledge.index.vector_base import digest
from frontdesk.knowledge.index.vectors import VectorStore
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.knowledge.search.query import query_language
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.text.lexical import lexical_text, query_terms

pytestmark = pytest.mark.integration

SiteFactory = Callable[..., SiteKnowledge]
MODEL = "test:16"


def doc(doc_id: str, text_: str) -> Document:
    return Document(doc_id, doc_id, text_, "markdown", f"test:{doc_id}")


PAGES = {
    "billing-en.md": "Invoices are issued monthly. Every customer receives the invoice by email "
    "and can download older invoices from the account page.",
    "rechnung-de.md": "Rechnungen werden monatlich erstellt. Jeder Kunde erhält sie per "
    "E-Mail und kann ältere Rechnungen im Kundenkonto herunterladen.",
    "oplata-ru.md": "Оплата заказов принимается банковскими картами. Чеки об оплате "
    "приходят на электронную почту покупателя.",
}
QUESTIONS = {
    "billing-en.md": "When was my invoice issued?",
    "rechnung-de.md": "Wo finde ich meine alte Rechnung?",
    "oplata-ru.md": "Можно оплатить заказ картой?",
}


def test_each_language_is_found_by_inflected_questions(
    kb: KnowledgeBase, make_site: SiteFactory
) -> None:
    site = make_site("mixed", relevance_threshold=0.0)  # site language: English
    kb.ingest_documents(site, [doc(d, t) for d, t in PAGES.items()], progress=False)
    index = kb.index
    for doc_id, question in QUESTIONS.items():
        terms = query_terms(question, query_language(question, "en"))
        hits = index.lexical_search("mixed", terms, 5)
        found = index.get_chunks("mixed", [hits[0].chunk_id])
        assert found[hits[0].chunk_id].doc_id == doc_id, (question, hits)
        assert kb.search(site, question).chunks[0].doc_id == doc_id
    # The German page only matches because it was stemmed as German: the site's
    # English stemmer leaves "Rechnungen" apart from the question's "Rechnung".
    assert "rechnung" not in lexical_text(PAGES["rechnung-de.md"], "en").split()
    assert "rechnung" in lexical_text(PAGES["rechnung-de.md"], "de").split()


def test_bm25_prefers_rare_terms_and_leaves_out_terms_past_the_budget(engine: Engine) -> None:
    index = SqliteKnowledgeIndex(engine)
    index.lexicon.budget = 4
    bodies = ["the refund polici", "the ship polici the the", "the zebra", "refund refund fast"]
    rows = np.eye(4, 16, dtype=np.float32)
    chunks = [chunk("d", n) for n in range(4)]
    index.replace_document("s", doc("d", "x"), "f", chunks, rows, bodies, MODEL)
    top = [h.chunk_id for h in index.lexical_search("s", ["refund", "zebra"], 10)]
    assert top[0] == "d-2"  # the rarest term, in the shortest document
    assert set(top) == {"d-0", "d-2", "d-3"}
    # "the" (in 3 of 4 chunks) no longer fits the budget beside "refund": left out.
    assert {h.chunk_id for h in index.lexical_search("s", ["refund", "the"], 10)} == {
        "d-0",
        "d-3",
    }
    # Alone, the commonest term is still searched; unknown terms match nothing.
    assert len(index.lexical_search("s", ["the"], 10)) == 3
    assert index.lexical_search("s", ["missing"], 10) == []


def test_a_query_of_only_common_terms_asks_for_all_of_them_or_nothing(engine: Engine) -> None:
    """Scoring cost stays within the budget: FTS5 scores every matched row."""
    index = SqliteKnowledgeIndex(engine)
    index.lexicon.budget = 2
    bodies = ["how to pay", "how to ship", "how to pay fast", "pay later"]
    rows = np.eye(4, 16, dtype=np.float32)
    chunks = [chunk("d", n) for n in range(4)]
    index.replace_document("s", doc("d", "x"), "f", chunks, rows, bodies, MODEL)
    # "how" (3 chunks) and "pay" (3) are each past the budget; both together: 2 chunks.
    assert {h.chunk_id for h in index.lexical_search("s", ["how", "pay"], 10)} == {
        "d-0",
        "d-2",
    }
    # "how to" is in 3 chunks, more than the budget: too common to rank by.
    assert index.lexical_search("s", ["how", "to"], 10) == []
    assert index.lexical_search("s", ["how"], 10) == []
    # A term within the budget is still searched beside them (as before): OR.
    assert [h.chunk_id for h in index.lexical_search("s", ["how", "ship"], 10)] == ["d-1"]


def test_a_conjunction_is_ranked_only_while_its_postings_fit_the_ranking_budget(
    engine: Engine,
) -> None:
    """bm25() reads every posting of a query's terms to weigh them: a conjunction of
    common terms is ranked only when those postings add up to the ranking budget."""
    bodies = ["how to pay", "how to ship", "how to pay fast", "pay later"]
    chunks = [chunk("d", n) for n in range(4)]
    found = {}
    for ranking_budget in (6, 5):  # "how" and "pay" are in 3 chunks each: 6 postings
        index = SqliteKnowledgeIndex(engine)
        index.lexicon.budget, index.lexicon.ranking_budget = 2, ranking_budget
        rows = np.eye(4, 16, dtype=np.float32)
        index.replace_document("s", doc("d", "x"), "f", chunks, rows, bodies, MODEL)
        found[ranking_budget] = index.lexical_search("s", ["how", "pay"], 10)
        # A term within the postings budget is searched as before, whatever the budget.
        assert [h.chunk_id for h in index.lexical_search("s", ["how", "ship"], 10)] == ["d-1"]
    assert {h.chunk_id for h in found[6]} == {"d-0", "d-2"}
    assert found[5] == []


def test_the_ranking_budget_changes_only_queries_of_only_common_terms(engine: Engine) -> None:
    """Every query with a term under the postings budget gets the same hits and scores
    with any ranking budget; a query of only common terms gets the same or none."""
    rng = np.random.default_rng(11)
    words = [f"w{n}" for n in range(60)]
    weights = 1 / np.arange(1, 61)
    bodies = [" ".join(rng.choice(words, 12, p=weights / weights.sum())) for _ in range(300)]
    chunks = [chunk("d", n) for n in range(300)]
    rows = unit(rng, 300)
    queries = [list(rng.choice(words[:30], int(rng.integers(1, 5)))) for _ in range(200)]
    results = {}
    for ranking_budget in (0, 10**9):
        index = SqliteKnowledgeIndex(engine)
        index.lexicon.budget, index.lexicon.ranking_budget = 40, ranking_budget
        index.replace_document("s", doc("d", "x"), "f", chunks, rows, bodies, MODEL)
        results[ranking_budget] = [
            [(h.chunk_id, round(h.score, 9)) for h in index.lexical_search("s", q, 20)]
            for q in queries
        ]
    frequencies = {w: sum(w in b.split() for b in bodies) for w in words}
    ordinary = common = changed = 0
    for query, bounded, unbounded in zip(queries, results[0], results[10**9], strict=True):
        if any(0 < frequencies[t] <= 40 for t in query):
            ordinary += 1
            assert bounded == unbounded, query
        else:
            common += 1
            assert bounded in ([], unbounded), query
            changed += bounded != unbounded
    assert ordinary > 50 and changed > 5  # both kinds were exercised


def test_hybrid_search_fuses_as_the_two_lists_do(engine: Engine) -> None:
    """The one-connection `hybrid_search` ranks exactly as `rrf_fuse` of `dense_search`
    and `lexical_search`, with the cosines `cosine_scores` gives (also after a write that
    is still in the delta, and a removal)."""
    rng = np.random.default_rng(5)
    index = small_index(engine, ann_min_rows=100)
    words = [f"w{n}" for n in range(40)]
    for d in range(12):
        bodies = [" ".join(rng.choice(words, 8)) for _ in range(20)]
        chunks = [chunk(f"d{d}", n) for n in range(20)]
        vectors = unit(rng, 20)
        index.replace_document("s", doc(f"d{d}", "x"), "f", chunks, vectors, bodies, MODEL)
    assert index.rebuild_vectors("s") == 240
    assert index.vectors.live("s", MODEL).base.ann is not None
    write(index, "late", unit(rng, 3))  # in the delta, not the graph
    index.remove_documents("s", ["d3"])
    lexical_only = 0
    for query in unit(rng, 10):
        terms = list(rng.choice(words, 3))
        dense = index.dense_search("s", MODEL, query, 20)
        lexical = index.lexical_search("s", terms, 20)
        expected = rrf_fuse([(dense, 1.0), (lexical, 0.2)], k=30)
        hits = index.hybrid_search(
            "s", MODEL, query, terms, limit=20, dense_weight=1.0, lexical_weight=0.2, rrf_k=30
        )
        assert [(h.chunk_id, h.rank_score) for h in hits] == expected
        exact_cosines = index.cosine_scores("s", MODEL, query, [h.chunk_id for h in hits])
        for hit in hits:
            assert hit.cosine is not None
            assert np.isclose(hit.cosine, exact_cosines[hit.chunk_id], atol=1e-6)
        assert all(not h.chunk_id.startswith("d3-") for h in hits)
        lexical_only += len({h.chunk_id for h in hits} - {h.chunk_id for h in dense})
    assert lexical_only > 0  # cosines read from the vector store, not the dense list


def chunk(doc_id: str, n: int) -> Chunk:
    return Chunk(f"{doc_id}-{n}", doc_id, n, f"chunk {n} of {doc_id}", (doc_id,), doc_id)


def write(index: SqliteKnowledgeIndex, doc_id: str, vectors: np.ndarray) -> None:
    chunks = [chunk(doc_id, n) for n in range(len(vectors))]
    lexical = [lexical_text(c.indexed_text) for c in chunks]
    index.replace_document("s", doc(doc_id, "x"), "f", chunks, vectors, lexical, MODEL)


def unit(rng: np.random.Generator, rows: int) -> np.ndarray:
    vectors = rng.standard_normal((rows, 16)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def exact(index: SqliteKnowledgeIndex, vector: np.ndarray, limit: int) -> list[str]:
    """Brute force over the rows in SQLite: the truth the vector store must match."""
    with index.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT chunk_id, embedding FROM knowledge_chunks WHERE site_id = 's'")
        ).all()
    scored = sorted(
        ((float(np.frombuffer(blob, "<f4") @ vector), cid) for cid, blob in rows), reverse=True
    )
    return [cid for _, cid in scored[:limit]]


def small_index(engine: Engine, **options: int) -> SqliteKnowledgeIndex:
    store = VectorStore(engine, vector_folder(engine), background=False, **options)
    return SqliteKnowledgeIndex(engine, vectors=store)


def test_writes_are_searched_through_the_log_and_compacted_into_new_bases(
    engine: Engine,
) -> None:
    rng = np.random.default_rng(3)
    index = small_index(engine, compaction_rows=4, ann_min_rows=10_000)
    other = small_index(engine, compaction_rows=10_000)  # a second worker, never compacts
    for n in range(4):
        write(index, f"d{n}", unit(rng, 3))
    query = unit(rng, 1)[0]
    assert [h.chunk_id for h in index.dense_search("s", MODEL, query, 5)] == exact(index, query, 5)
    assert [h.chunk_id for h in other.dense_search("s", MODEL, query, 5)] == exact(index, query, 5)
    folder = vector_folder(engine)
    assert folder is not None
    manifest = folder / digest("s") / digest(MODEL) / "manifest.json"
    first = json.loads(manifest.read_text())["generation"]

    for n in range(4, 8):  # 12 new rows and 3 replaced: past the compaction threshold
        write(index, f"d{n}", unit(rng, 3))
    write(index, "d0", unit(rng, 3))
    index.remove_documents("s", ["d1"])
    assert [h.chunk_id for h in index.dense_search("s", MODEL, query, 8)] == exact(index, query, 8)
    assert json.loads(manifest.read_text())["generation"] > first
    with engine.connect() as conn:
        floor = conn.execute(text("SELECT log_floor FROM knowledge_sites")).scalar_one()
        left = conn.execute(text("SELECT count(*) FROM knowledge_changes")).scalar_one()
    assert floor > 0 and left == 0  # the log holds only what no base has yet

    # The other worker's base is older than the floor: it reloads the new one.
    other._checked_at.clear()
    assert [h.chunk_id for h in other.dense_search("s", MODEL, query, 8)] == exact(index, query, 8)
    assert all(not h.chunk_id.startswith("d1-") for h in other.dense_search("s", MODEL, query, 30))


def test_a_worker_applies_only_its_sites_and_models_logged_rows(engine: Engine) -> None:
    rng = np.random.default_rng(11)
    writer = small_index(engine, compaction_rows=10_000)
    searcher = small_index(engine, compaction_rows=10_000)  # another worker
    write(writer, "d0", unit(rng, 3))
    query = unit(rng, 1)[0]
    assert len(searcher.dense_search("s", MODEL, query, 10)) == 3  # its base: d0
    write(writer, "d1", unit(rng, 3))
    chunks = [chunk("o1", n) for n in range(3)]
    lexical = [lexical_text(c.indexed_text) for c in chunks]
    vectors = unit(rng, 3)
    writer.replace_document("s", doc("o1", "x"), "f", chunks, vectors, lexical, "test:other")
    writer.replace_document("t", doc("t1", "x"), "f", chunks, vectors, lexical, MODEL)
    searcher._checked_at.clear()
    hits = [h.chunk_id for h in searcher.dense_search("s", MODEL, query, 10)]
    assert sorted(hits) == sorted(f"d{d}-{n}" for d in range(2) for n in range(3))
    other_model = searcher.dense_search("s", "test:other", vectors[0], 10)
    assert [h.chunk_id for h in other_model][:1] == ["o1-0"]


def test_the_writing_process_compacts_so_searchers_need_not(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("frontdesk.knowledge.index.vectors.WRITE_CHECK_S", 0.0)
    rng = np.random.default_rng(9)
    writer = small_index(engine, compaction_rows=5)
    searcher = small_index(engine, compaction_rows=1_000)
    write(writer, "d0", unit(rng, 3))
    query = unit(rng, 1)[0]
    searcher.dense_search("s", MODEL, query, 3)  # the first search builds generation 1
    folder = vector_folder(engine)
    assert folder is not None
    manifest = folder / digest("s") / digest(MODEL) / "manifest.json"
    assert json.loads(manifest.read_text())["generation"] == 1
    for n in range(1, 4):
        write(writer, f"d{n}", unit(rng, 3))  # 9 logged rows > 5: the writer compacts
    assert json.loads(manifest.read_text())["generation"] == 2
    assert json.loads(manifest.read_text())["rows"] >= 6
    searcher._checked_at.clear()
    hits = [h.chunk_id for h in searcher.dense_search("s", MODEL, query, 12)]
    assert hits == exact(searcher, query, 12)


def test_lost_or_half_written_files_are_rebuilt_from_sqlite(engine: Engine) -> None:
    rng = np.random.default_rng(5)
    index = small_index(engine)
    for n in range(5):
        write(index, f"d{n}", unit(rng, 4))
    query = unit(rng, 1)[0]
    expected = exact(index, query, 6)
    assert [h.chunk_id for h in index.dense_search("s", MODEL, query, 6)] == expected
    folder = vector_folder(engine)
    assert folder is not None
    base = folder / digest("s") / digest(MODEL)
    # A crash mid-compaction leaves temporary files no manifest names: ignored.
    (base / "gen-99.f32.npy.tmp").write_bytes(b"half")
    fresh = small_index(engine)
    assert [h.chunk_id for h in fresh.dense_search("s", MODEL, query, 6)] == expected
    # Files lost altogether (or unreadable): the next worker rebuilds from SQLite.
    for path in base.glob("gen-*.npy"):
        path.write_bytes(b"not an array")
    rebuilt = small_index(engine)
    assert [h.chunk_id for h in rebuilt.dense_search("s", MODEL, query, 6)] == expected
    assert rebuilt.rebuild_vectors("s") == 20


def test_hnsw_candidates_rescored_exactly_keep_recall(engine: Engine, tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    index = small_index(engine, ann_min_rows=500)
    centres = unit(rng, 40)
    for n in range(30):
        rows = centres[rng.integers(0, 40, 40)] + 0.35 * unit(rng, 40)
        write(index, f"d{n}", rows / np.linalg.norm(rows, axis=1, keepdims=True))
    assert index.rebuild_vectors("s") == 1200
    live = index.vectors.live("s", MODEL)
    assert live.base.ann is not None  # large enough for the graph
    recalls = []
    for query in unit(rng, 30):
        approximate = [h.chunk_id for h in index.dense_search("s", MODEL, query, 10)]
        recalls.append(len(set(approximate) & set(exact(index, query, 10))) / 10)
    assert np.mean(recalls) >= 0.95
    # A page written after the graph was built is found at once, from the delta.
    write(index, "new", np.array([query]))
    assert index.dense_search("s", MODEL, query, 1)[0].chunk_id == "new-0"


def test_rows_removed_around_the_query_are_skipped_without_losing_results(
    engine: Engine,
) -> None:
    """Removed rows stay in the graph until compaction; the graph is asked again for
    more when they crowd the query's neighbourhood (a page being rewritten)."""
    rng = np.random.default_rng(3)
    index = small_index(engine, ann_min_rows=200, compaction_rows=100_000)
    query = unit(rng, 1)[0]
    near = query + 0.05 * unit(rng, 50)  # the 50 rows nearest the query, in 5 documents
    for n in range(5):
        block = near[n * 10 : (n + 1) * 10]
        write(index, f"near{n}", block / np.linalg.norm(block, axis=1, keepdims=True))
    for n in range(20):
        write(index, f"far{n}", unit(rng, 20))
    assert index.rebuild_vectors("s") == 450
    assert index.vectors.live("s", MODEL).base.ann is not None
    # 40 of the 50 nearest, still in the graph: a first ask (34 rows) finds 12 wanted
    # rows only by asking again.
    index.remove_documents("s", ["near0", "near1", "near2", "near3"])
    found = [h.chunk_id for h in index.dense_search("s", MODEL, query, 12)]
    assert len(index.vectors.live("s", MODEL).removed) == 40
    assert found == exact(index, query, 12)
    assert sorted(found[:10]) == sorted(f"near4-{n}" for n in range(10))


def test_upgrade_moves_each_sites_lexical_rows_into_its_own_table(tmp_path: Path) -> None:
    from alembic import command

    from frontdesk.knowledge.index.lexicon import site_key
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import alembic_config, upgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0006")
    with engine.begin() as conn:  # a site written by the previous version
        conn.exec_driver_sql(
            "INSERT INTO knowledge_documents (site_id, doc_id, title, kind, source, url,"
            " fingerprint, chunk_count, created_at, updated_at) VALUES ('old', 'a.md', 'a',"
            " 'markdown', 's', '', 'f', 1, '2026-01-01', '2026-01-01')"
        )
        conn.exec_driver_sql(
            "INSERT INTO knowledge_chunks (id, site_id, doc_id, chunk_id, chunk_index, title,"
            " heading_path, content, url, source, content_hash, embedding_model, embedding)"
            " VALUES (7, 'old', 'a.md', 'a-0', 0, 'a', '[]', 'zebra crossing', '', 's', 'h',"
            " ?, ?)",
            (MODEL, np.ones(16, dtype="<f4").tobytes()),
        )
        conn.exec_driver_sql(
            "INSERT INTO knowledge_fts (rowid, site_key, body) VALUES (7, ?, 'zebra cross')",
            (site_key("old"),),
        )
    upgrade(engine)
    index = SqliteKnowledgeIndex(engine)
    assert [h.chunk_id for h in index.lexical_search("old", ["zebra"], 5)] == ["a-0"]
    assert [h.chunk_id for h in index.dense_search("old", MODEL, np.ones(16, "f4"), 5)] == ["a-0"]
    index.remove_documents("old", ["a.md"])  # the migrated row is deleted with its chunk
    assert index.lexical_search("old", ["zebra"], 5) == []
    engine.dispose()
