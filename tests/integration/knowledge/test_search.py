"""Search on a real SQLite index: isolation, thresholds, proactive case studies, errors."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from sqlalchemy import Engine

from frontdesk.knowledge.embedding.embedders import HashingEmbedder
from frontdesk.knowledge.index.base import FusedHit
from frontdesk.knowledge.index.lexicon import fts_table
from frontdesk.knowledge.index.sqlite import REVISION_RECHECK_S, SqliteKnowledgeIndex
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.text.embedding import Matrix

pytestmark = pytest.mark.integration

SiteFactory = Callable[..., SiteKnowledge]


def collection_name_rule(site_id: str) -> str:
    """The collection-name rule: non-[A-Za-z0-9._-] → '_', truncated to 63 chars."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", site_id)[:63]


COLLIDING_IDS = [
    "acme/1",
    "acme_1",
    "acme 1",
    "x" * 63 + "-tenant-a",
    "x" * 63 + "-tenant-b",
]


def doc(doc_id: str, text: str, title: str = "") -> Document:
    return Document(doc_id, title or doc_id, text, "markdown", f"test:{doc_id}")


def test_colliding_site_ids_stay_isolated(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    assert len({collection_name_rule(s) for s in COLLIDING_IDS}) == 2  # they do collide
    secrets = {site_id: f"secretword{n}" for n, site_id in enumerate(COLLIDING_IDS)}
    for site_id, secret in secrets.items():
        kb.ingest_documents(
            make_site(site_id),
            [
                doc(f"{secret}.md", f"Our refund policy mentions {secret} for this tenant."),
                doc("shared.md", "The refund policy is the same document in every tenant."),
            ],
            progress=False,
        )
    for site_id, secret in secrets.items():
        site = make_site(site_id, relevance_threshold=None)
        docs = {d.doc_id for d in kb.list_documents(site)}
        assert docs == {f"{secret}.md", "shared.md"}
        for other_id, other_secret in secrets.items():
            result = kb.search(site, f"refund policy {other_secret}", top_k=20)
            assert result.status == "ok"
            returned = {chunk.doc_id for chunk in result.chunks}
            assert returned <= {f"{secret}.md", "shared.md"}, (site_id, other_id)
            if other_id != site_id:
                assert f"{other_secret}.md" not in returned
    # Removing from one site leaves the identical document of the others alone.
    assert kb.remove_document("acme/1", "shared.md")
    assert "shared.md" not in {d.doc_id for d in kb.list_documents("acme/1")}
    assert "shared.md" in {d.doc_id for d in kb.list_documents("acme_1")}
    result = kb.search(make_site("acme_1", relevance_threshold=None), "same document", top_k=5)
    assert result.chunks[0].doc_id == "shared.md"


def test_lexical_index_never_crosses_sites(engine: Engine, make_site: SiteFactory) -> None:
    index = SqliteKnowledgeIndex(engine)
    kb = KnowledgeBase(index=index)
    kb.ingest_documents(make_site("acme/1"), [doc("a.md", "zebra crossing rules")], progress=False)
    kb.ingest_documents(make_site("acme_1"), [doc("b.md", "zebra stripes pattern")], progress=False)
    hits_a = index.lexical_search("acme/1", ["zebra"], 10)
    hits_b = index.lexical_search("acme_1", ["zebra"], 10)
    assert len(hits_a) == len(hits_b) == 1
    assert hits_a[0].chunk_id != hits_b[0].chunk_id
    assert index.get_chunks("acme/1", [hits_b[0].chunk_id]) == {}
    assert index.lexical_search("acme", ["zebra"], 10) == []
    assert index.lexical_search("acme_", ["zebra"], 10) == []
    # Each site has its own FTS5 table, named by a digest of the exact id.
    assert len({fts_table(s) for s in ("acme/1", "acme_1", "acme", "acme_")}) == 4


def test_threshold_gates_on_cosine_and_reports_the_best_score(
    kb: KnowledgeBase, make_site: SiteFactory
) -> None:
    site = make_site("acme", relevance_threshold=0.3)
    kb.ingest_documents(
        site,
        [
            doc("refunds.md", "Refunds are paid back to the original card within 30 days."),
            doc("shipping.md", "Orders ship from our warehouse within two days."),
        ],
        progress=False,
    )
    below = kb.search(site, "quantum chromodynamics lattice")
    assert below.status == "no_result"
    assert below.reason == "below_threshold"
    assert below.chunks == []
    assert below.top_score is not None and below.top_score < 0.3
    assert below.threshold == 0.3

    hit = kb.search(site, "refunds paid back to the original card")
    assert hit.status == "ok"
    assert hit.chunks[0].doc_id == "refunds.md"
    assert all(chunk.score >= 0.3 for chunk in hit.chunks)
    assert hit.top_score == pytest.approx(hit.chunks[0].score, abs=1e-5)
    assert 0.0 < hit.chunks[0].score <= 1.0
    first = hit.chunks[0]
    assert (first.title, first.source, first.chunk_index) == ("refunds.md", "test:refunds.md", 0)

    open_site = make_site("acme", relevance_threshold=0.0)
    assert kb.search(open_site, "quantum chromodynamics lattice").status == "ok"


def test_proactive_case_study_flag(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    site = make_site("acme", relevance_threshold=0.2, proactive_threshold=0.5)
    kb.ingest_documents(
        site,
        [
            doc("case-study-bank.md", "How a retail bank cut support tickets with automation."),
            doc("pricing.md", "The team plan costs a fixed monthly fee per workspace."),
        ],
        progress=False,
    )
    result = kb.search(site, "retail bank cut support tickets with automation")
    assert result.chunks[0].doc_id == "case-study-bank.md"
    assert result.proactive_case_study
    weak = kb.search(
        make_site("acme", relevance_threshold=0.0, proactive_threshold=0.99),
        "retail bank cut support tickets with automation",
    )
    assert not weak.proactive_case_study
    other = kb.search(site, "team plan monthly fee per workspace")
    assert other.chunks[0].doc_id == "pricing.md"
    assert not other.proactive_case_study


def test_default_proactive_threshold_is_relevance_plus_ten_points(make_site: SiteFactory) -> None:
    assert make_site("a", relevance_threshold=0.4).proactive_threshold() == pytest.approx(0.5)
    assert (
        make_site("a", relevance_threshold=0.4, proactive_threshold=0.8).proactive_threshold()
        == 0.8
    )
    local = SiteKnowledge(
        "a", make_site("a").config.model_copy(update={"embedding": "local:all-MiniLM-L6-v2"})
    )
    assert local.relevance_threshold() == 0.35  # the documented per-model default
    assert make_site("a").relevance_threshold() is None  # unknown model: no gate


def test_empty_index_and_empty_query(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    site = make_site("nobody")
    assert kb.search(site, "anything").reason == "empty_index"
    assert kb.search(site, "   ").reason == "empty_query"


class FailingEmbedder(HashingEmbedder):
    def embed_query(self, text: str) -> Matrix:
        raise ConnectionError("embedding API unreachable")


class BrokenIndex(SqliteKnowledgeIndex):
    def dense_search(self, site_id: str, embedding_model: str, vector: Matrix, limit: int) -> list:  # type: ignore[type-arg]
        raise RuntimeError("database is locked")

    def hybrid_search(self, *args: Any, **kwargs: Any) -> list[FusedHit]:
        raise RuntimeError("database is locked")


def test_failures_become_error_results(engine: Engine) -> None:
    options = SearchOptions()
    failing = Retriever(SqliteKnowledgeIndex(engine), FailingEmbedder())
    result = failing.search("acme", "hello", options)
    assert (result.status, result.reason, result.chunks) == ("error", "embedding_failure", [])
    broken = Retriever(BrokenIndex(engine), HashingEmbedder())
    assert broken.search("acme", "hello", options).reason == "search_failure"


class ReverseReranker:
    def rerank(self, query: str, chunks: Sequence[object]) -> list[float]:
        return [float(i) for i in range(len(chunks))]


def test_optional_rerank_step_reorders(engine: Engine, make_site: SiteFactory) -> None:
    plain = KnowledgeBase(engine)
    site = make_site("acme", relevance_threshold=0.0, top_k=2)
    plain.ingest_documents(
        site,
        [doc(f"d{i}.md", f"Topic {i}: alpha beta gamma delta {'x' * i}") for i in range(4)],
        progress=False,
    )
    reranked = KnowledgeBase(engine, reranker=ReverseReranker())
    before = plain.search(site, "alpha beta gamma")
    after = reranked.search(site, "alpha beta gamma")
    assert len(before.chunks) == len(after.chunks) == 2
    assert before.chunks[0].chunk_id != after.chunks[0].chunk_id


def test_snapshot_sees_writes_of_another_process(engine: Engine, make_site: SiteFactory) -> None:
    site = make_site("acme", relevance_threshold=0.0)
    reader = KnowledgeBase(engine)
    writer = KnowledgeBase(engine)  # a second replica: its own in-memory snapshot
    writer.ingest_documents(site, [doc("a.md", "alpha document text")], progress=False)
    assert reader.search(site, "alpha").chunks[0].doc_id == "a.md"
    writer.ingest_documents(site, [doc("b.md", "bravo document text")], progress=False)
    time.sleep(REVISION_RECHECK_S)  # another replica's writes show within this window
    assert reader.search(site, "bravo").chunks[0].doc_id == "b.md"
    writer.remove_document(site, "b.md")
    time.sleep(REVISION_RECHECK_S)
    assert all(c.doc_id != "b.md" for c in reader.search(site, "bravo").chunks)


def test_own_writes_are_seen_at_once(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    site = make_site("acme", relevance_threshold=0.0)
    kb.ingest_documents(site, [doc("a.md", "alpha document text")], progress=False)
    assert kb.search(site, "alpha").chunks[0].doc_id == "a.md"
    kb.ingest_documents(site, [doc("b.md", "bravo document text")], progress=False)
    assert kb.search(site, "bravo").chunks[0].doc_id == "b.md"  # no wait: same process
    kb.remove_document(site, "b.md")
    assert all(c.doc_id != "b.md" for c in kb.search(site, "bravo").chunks)


def test_async_search(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    import asyncio

    site = make_site("acme", relevance_threshold=0.0)
    kb.ingest_documents(site, [doc("a.md", "alpha")], progress=False)
    result = asyncio.run(kb.asearch(site, "alpha"))
    assert result.status == "ok"
    assert np.isclose(result.chunks[0].score, result.top_score or 0.0)


class CountingIndex(SqliteKnowledgeIndex):
    """Counts the searches that reach the index (the retriever's `hybrid_search`)."""

    searches = 0

    def hybrid_search(self, *args: Any, **kwargs: Any) -> list[FusedHit]:
        self.searches += 1
        return super().hybrid_search(*args, **kwargs)


class FlakyEmbedder(HashingEmbedder):
    """Fails its first query (a provider hiccup), then works."""

    calls = 0

    def embed_query(self, text: str) -> Matrix:
        self.calls += 1
        if self.calls == 1:
            raise ConnectionError("embedding API unreachable")
        return super().embed_query(text)


def test_a_repeated_question_is_answered_from_the_result_cache(
    engine: Engine, make_site: SiteFactory
) -> None:
    # Must survive: the cached result is the result the index gives; a write to the site
    # (ingest or removal) is seen by the very next identical question.
    site = make_site("acme", relevance_threshold=0.0)
    KnowledgeBase(engine).ingest_documents(
        site, [doc("a.md", "alpha refund policy text")], progress=False
    )
    index = CountingIndex(engine)
    embedder = FlakyEmbedder(256)
    retriever = Retriever(index, embedder)
    options = SiteKnowledge.of(site).search_options()

    failed = retriever.search("acme", "refund policy", options)
    assert failed.reason == "embedding_failure"  # errors are never cached
    first = retriever.search("acme", "refund policy", options)
    second = retriever.search("acme", "  refund policy ", options)
    assert first.status == "ok" and second == first
    assert (embedder.calls, index.searches) == (2, 1)
    retriever.search("acme", "refund policy", SiteKnowledge.of(site).search_options(top_k=1))
    assert index.searches == 2  # other options: another entry

    writer = KnowledgeBase(engine, index=index)
    writer.ingest_documents(site, [doc("b.md", "bravo refund policy text")], progress=False)
    after_ingest = retriever.search("acme", "refund policy", options)
    assert index.searches == 3
    assert {c.doc_id for c in after_ingest.chunks} == {"a.md", "b.md"}
    writer.remove_document(site, "b.md")
    after_removal = retriever.search("acme", "refund policy", options)
    assert [c.doc_id for c in after_removal.chunks] == ["a.md"]


def test_result_cache_size_zero_searches_every_time(engine: Engine, make_site: SiteFactory) -> None:
    site = make_site("acme", relevance_threshold=0.0)
    KnowledgeBase(engine).ingest_documents(site, [doc("a.md", "alpha text")], progress=False)
    index = CountingIndex(engine)
    retriever = Retriever(index, HashingEmbedder(256), result_cache_size=0)
    options = SiteKnowledge.of(site).search_options()
    for _ in range(3):
        assert retriever.search("acme", "alpha", options).status == "ok"
    assert index.searches == 3 and len(retriever.results) == 0
