"""A site's own bar for on-topic support (`knowledge/search/topic.py`), from plain values."""

from __future__ import annotations

import pytest

from frontdesk.knowledge.search.topic import (
    MIN_PROBES_FOR_SPREAD,
    MIN_RELEVANCE,
    PROBES,
    SUPPORT_MARGIN,
    SUPPORT_SPREAD,
    WORD_SUPPORT_SPREAD,
    build_profile,
    calibrated_threshold,
    probes_for,
    support_threshold,
    title_terms,
    word_support_threshold,
)

pytestmark = pytest.mark.unit


def test_with_few_probes_the_bar_beats_every_everyday_probe() -> None:
    assert support_threshold([0.1, 0.42, 0.30, 0.25], 0.2) == pytest.approx(0.42 + SUPPORT_MARGIN)


def test_the_bar_is_a_margin_over_the_spread_of_the_probes_not_their_maximum() -> None:
    """e5 on a health site: eleven probes near 0.80 and one ("how many ounces are in a
    pound") at 0.86. The maximum would put the bar above most real questions (0.85-0.88);
    the probes' mean plus SUPPORT_SPREAD deviations stays under them."""
    scores = [0.80, 0.79, 0.81, 0.80, 0.78, 0.82, 0.80, 0.79, 0.81, 0.80, 0.77, 0.86]
    assert len(scores) >= MIN_PROBES_FOR_SPREAD
    bar = support_threshold(scores, 0.79)
    mean = sum(scores) / len(scores)
    spread = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5
    assert bar == pytest.approx(mean + SUPPORT_SPREAD * spread)
    assert 0.84 < bar < 0.86  # above the typical everyday request, below the odd probe
    # A model nobody measured keeps the bar above every probe.
    assert support_threshold(scores, None, measured_model=False) == pytest.approx(0.89)


def test_shared_words_count_above_the_bulk_of_everyday_requests() -> None:
    scores = [0.80, 0.79, 0.81, 0.80, 0.78, 0.82, 0.80, 0.79, 0.81, 0.80, 0.77, 0.86]
    mean = sum(scores) / len(scores)
    spread = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5
    word_bar = word_support_threshold(scores)
    assert word_bar == pytest.approx(mean + WORD_SUPPORT_SPREAD * spread)
    assert word_bar is not None and word_bar < support_threshold(scores, 0.79)
    assert word_support_threshold(scores[:4]) is None  # too few probes to say
    assert word_support_threshold(scores, measured_model=False) is None


def test_the_bar_never_drops_below_the_relevance_threshold() -> None:
    assert support_threshold([0.05, 0.1], 0.35) == 0.35
    assert support_threshold([], None) == pytest.approx(SUPPORT_MARGIN)


def test_probes_cover_the_site_languages_and_always_english() -> None:
    probes = probes_for(["es"])
    assert set(PROBES["en"]) <= set(probes) and set(PROBES["es"]) <= set(probes)
    assert not set(PROBES["ru"]) & set(probes)
    assert probes_for(["xx"]) == list(PROBES["en"])


def test_a_profile_is_measured_on_the_site_itself() -> None:
    # A site where everyday requests score ~0.2 and one probe scores 0.5.
    def top_score(probe: str) -> float | None:
        return 0.5 if "weather" in probe else (None if "joke" in probe else 0.2)

    titles = ["Cancel your membership", "Membership plans", "Stolen bikes and membership"]
    profile = build_profile(top_score, ["en"], None, titles, default_threshold=0.35)
    assert profile.probes == len(PROBES["en"]) - 1  # the probe without a result is skipped
    assert profile.off_topic_ceiling == 0.5
    assert profile.support_threshold == pytest.approx(support_threshold([0.5] + [0.2] * 10, 0.35))
    assert profile.support_threshold < 0.5  # one probe sharing the site's words is no bar
    assert profile.supports(0.75) and not profile.supports(0.35) and not profile.supports(None)
    assert profile.terms[0] == "membership"
    assert profile.relevance_threshold == 0.35  # never above the model's default
    assert profile.word_support_threshold == pytest.approx(
        word_support_threshold([0.5] + [0.2] * 10)
    )


def test_a_small_site_calibrates_its_relevance_threshold_below_the_default() -> None:
    """The 3-page site: unrelated questions score ~0.1 there, so "What plans do you offer?"
    at 0.349 must not be lost to a default of 0.35 tuned on bigger sites."""
    profile = build_profile(lambda probe: 0.1, ["en"], None, (), default_threshold=0.35)
    assert profile.relevance_threshold == pytest.approx(max(0.1 + SUPPORT_MARGIN, MIN_RELEVANCE))
    assert profile.relevance_threshold < 0.349
    assert profile.support_threshold == 0.35  # the support bar keeps the model's default
    assert calibrated_threshold(0.0, 0.35) == MIN_RELEVANCE
    assert calibrated_threshold(0.9, None) is None  # an unmeasured model: calibrate it


def test_title_terms_skip_short_words_and_numbers() -> None:
    assert set(title_terms(["How to pay", "Pay by card 2024", "Cards"])) == {"card", "cards"}
