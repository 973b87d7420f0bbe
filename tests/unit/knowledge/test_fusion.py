"""Two models' rankings fused by document (`knowledge/search/fusion.py`) and when a site
has a second index (`knowledge/companion.py`): the pure parts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from frontdesk.knowledge.companion import behind, companion_key, companion_model
from frontdesk.knowledge.index.base import StoredDocument
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk
from frontdesk.knowledge.search.fusion import document_order, fused_scores, reordered
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


def test_a_chunk_scores_its_own_rank_plus_its_documents_rank_in_the_second_model() -> None:
    scores = fused_scores(["a", "b", "a", "c"], ["b", "c"], k=30, weight=0.75)
    assert scores == [1 / 31, 1 / 32 + 0.75 / 31, 1 / 33, 1 / 34 + 0.75 / 32]


def test_the_second_ranking_lifts_a_documents_chunks_without_grouping_them() -> None:
    result = ok(
        chunk("a1", "a", 0.90),
        chunk("b1", "b", 0.89),
        chunk("c1", "c", 0.88),
        chunk("a2", "a", 0.87),
        chunk("a3", "a", 0.86),
    )
    fused = reordered(result, ["a", "b", "c", "x"], k=30, top_k=4, proactive_threshold=None)
    # a2 (1/34 + .75/31) passes c1 (1/33 + .75/33), but b1 keeps its place and a3 stays
    # behind c1: the top four still read three pages, where ordering whole documents gave
    # a1 a2 a3 b1. x, found only by the second model, is not added: none of its chunks
    # passed the default model's threshold.
    assert [c.chunk_id for c in fused.chunks] == ["a1", "b1", "a2", "c1"]
    assert (fused.top_score, fused.threshold) == (result.top_score, result.threshold)
    assert [c.score for c in fused.chunks] == [0.90, 0.89, 0.87, 0.88]


def test_a_document_both_rank_high_passes_one_ranked_first_by_the_default_model_alone() -> None:
    result = ok(chunk("a1", "a", 0.90), chunk("b1", "b", 0.88), chunk("a2", "a", 0.86))
    fused = reordered(result, ["b", "x", "y", "a"], k=30, top_k=5, proactive_threshold=None)
    assert [c.chunk_id for c in fused.chunks] == ["b1", "a1", "a2"]


def test_a_tie_keeps_the_default_models_order() -> None:
    result = ok(chunk("a1", "a"), chunk("b1", "b"))
    # At weight 1, a: 1/31 + 1/32 and b: 1/32 + 1/31.
    fused = reordered(result, ["b", "a"], k=30, top_k=5, proactive_threshold=None, weight=1.0)
    assert [c.doc_id for c in fused.chunks] == ["a", "b"]


def test_the_fused_result_is_cut_to_top_k_and_an_empty_result_stays_empty() -> None:
    result = ok(*(chunk(f"c{i}", f"d{i}") for i in range(10)))
    assert len(reordered(result, [], k=30, top_k=3, proactive_threshold=None).chunks) == 3
    empty = RetrievalResult.no_result("below_threshold", top_score=0.7, threshold=0.8)
    assert reordered(empty, ["a"], k=30, top_k=3, proactive_threshold=None) == empty


def test_english_sites_on_the_default_model_get_minilm_beside_it_unless_turned_off() -> None:
    default = SiteKnowledge("s", KnowledgeConfig(), language="en")
    assert default.config.english_embedding == "auto"
    assert companion_model(default) == "local:all-MiniLM-L6-v2"
    assert companion_key("s", "local:all-MiniLM-L6-v2") == "s#local:all-MiniLM-L6-v2"
    assert companion_model(SiteKnowledge("s", KnowledgeConfig(), language="ru")) is None
    off = KnowledgeConfig(english_embedding=None)
    assert companion_model(SiteKnowledge("s", off, language="en")) is None
    # auto names no second model for a model it was not measured with; a site may still
    # choose one.
    other = KnowledgeConfig(embedding="openai:text-embedding-3-small")
    assert companion_model(SiteKnowledge("s", other, language="en")) is None
    chosen = other.model_copy(update={"english_embedding": "local:all-MiniLM-L6-v2"})
    assert companion_model(SiteKnowledge("s", chosen, language="en")) == "local:all-MiniLM-L6-v2"
    same = KnowledgeConfig(
        embedding="local:all-MiniLM-L6-v2", english_embedding="local:all-MiniLM-L6-v2"
    )
    assert companion_model(SiteKnowledge("s", same, language="en")) is None


def test_during_a_re_embed_the_old_model_keeps_the_configured_models_second_model() -> None:
    # Moving away from e5: the old generation, still searched with e5, gets no MiniLM
    # index the site is about to drop; moving to e5, the old one is fused already.
    leaving = SiteKnowledge("s", KnowledgeConfig(embedding="hash:64"), language="en")
    assert companion_model(leaving.with_model("local:multilingual-e5-small")) is None
    arriving = SiteKnowledge("s", KnowledgeConfig(), language="en")
    assert companion_model(arriving.with_model("hash:64")) == "local:all-MiniLM-L6-v2"


def stored(doc_id: str, at: datetime) -> StoredDocument:
    return StoredDocument("s", doc_id, doc_id, "text", doc_id, "", "5:x", 1, at)


def test_the_companion_is_behind_on_missing_older_and_removed_documents() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    later = now + timedelta(seconds=1)
    primary = [stored("same", now), stored("newer", later), stored("missing", now)]
    companion = [stored("same", later), stored("newer", now), stored("gone", now)]
    assert behind(primary, companion) == ["newer", "missing", "gone"]
    assert behind(primary[:1], companion[:1]) == []
