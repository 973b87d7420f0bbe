"""Two models' rankings fused by document (`knowledge/search/fusion.py`) and when a site
has a second index (`knowledge/companion.py`): the pure parts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from frontdesk.knowledge.companion import behind, companion_key, companion_model
from frontdesk.knowledge.index.base import StoredDocument
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk
from frontdesk.knowledge.search.fusion import document_order, fuse_documents, reordered
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig


def chunk(chunk_id: str, doc_id: str, score: float = 0.85) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=chunk_id,
        doc_id=doc_id,
        title=doc_id,
        url="",
        content=f"text of {chunk_id}",
        score=score,
        source=doc_id,
        chunk_index=0,
    )


def ok(*chunks: RetrievedChunk) -> RetrievalResult:
    return RetrievalResult(status="ok", chunks=list(chunks), top_score=0.9, threshold=0.8)


def test_documents_are_in_the_order_of_their_best_chunk() -> None:
    chunks = [chunk("a1", "a"), chunk("b1", "b"), chunk("a2", "a"), chunk("c1", "c")]
    assert document_order(chunks) == ["a", "b", "c"]


def test_a_document_both_rank_high_beats_one_ranked_first_by_one_alone() -> None:
    scores = fuse_documents([["a", "b", "c"], ["b", "c", "a"]], k=30)
    assert sorted(scores, key=lambda d: -scores[d]) == ["b", "a", "c"]
    assert scores["b"] == 1 / 32 + 1 / 31


def test_the_second_ranking_reorders_documents_and_keeps_chunks_with_their_document() -> None:
    result = ok(chunk("a1", "a", 0.90), chunk("b1", "b", 0.88), chunk("a2", "a", 0.86))
    fused = reordered(result, ["b", "x", "a"], k=30, top_k=5, proactive_threshold=None)
    # b: 1/32 + 1/31 > a: 1/31 + 1/33; a document only the second model found (x) is
    # not added: none of its chunks passed the default model's threshold.
    assert [c.chunk_id for c in fused.chunks] == ["b1", "a1", "a2"]
    assert (fused.top_score, fused.threshold) == (result.top_score, result.threshold)
    assert [c.score for c in fused.chunks] == [0.88, 0.90, 0.86]


def test_a_tie_is_broken_by_the_second_models_order() -> None:
    result = ok(chunk("a1", "a"), chunk("b1", "b"), chunk("c1", "c"))
    fused = reordered(result, ["b", "a", "c"], k=30, top_k=5, proactive_threshold=None)
    assert [c.doc_id for c in fused.chunks] == ["b", "a", "c"]


def test_the_fused_result_is_cut_to_top_k_and_an_empty_result_stays_empty() -> None:
    result = ok(*(chunk(f"c{i}", f"d{i}") for i in range(10)))
    assert len(reordered(result, [], k=30, top_k=3, proactive_threshold=None).chunks) == 3
    empty = RetrievalResult.no_result("below_threshold", top_score=0.7, threshold=0.8)
    assert reordered(empty, ["a"], k=30, top_k=3, proactive_threshold=None) == empty


def test_only_english_sites_that_choose_another_model_get_a_second_index() -> None:
    assert companion_model(SiteKnowledge("s", KnowledgeConfig(), language="en")) is None
    chosen = KnowledgeConfig(english_embedding="local:all-MiniLM-L6-v2")
    english = SiteKnowledge("s", chosen, language="en")
    assert companion_model(english) == "local:all-MiniLM-L6-v2"
    assert companion_key("s", "local:all-MiniLM-L6-v2") == "s#local:all-MiniLM-L6-v2"
    assert companion_model(SiteKnowledge("s", chosen, language="ru")) is None
    same = KnowledgeConfig(
        embedding="local:all-MiniLM-L6-v2", english_embedding="local:all-MiniLM-L6-v2"
    )
    assert companion_model(SiteKnowledge("s", same, language="en")) is None


def stored(doc_id: str, at: datetime) -> StoredDocument:
    return StoredDocument("s", doc_id, doc_id, "text", doc_id, "", "5:x", 1, at)


def test_the_companion_is_behind_on_missing_older_and_removed_documents() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    later = now + timedelta(seconds=1)
    primary = [stored("same", now), stored("newer", later), stored("missing", now)]
    companion = [stored("same", later), stored("newer", now), stored("gone", now)]
    assert behind(primary, companion) == ["newer", "missing", "gone"]
    assert behind(primary[:1], companion[:1]) == []
