"""Choosing and laying out the quotes of a local answer (used by `writer.py`).

`score_units` scores every quotable unit of the passages against weighted query terms:
the weighted share of the terms found in the unit (a term only in the passage's
headings counts 0.7, so "Meaning: …" under the heading "ERR-1004: …" matches a question
about ERR-1004; a longer or shorter form of a stem, "deliver"/"delivery", counts 0.8),
rarer terms weigh more, product codes weigh triple; plus small bonuses for the
passage's rank and cosine and for the first unit of a passage. When a passage has a
section whose heading names the question's subject, its other sections count less.
`select_picks` keeps the best few that say different things: at least one must match
the question well (`MIN_MATCH`), unless its passage as a whole covers much of the question
(`passage_support`): real visitors word things their own way ("what is the lasting time
for the shots?", a filler clause, a typo), so no single sentence of the right page shares
many of their words, while the page does; then a weaker sentence of that page is quoted
(under the hedged lead-in) rather than "I couldn't find this"; `by_relevance` orders
them best first (runs of nearby units keep their order); `render` writes them out with
their `[n]` citations.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering.parts import QuestionPart
from frontdesk.engines.local.answering.phrases import PARTS_UNKNOWN, phrase
from frontdesk.engines.local.answering.text import (
    chunk_terms,
    codes,
    heading_terms,
    in_other_script,
    question_terms,
    term_set,
    words,
)
from frontdesk.engines.local.answering.units import Unit, passage_units
from frontdesk.knowledge.models import RetrievedChunk

_TERMINAL = re.compile(r"([.!?…]+[\"'»”)]*)$")
FIGURE = re.compile(r"\d|[$€£₽¥]")
_META = re.compile(
    r"^(?:this|the following) (?:page|article|guide|reference|document|section|table)\b",
    re.IGNORECASE,
)
HEADING_CREDIT = 0.7
SEARCH_ONLY_WEIGHT = 0.5
CODE_WEIGHT = 3.0
MIN_MATCH = 0.3  # below: nothing in the passages answers the question
# ...unless the unit's passage covers this share of the question's terms (with its title,
# headings and word variants): then a unit matching this much of it is still quoted.
PASSAGE_SUPPORT = 0.4
SUPPORTED_MIN_MATCH = 0.15
WEAK_MATCH = 0.5  # below: answer with the hedged lead-in
# A weakly matched yes-or-no question with this share of its words' weight (rarer words
# weigh more) in no passage asks about something the passages do not name (`writer.py`).
UNKNOWN_SHARE = 0.5
MAX_PARTS = 6  # parts of one message answered one by one
VARIANT_CREDIT = 0.8  # "deliver" asked, "delivery" written: stems that differ in their ending
OFF_SECTION = 0.6  # a unit outside the passage's section on the question's subject
SECTION_FLOOR = 0.6  # share of the selection floor a unit of that section needs
STEP_GAP = 2  # units this close in one passage read as one run (steps, a table)


@dataclass(frozen=True)
class Pick:
    """A unit chosen for the answer: `index` is the 0-based passage position; `own` says
    it shares a word with the visitor's own question (not only with the search query)."""

    index: int
    unit: Unit
    score: float
    lexical: float
    own: bool = True
    in_section: bool = False  # under a heading that names the question's subject


def stream_pieces(text: str) -> list[str]:
    """`text` cut into words with their trailing whitespace; the pieces join to `text`."""
    pieces = re.findall(r"\S+\s*", text)
    lead = text[: len(text) - len(text.lstrip())]
    if lead:
        pieces = [lead + pieces[0], *pieces[1:]] if pieces else [lead]
    return pieces


def with_citation(text: str, number: int) -> str:
    """`text [n].`: the citation goes before the closing punctuation."""
    text = text.strip()
    match = _TERMINAL.search(text)
    if match:
        return f"{text[: match.start()].rstrip()} [{number}]{match.group(1)}"
    return f"{text} [{number}]"


def query_weights(question: str, search_query: str, language: str) -> dict[str, float]:
    weights: dict[str, float] = {}
    for term in question_terms(search_query, language):
        weights[term] = SEARCH_ONLY_WEIGHT
    for term in question_terms(question, language):
        weights[term] = 1.0
    for code in codes(f"{question} {search_query}"):
        for term in term_set(re.sub(r"\D", " ", code), language):  # the number of ERR-1004
            weights[term] = CODE_WEIGHT
    return weights


def by_relevance(picks: Sequence[Pick]) -> list[Pick]:
    """Runs of nearby units of one passage (steps, rows) keep their order; the runs go
    best first, so the answer opens with what this question asks."""
    runs: list[list[Pick]] = []
    for pick in sorted(picks, key=lambda p: (p.index, p.unit.position)):
        last = runs[-1][-1] if runs else None
        near = last is not None and pick.unit.position - last.unit.position <= STEP_GAP
        if last and near and last.index == pick.index:
            runs[-1].append(pick)
        else:
            runs.append([pick])
    runs.sort(key=lambda run: max(p.score for p in run), reverse=True)
    return [pick for run in runs for pick in run]


def render(lead: str, picks: Sequence[Pick]) -> str:
    """Lead-in, then prose sentences run together and list items or rows one per line,
    in the order given."""
    lines: list[str] = [lead]
    prose = True  # the lead-in is prose: a first sentence follows it on the same line
    for pick in picks:
        cited = with_citation(pick.unit.text, pick.index + 1)
        if pick.unit.kind == "sentence" and prose:
            lines[-1] = f"{lines[-1]} {cited}"
        elif pick.unit.kind == "sentence":
            lines.append(cited)
            prose = True
        else:
            lines.append(f"- {cited}")
            prose = False
    return "\n".join(lines)


def unknown_line(parts: Sequence[QuestionPart], language: str) -> str:
    quoted = "; ".join(f"“{part.text.rstrip('?？.! ')}”" for part in parts)
    return phrase(PARTS_UNKNOWN, language).format(x=quoted)


def score_units(
    request: AnswerRequest,
    chunks: Sequence[RetrievedChunk],
    indices: frozenset[int],
    weights: dict[str, float],
    own_terms: frozenset[str],
    foreign: bool,
) -> list[Pick]:
    language = request.language
    wanted = codes(f"{request.question} {request.search_query}")
    units = [
        (i, unit, term_set(unit.text, language))
        for i, chunk in enumerate(chunks)
        if i in indices
        for unit in passage_units(chunk.content)
        if unit.quotable and (foreign or not in_other_script(unit.text, language))
    ]
    if not units or not weights:
        return []
    own_terms = own_terms | {t for t, w in weights.items() if w == CODE_WEIGHT}
    frequency = Counter(term for _, _, found in units for term in found)
    idf = {t: math.log(1.0 + len(units) / (1.0 + frequency[t])) for t in weights}
    total = sum(weights[t] * idf[t] for t in weights)
    heads = [heading_terms(chunk, language) for chunk in chunks]
    unit_text = [f"{unit.context} {unit.text}" for _, unit, _ in units]
    head_text = [" ".join((chunk.title, *chunk.heading_path)) for chunk in chunks]
    # A passage with a section on the question's subject ("Delivery" for "which cities
    # do you deliver to?"): its other sections (theft, repairs) are about something else.
    in_section = [
        bool(unit.context) and shares(own_terms, term_set(unit.context, language))
        for _, unit, _ in units
    ]
    has_section = {i for (i, _, _), hit in zip(units, in_section, strict=True) if hit}
    picks: list[Pick] = []
    for (i, unit, found), section_hit in zip(units, in_section, strict=True):
        head = heads[i] | term_set(unit.context, language)
        gained = 0.0
        for term, weight in weights.items():
            if term in found:
                gained += weight * idf[term]
            elif term in head:
                gained += HEADING_CREDIT * weight * idf[term]
            elif shares({term}, found):
                gained += VARIANT_CREDIT * weight * idf[term]
            elif shares({term}, head):
                gained += HEADING_CREDIT * VARIANT_CREDIT * weight * idf[term]
        lexical = gained / total if total else 0.0
        if wanted and not wanted & codes(f"{head_text[i]} {unit.context} {unit.text}"):
            lexical *= 0.3  # about another code than the one asked for
        if i in has_section and not section_hit:
            lexical *= OFF_SECTION
        bonus = 0.08 * max(chunks[i].score, 0.0) - 0.03 * i
        bonus += 0.05 if unit.position == 0 else 0.0
        if _META.match(unit.text):
            bonus -= 0.2
        if unit.kind != "sentence" and codes(unit.text) & wanted:
            bonus += 0.2
        # Terms only the search query brings (an earlier turn's subject) rank units
        # but never bring one in alone; a question without content words is a pure
        # follow-up and takes its subject from the query.
        own = not own_terms or shares(own_terms, found | head)
        picks.append(Pick(i, unit, lexical + bonus, lexical, own, section_hit))
    if wanted and not any(codes(text) & wanted for text in head_text + unit_text):
        return []  # the code asked about is in none of the passages
    return picks


def passage_support(terms: frozenset[str], chunk: RetrievedChunk, language: str) -> float:
    """Share of the question's terms the whole passage has (title, headings, text; a
    longer or shorter form of a word counts), in [0, 1]."""
    if not terms:
        return 0.0
    present = chunk_terms(chunk, language)
    return sum(1 for term in terms if shares({term}, present)) / len(terms)


def words_missing(
    question: str, language: str, chunks: Sequence[RetrievedChunk], indices: frozenset[int]
) -> frozenset[str]:
    """The question's content terms that none of the passages has in any form (title,
    headings and text; a longer or shorter form or a compound counts)."""
    present: frozenset[str] = frozenset().union(
        *(chunk_terms(chunks[i], language) for i in indices)
    )
    return frozenset(
        term for term in question_terms(question, language) if not shares({term}, present)
    )


def missing_share(
    question: str, language: str, chunks: Sequence[RetrievedChunk], indices: frozenset[int]
) -> float:
    """The share of the question's weight that none of the passages has (`words_missing`),
    each term weighed by its rarity among the passages' units as `score_units` weighs it:
    "water" and "install" on a plumber's pages weigh little, so "Do you install water
    softeners?" is mostly about the softener no page names. A term no passage has is the
    rarest, so the share is never below the share of terms missing."""
    terms = question_terms(question, language)
    if not terms:
        return 0.0
    missing = words_missing(question, language, chunks, indices)
    units = [
        term_set(f"{unit.context} {unit.text}", language)
        for i in indices
        for unit in passage_units(chunks[i].content)
        if unit.quotable
    ]
    idf = {
        term: math.log(1.0 + len(units) / (1.0 + sum(1 for found in units if term in found)))
        for term in terms
    }
    total = sum(idf.values())
    return sum(idf[term] for term in missing) / total if total else 0.0


def supporting_passages(
    terms: frozenset[str],
    chunks: Sequence[RetrievedChunk],
    indices: frozenset[int],
    language: str,
) -> frozenset[int]:
    """The passages that cover the question as a whole (`PASSAGE_SUPPORT`)."""
    return frozenset(
        i for i in indices if passage_support(terms, chunks[i], language) >= PASSAGE_SUPPORT
    )


def select_picks(
    picks: list[Pick],
    max_units: int,
    max_chars: int,
    supported: frozenset[int] = frozenset(),
) -> list[Pick]:
    ranked = sorted(
        (p for p in picks if p.own and p.lexical > 0), key=lambda p: p.score, reverse=True
    )
    if ranked and max(p.lexical for p in ranked) < MIN_MATCH:
        # No unit matches well: only the passages that cover the question may answer.
        ranked = [p for p in ranked if p.index in supported and p.lexical >= SUPPORTED_MIN_MATCH]
    if not ranked:
        return []
    floor = max(0.5 * ranked[0].score, 0.1)
    chosen: list[Pick] = []
    used = 0
    for pick in ranked:
        if len(chosen) >= max_units:
            break
        # The rest of the section on the question's subject ("We deliver in Amsterdam…"
        # under "Delivery") stays in with a lower score than the best sentence.
        if pick.score < (SECTION_FLOOR * floor if pick.in_section else floor):
            continue
        if any(repeats(pick, other) for other in chosen):
            continue  # says what a chosen unit already says
        if chosen and used + len(pick.unit.text) > max_chars:
            continue
        chosen.append(pick)
        used += len(pick.unit.text)
    return chosen


def shares(asked: frozenset[str] | set[str], present: frozenset[str]) -> bool:
    """Whether a term of `asked` is in `present`, or a longer or shorter form of it
    (stems of five letters or more: `deliv` and `deliveri`), or a compound of it
    (`joins`, `ends_with`): "Schlauchwechsel" asked, "Schlauch wechseln" written."""
    if asked & present:
        return True
    return any(
        len(a) >= 5 and len(b) >= 5 and (a.startswith(b) or b.startswith(a))
        for a in asked
        for b in present
    ) or any(joins(a, present) or any(ends_with(b, a) for b in present) for a in asked)


COMPOUND_PART = 4  # letters each part of a compound has at least
# What may join the parts of a compound: German "Arbeit-s-zeit", "Kette-n-wechsel".
_JOINTS = ("", "s", "n", "e", "en", "es", "er")


def joins(term: str, present: frozenset[str]) -> bool:
    """Pure: `term` is two words of `present` written as one ("schlauchwechsel" from
    "schlauch" and "wechseln"; "kettenwechsel" from "kett" and "wechsel")."""
    if len(term) < 2 * COMPOUND_PART:
        return False
    for head in present:
        if len(head) < COMPOUND_PART or not term.startswith(head):
            continue
        rest = term[len(head) :]
        for joint in _JOINTS:
            tail = rest[len(joint) :]
            if not rest.startswith(joint) or len(tail) < COMPOUND_PART:
                continue
            if any(
                len(word) >= COMPOUND_PART and (tail.startswith(word) or word.startswith(tail))
                for word in present
            ):
                return True
    return False


def ends_with(compound: str, word: str) -> bool:
    """Pure: `compound` ends in `word` ("schlauchwechsel" and "wechsel"; "smartphone" and
    "phone"): the last part of a compound names what it is."""
    return len(word) >= 5 and len(compound) >= len(word) + COMPOUND_PART and compound.endswith(word)


def repeats(pick: Pick, other: Pick) -> bool:
    """`pick` says what `other` already says (the same unit, or most of its words)."""
    found = frozenset(words(pick.unit.text))
    seen = frozenset(words(other.unit.text))
    return len(found & seen) > 0.7 * min(len(found), len(seen))
