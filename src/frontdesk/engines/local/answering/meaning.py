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
  model (`knowledge/search/topic.py`), so no fixed number of one model decides; such a unit
  counts as a match (`MIN_MATCH`, still under the hedged lead-in) and as the visitor's
  own (`Pick.own`);
- every candidate is ranked by its lexical score plus how far its cosine clears the bar.

A chosen opening of a page whose title is a question is quoted under that question
(`under_its_question`).

Passages in another language than the visitor's share no words with the question ("How
long does a repair take?" over "Kleine Reparaturen meist am selben Tag"), so there the
units are always chosen by meaning (`read_across`): every unit of the best-ranked such
passage is compared with the question, and those clearing the support bar, nearly as
close as the closest, are quoted. Unit vectors go through the site's embedding cache:
a page's sentences and rows are embedded once (at answer time, or at ingest with
`IngestOptions(unit_texts=unit_texts)`), then an answer embeds only the question.

`choose_candidates`, `embedded_text`, `unit_texts`, `blend`, `choose_across` and
`under_its_question` are pure; `read_meaning` and `read_across` read vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from frontdesk.engines.base import SiteMeaning
from frontdesk.engines.local.answering.quoting import MIN_MATCH, Pick
from frontdesk.engines.local.answering.units import passage_units
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.knowledge.search.query import unshouted

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
# Across languages: the units of the best passage that clear the bar and come within this
# cosine of the closest one are quoted (e5 puts a paraphrase 0.02–0.05 above the next
# sentence of the same page), at most `ACROSS_UNITS` of them.
ACROSS_MARGIN = 0.01
ACROSS_UNITS = 2


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


def heading_line(title: str, heading_path: Sequence[str]) -> str:
    """Pure: a passage's title and headings on one line (repeats left out)."""
    return " ".join(dict.fromkeys((title, *heading_path)))


def embedded_text(pick: Pick, headings: Sequence[str]) -> str:
    """Pure: what is embedded for a unit. A passage's opening units are read under its
    title and headings: on a help centre the title is the question the opening answers
    ("How many TVs can I connect?" over "Up to 5 Smart TV devices.")."""
    if headings and pick.unit.position < LEAD_UNITS:
        return f"{headings[pick.index]}\n{pick.unit.text}"
    return pick.unit.text


def unit_texts(title: str, heading_path: Sequence[str], content: str) -> list[str]:
    """Pure: the texts a writer may embed for a passage's quotable units (`embedded_text`
    of each), which ingest can put into the site's embedding cache."""
    heading = heading_line(title, heading_path)
    return [
        f"{heading}\n{unit.text}" if unit.position < LEAD_UNITS else unit.text
        for unit in passage_units(content)
        if unit.quotable
    ]


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
    vectors = meaning.passage_vectors(texts)
    cosines = np.asarray(vectors @ query, dtype=np.float64).tolist()
    return blend(candidates, cosines, meaning.bar)


def choose_across(picks: Sequence[Pick], cosines: Sequence[float], bar: float) -> list[Pick]:
    """Pure: the units of the best-ranked passage among `picks` whose cosine reaches `bar`
    and comes within `ACROSS_MARGIN` of the closest, closest first, at most
    `ACROSS_UNITS`; each counts as a match of the visitor's own question."""
    if not picks:
        return []
    first = min(pick.index for pick in picks)
    scored = sorted(
        (
            (cosine, pick)
            for pick, cosine in zip(picks, cosines, strict=True)
            if pick.index == first and cosine >= bar
        ),
        key=lambda pair: pair[0],
        reverse=True,
    )
    if not scored:
        return []
    closest = scored[0][0]
    return [
        replace(pick, score=cosine, lexical=max(pick.lexical, MIN_MATCH), own=True)
        for cosine, pick in scored[:ACROSS_UNITS]
        if cosine >= closest - ACROSS_MARGIN
    ]


def read_across(
    question: str, picks: Sequence[Pick], meaning: SiteMeaning, headings: Sequence[str]
) -> list[Pick]:
    """The units of the best-ranked passage in another language that say what `question`
    asks (`choose_across`); `picks` are every quotable unit of those passages."""
    if not picks:
        return []
    first = min(pick.index for pick in picks)
    candidates = [pick for pick in picks if pick.index == first]
    query = np.ravel(meaning.embedder.embed_query(unshouted(question)))
    vectors = meaning.passage_vectors([embedded_text(pick, headings) for pick in candidates])
    cosines = np.asarray(vectors @ query, dtype=np.float64).tolist()
    return choose_across(candidates, cosines, meaning.bar)


def under_its_question(pick: Pick, chunk: RetrievedChunk) -> Pick:
    """Pure: the opening of a page titled with a question, quoted with that question
    ("Can I stream at 60 FPS? Yes, you can."): the short answer of an FAQ says nothing
    without it, and the visitor asked it in other words."""
    title = chunk.title.strip()
    if pick.unit.position != 0 or not title.endswith(QUESTION_MARKS) or title in pick.unit.text:
        return pick
    return replace(pick, unit=replace(pick.unit, text=f"{title} {pick.unit.text}"))
