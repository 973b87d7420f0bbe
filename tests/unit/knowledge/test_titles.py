"""Page titles in the dense ranking (`knowledge/search/titles.py`): the pure parts."""

from __future__ import annotations

from frontdesk.knowledge.index.base import Hit
from frontdesk.knowledge.models import content_hash
from frontdesk.knowledge.search.titles import (
    blend_by_title,
    default_title_weight,
    page_title,
    title_texts,
)


def test_a_page_whose_title_asks_the_question_moves_up_and_keeps_its_cosine() -> None:
    dense = [Hit("body-match", 0.86), Hit("title-match", 0.84), Hit("neither", 0.83)]
    titles = {"body-match": 0.78, "title-match": 0.90, "neither": 0.80}
    blended = blend_by_title(dense, titles, 0.5)
    # 0.84 + 0.45 = 1.29 > 0.86 + 0.39 = 1.25 > 0.83 + 0.40 = 1.23
    assert [hit.chunk_id for hit in blended] == ["title-match", "body-match", "neither"]
    # Thresholds and the support bar read the passage's own cosine: it does not move.
    assert {hit.chunk_id: hit.score for hit in blended} == {h.chunk_id: h.score for h in dense}


def test_weight_zero_keeps_the_passage_order() -> None:
    dense = [Hit("a", 0.9), Hit("b", 0.8)]
    assert blend_by_title(dense, {"a": 0.1, "b": 1.0}, 0.0) == dense


def test_a_page_without_a_title_counts_its_own_cosine_in_the_titles_place() -> None:
    dense = [Hit("untitled", 0.85), Hit("titled", 0.84)]
    # untitled: 0.85 + 0.5 × 0.85 = 1.275; titled: 0.84 + 0.5 × 0.86 = 1.27
    assert [h.chunk_id for h in blend_by_title(dense, {"titled": 0.86}, 0.5)] == [
        "untitled",
        "titled",
    ]
    # ...and a title a little better than that moves it up.
    assert [h.chunk_id for h in blend_by_title(dense, {"titled": 0.88}, 0.5)] == [
        "titled",
        "untitled",
    ]


def test_the_page_title_is_the_first_heading_else_the_stored_title() -> None:
    assert page_title(("How do I download a video?", "Steps"), "ignored") == (
        "How do I download a video?"
    )
    assert page_title(("", "  "), " Pricing ") == "Pricing"
    assert page_title((), "") == ""


def test_titles_are_keyed_as_the_embedding_cache_keys_any_text() -> None:
    texts = title_texts(["Pricing", "", "Pricing", "Returns"])
    assert texts == {content_hash("Pricing"): "Pricing", content_hash("Returns"): "Returns"}


def test_only_the_measured_model_ranks_by_titles_by_default() -> None:
    assert default_title_weight("local:multilingual-e5-small") == 0.5
    assert default_title_weight("local:all-MiniLM-L6-v2") == 0.0
    assert default_title_weight("hash:256") == 0.0
