"""Relevance that knows the language pair of a question and a passage.

An embedding model scores a question against a passage in another language lower than
against the same passage in the question's language: with multilingual-e5-small the
demo's English questions score 0.034 lower (median of 19 pairs) on the Russian version of
the page that answers them, and everyday requests that no page answers score ~0.03 lower
on the other language's pages too. A bar set on same-language pairs (the relevance
threshold, the site's support bar) therefore refused questions asked in another language
than the page's. Scores are normalised instead: a passage in another language than the
question's scores its cosine plus the model's cross-language offset, so one bar fits both
pairs. The offset is the model's (`DEFAULT_CROSS_LANGUAGE_OFFSETS`, measured with
`benchmarks/crosslingual_offset.py`) or the site's own (`frontdesk kb calibrate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

# Measured on calibration data that is not a measurement set (docs/knowledge.md,
# "Questions in another language than the page's"). English-only models (MiniLM) get
# none: their cross-language cosines say nothing, the lexical list carries them.
DEFAULT_CROSS_LANGUAGE_OFFSETS: dict[str, float] = {"local:multilingual-e5-small": 0.034}
MAX_OFFSET = 0.2
# Fewer answerable questions of either kind than this and a site's calibration keeps
# the model's offset: a median of a handful says little.
MIN_PAIRS = 8


def relevance(cosine: float, question_language: str, passage_language: str, offset: float) -> float:
    """Pure: a passage's relevance to a question — its cosine, plus `offset` when the
    passage is written in another language than the question."""
    return cosine + offset if passage_language != question_language else cosine


def measured_offset(
    same_language: Sequence[float], cross_language: Sequence[float], default: float
) -> float:
    """Pure: the offset between the best cosines of answerable questions asked in their
    pages' language (`same_language`) and in another (`cross_language`): the difference
    of the medians, within [0, MAX_OFFSET]; `default` when either side has fewer than
    `MIN_PAIRS` questions."""
    if len(same_language) < MIN_PAIRS or len(cross_language) < MIN_PAIRS:
        return default
    gap = median(same_language) - median(cross_language)
    return round(min(max(gap, 0.0), MAX_OFFSET), 3)
