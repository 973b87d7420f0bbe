"""Sentences that say what the visitor asks in other words (used by `writer.py`).

The writer picks sentences by the question's words. Visitors word things their own way —
slang, typos, synonyms ("parking" asked, "aparcamiento" written), a short FAQ answer
("Up to 5 Smart TV devices.") under a title that is the question — and then no sentence
shares enough of their words, although the right page was found. When the words alone
find no good match, the writer embeds the question and a few candidate sentences with
the site's own embedder (`SiteMeaning`) and lets the cosine in:

- the candidates are the lexically best units plus the first units of every passage
  (an FAQ page opens with its answer, which may share no word with the question); those
  opening units are embedded under the passage's title and headings, which on a help
  centre are the question they answer;
- a unit *says what the question asks* when its cosine reaches the site's support bar —
  the everyday probes' mean plus `SUPPORT_SPREAD` deviations on this site, with this
  model (`knowledge/topic.py`), so no fixed number of one model decides; such a unit
  counts as a match (`MIN_MATCH`, still under the hedged lead-in) and as the visitor's
  own (`Pick.own`);
- every candidate is ranked by its lexical score plus how far its cosine clears the bar.

A chosen opening of a page whose title is a question is quoted under that question
(`under_its_question`). `choose_candidates`, `embedded_text`, `blend` and
`under_its_question` are pure; `read_meaning` calls the embedder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from frontdesk.engines.base import SiteMeaning
from frontdesk.engines.local.answering.quoting import MIN_MATCH, Pick
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.knowledge.search import unshouted

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
QUESTION_MARKS = ("?", "？", "¿")


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


def embedded_text(pick: Pick, headings: Sequence[str]) -> str:
    """Pure: what is embedded for a unit. A passage's opening units are read under its
    title and headings: on a help centre the title is the question the opening answers
    ("How many TVs can I connect?" over "Up to 5 Smart TV devices.")."""
    if headings and pick.unit.position < LEAD_UNITS:
        return f"{headings[pick.index]}\n{pick.unit.text}"
    return pick.unit.text


def read_meaning(
    question: str, picks: Sequence[Pick], meaning: SiteMeaning, headings: Sequence[str] = ()
) -> list[Pick]:
    """The candidates (`choose_candidates`) blended with their cosine to `question`;
    `headings[i]` is passage i's title and heading path (`embedded_text`)."""
    candidates = choose_candidates(picks)
    if not candidates:
        return []
    query = np.ravel(meaning.embedder.embed_query(unshouted(question)))  # as the search reads it
    texts = [embedded_text(pick, headings) for pick in candidates]
    vectors = meaning.embedder.embed_documents(texts)
    cosines = np.asarray(vectors @ query, dtype=np.float64).tolist()
    return blend(candidates, cosines, meaning.bar)


def under_its_question(pick: Pick, chunk: RetrievedChunk) -> Pick:
    """Pure: the opening of a page titled with a question, quoted with that question
    ("Can I stream at 60 FPS? Yes, you can."): the short answer of an FAQ says nothing
    without it, and the visitor asked it in other words."""
    title = chunk.title.strip()
    if pick.unit.position != 0 or not title.endswith(QUESTION_MARKS) or title in pick.unit.text:
        return pick
    return replace(pick, unit=replace(pick.unit, text=f"{title} {pick.unit.text}"))
