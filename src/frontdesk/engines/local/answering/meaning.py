"""Sentences that say what the visitor asks in other words (used by `writer.py`).

The writer picks sentences by the question's words. Visitors word things their own way —
slang, typos, synonyms ("parking" asked, "aparcamiento" written), a short FAQ answer
("Up to 5 Smart TV devices.") under a title that is the question — and then no sentence
shares enough of their words, although the right page was found. When the words alone
find no good match, the writer embeds the question and a few candidate sentences with
the site's own embedder (`SiteMeaning`) and lets the cosine in:

- the candidates are the lexically best units plus the first units of every passage
  (an FAQ page opens with its answer, which may share no word with the question);
- a unit *says what the question asks* when its cosine reaches the site's support bar —
  the everyday probes' mean plus `SUPPORT_SPREAD` deviations on this site, with this
  model (`knowledge/topic.py`), so no fixed number of one model decides; such a unit
  counts as a match (`MIN_MATCH`, still under the hedged lead-in) and as the visitor's
  own (`Pick.own`);
- every candidate is ranked by its lexical score plus how far its cosine clears the bar.

`choose_candidates` and `blend` are pure; `read_meaning` calls the embedder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from frontdesk.engines.base import SiteMeaning
from frontdesk.engines.local.answering.quoting import MIN_MATCH, Pick

LEXICAL_CANDIDATES = 8  # the lexically best units embedded
LEAD_UNITS = 2  # and the first units of every passage (an FAQ's answer opens its page)
MAX_CANDIDATES = 24  # at most this many units embedded per answer (a few ms each)
# Only units of the best-ranked passage can match by meaning: the search and the sentence
# must agree. A sentence of a lower-ranked passage that resembles the question is as often
# about the topic as an answer to it: on the CI samples, the best-cosine sentence of the
# questions the words missed came from a gold page for 6 of 6 clinic questions (5 of them
# in the best passage) and for none of 15 on the video FAQ and the vaccine FAQ.
MATCHING_PASSAGES = 1
# Ranking credit per unit of cosine above the bar: e5's cosines sit in a narrow band, so
# 0.02 above the bar is already a clear paraphrase; it lifts a unit by 0.2, as much as
# a fifth of the question's words would.
CLEARANCE_WEIGHT = 10.0


def choose_candidates(picks: Sequence[Pick], lexical: int = LEXICAL_CANDIDATES) -> list[Pick]:
    """Pure: the units worth embedding — the lexically best, then every passage's first
    units in passage order — without repeats, at most `MAX_CANDIDATES`."""
    best = sorted(picks, key=lambda p: p.score, reverse=True)[:lexical]
    leads = sorted(
        (p for p in picks if p.unit.position < LEAD_UNITS), key=lambda p: (p.index, p.unit.position)
    )
    chosen: list[Pick] = []
    seen: set[tuple[int, int]] = set()
    for pick in [*best, *leads]:
        key = (pick.index, pick.unit.position)
        if key not in seen:
            seen.add(key)
            chosen.append(pick)
    return chosen[:MAX_CANDIDATES]


def blend(picks: Sequence[Pick], cosines: Sequence[float], bar: float) -> list[Pick]:
    """Pure: each candidate with its cosine to the question folded in. A unit at or above
    `bar` says what the question asks: it counts as a match of the visitor's own question."""
    blended: list[Pick] = []
    for pick, cosine in zip(picks, cosines, strict=True):
        clearance = cosine - bar
        matched = clearance >= 0.0 and pick.index < MATCHING_PASSAGES
        blended.append(
            replace(
                pick,
                score=pick.score + CLEARANCE_WEIGHT * max(clearance, 0.0),
                lexical=max(pick.lexical, MIN_MATCH) if matched else pick.lexical,
                own=pick.own or matched,
            )
        )
    return blended


def read_meaning(question: str, picks: Sequence[Pick], meaning: SiteMeaning) -> list[Pick]:
    """The candidates (`choose_candidates`) blended with their cosine to `question`."""
    candidates = choose_candidates(picks)
    if not candidates:
        return []
    query = np.ravel(meaning.embedder.embed_query(question))
    vectors = meaning.embedder.embed_documents([pick.unit.text for pick in candidates])
    cosines = np.asarray(vectors @ query, dtype=np.float64).tolist()
    return blend(candidates, cosines, meaning.bar)
