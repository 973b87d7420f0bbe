"""Relevance per language pair: a passage in another language than the question scores its
cosine plus the model's cross-language offset, so one threshold and one support bar fit
same-language and cross-language pairs alike."""

from __future__ import annotations

import pytest

from frontdesk.conversation.outcomes import supported_by_site
from frontdesk.knowledge.search.language_pairs import (
    DEFAULT_CROSS_LANGUAGE_OFFSETS,
    MAX_OFFSET,
    MIN_PAIRS,
    measured_offset,
    relevance,
)
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig

pytestmark = pytest.mark.unit

E5 = "local:multilingual-e5-small"
MINILM = "local:all-MiniLM-L6-v2"


@pytest.mark.parametrize(
    ("question", "passage", "passes"),
    [
        ("de", "de", False),  # same language: the cosine alone, under the threshold
        ("en", "de", True),  # English question, German page: raised by the offset
        ("ru", "en", True),
        ("en", "en", False),
    ],
)
def test_the_threshold_per_language_pair(question: str, passage: str, passes: bool) -> None:
    threshold, offset = 0.79, 0.034
    cosine = 0.77  # a cross-language match sits this low; a same-language one would not
    assert (relevance(cosine, question, passage, offset) >= threshold) is passes


def test_a_same_language_pair_is_scored_by_its_cosine_alone() -> None:
    assert relevance(0.812, "de", "de", 0.05) == 0.812
    assert relevance(0.812, "en", "de", 0.0) == 0.812
    assert relevance(0.812, "en", "de", 0.05) == pytest.approx(0.862)


def test_one_support_bar_fits_both_pairs() -> None:
    # The site's bar (measured on everyday probes) and a German page: a German question at
    # 0.83 is supported; the same question in English scores 0.797 on that page.
    bar, offset = 0.8237, DEFAULT_CROSS_LANGUAGE_OFFSETS[E5]
    assert supported_by_site("ok", relevance(0.83, "de", "de", offset), bar)
    assert not supported_by_site("ok", 0.797, bar)  # the raw cross-language cosine
    assert supported_by_site("ok", relevance(0.797, "en", "de", offset), bar)
    # Unrelated stays unrelated: an everyday request in English scores ~0.03 lower on
    # German pages too, and its relevance lands where the German one would.
    assert not supported_by_site("ok", relevance(0.78, "en", "de", offset), bar)


def test_the_offset_measured_from_a_sites_questions() -> None:
    same = [0.86, 0.87, 0.88, 0.85, 0.9, 0.84, 0.87, 0.86]
    cross = [score - 0.04 for score in same]
    assert measured_offset(same, cross, default=0.01) == pytest.approx(0.04)
    # Too few questions of either kind: the model's offset.
    assert measured_offset(same, cross[: MIN_PAIRS - 1], default=0.01) == 0.01
    # Never negative, never more than MAX_OFFSET.
    assert measured_offset(cross, same, default=0.01) == 0.0
    assert measured_offset(same, [s - 0.5 for s in same], default=0.01) == MAX_OFFSET


def test_the_offset_reaches_the_search_options_per_model() -> None:
    from pydantic import ValidationError

    e5 = SiteKnowledge("s", KnowledgeConfig(embedding=E5))
    assert e5.search_options().cross_language_offset == DEFAULT_CROSS_LANGUAGE_OFFSETS[E5] > 0
    # An English-only model's cross-language cosines say nothing: no offset.
    assert SiteKnowledge("s", KnowledgeConfig(embedding=MINILM)).cross_language_offset() == 0.0
    calibrated = SiteKnowledge("s", KnowledgeConfig(embedding=E5, cross_language_offset=0.05))
    assert calibrated.search_options().cross_language_offset == 0.05
    # Searching with another model during a re-embed drops the site's own offset.
    assert calibrated.with_model(MINILM).cross_language_offset() == 0.0
    with pytest.raises(ValidationError, match="cross_language_offset"):
        KnowledgeConfig(cross_language_offset=0.5)
