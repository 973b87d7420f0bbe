"""Extractive, grounded answers for the local engine.

The writer quotes: it scores every sentence, list item and table row of the best
passages against the visitor's question and the search query, picks up to four that
answer it, and cites each with `[n]`, the 1-based position of its passage in
`request.chunks`. The only words it adds are a localized lead-in. Prices and internal
matters are never answered from passages: they get a polite deflection (plus, for
prices, a quoted sentence without any figure when the passages have one).

Scoring, per unit of passage `i`: weighted share of the query terms found in the unit
(a term only in the passage's headings counts 0.7, so "Meaning: …" under the heading
"ERR-1004: …" matches a question about ERR-1004), rarer terms weigh more, product codes
weigh triple; plus small bonuses for the passage's rank and cosine and for the first
unit of a passage. With an embedder, and only when the words alone find no good match
(another language, a paraphrase), the cosine between the query and the best candidates
is blended in (one small batch).
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import numpy as np

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering.phrases import (
    INTERNAL,
    LEAD_IN,
    NOT_FOUND,
    PRICING,
    WEAK_LEAD_IN,
    asks_internal,
    asks_pricing,
    phrase,
)
from frontdesk.engines.local.answering.text import (
    Unit,
    cited_indices,
    codes,
    heading_terms,
    passage_units,
    question_terms,
    term_set,
    words,
)
from frontdesk.knowledge.embeddings import Embedder

__all__ = ["LocalAnswerWriter", "cited_indices", "stream_pieces"]

_TERMINAL = re.compile(r"([.!?…]+[\"'»”)]*)$")
_FIGURE = re.compile(r"\d|[$€£₽¥]")
_META = re.compile(
    r"^(?:this|the following) (?:page|article|guide|reference|document|section|table)\b",
    re.IGNORECASE,
)
HEADING_CREDIT = 0.7
SEARCH_ONLY_WEIGHT = 0.5
CODE_WEIGHT = 3.0
MIN_MATCH = 0.3  # below: nothing in the passages answers the question
WEAK_MATCH = 0.5  # below: answer with the hedged lead-in


@dataclass(frozen=True)
class Pick:
    """A unit chosen for the answer: `index` is the 0-based passage position."""

    index: int
    unit: Unit
    score: float
    lexical: float


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


def render(lead: str, picks: Sequence[Pick]) -> str:
    """Lead-in, then prose sentences run together and list items or rows one per line."""
    ordered = sorted(picks, key=lambda p: (p.index, p.unit.position))
    lines: list[str] = [lead]
    prose = True  # the lead-in is prose: a first sentence follows it on the same line
    for pick in ordered:
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


class LocalAnswerWriter:
    """`AnswerWriterJob` that answers with cited quotes from the passages.

    `embedder` (optional) adds query–sentence cosine to the lexical score; pass the
    knowledge base's embedder (`make_embedder("local:all-MiniLM-L6-v2")`) to reuse its model.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        max_units: int = 4,
        max_chunks: int = 8,
        max_chars: int = 700,
        embed_candidates: int = 8,
    ) -> None:
        self.embedder = embedder
        self.max_units = max_units
        self.max_chunks = max_chunks
        self.max_chars = max_chars
        self.embed_candidates = embed_candidates

    async def write(self, request: AnswerRequest) -> AsyncIterator[str]:
        answer = await self.compose(request)
        for piece in stream_pieces(answer):
            yield piece

    async def compose(self, request: AnswerRequest) -> str:
        """The whole answer (what `write` streams)."""
        language = request.language
        if asks_internal(request.question):
            return phrase(INTERNAL, language)
        if asks_pricing(request.question) or (
            # "and for Enterprise?" after a pricing question: the rewritten query tells
            len(question_terms(request.question, language)) <= 1
            and asks_pricing(request.search_query)
        ):
            return self._pricing(request)
        candidates = self._score(request)
        unsure = bool(candidates) and max(pick.lexical for pick in candidates) < WEAK_MATCH
        if self.embedder is not None and unsure:  # the words alone find no good match
            candidates = await asyncio.to_thread(self._blend, request, candidates)
        picks = self._select(candidates)
        if not picks:
            return phrase(NOT_FOUND, language)
        weak = max(pick.lexical for pick in picks) < WEAK_MATCH
        lead = phrase(WEAK_LEAD_IN if weak else LEAD_IN, language)
        return render(lead, picks)

    def _score(self, request: AnswerRequest) -> list[Pick]:
        language = request.language
        weights = query_weights(request.question, request.search_query, language)
        wanted = codes(f"{request.question} {request.search_query}")
        chunks = list(request.chunks)[: self.max_chunks]
        units = [
            (i, unit, term_set(unit.text, language))
            for i, chunk in enumerate(chunks)
            for unit in passage_units(chunk.content)
            if unit.quotable
        ]
        if not units or not weights:
            return []
        frequency = Counter(term for _, _, found in units for term in found)
        idf = {t: math.log(1.0 + len(units) / (1.0 + frequency[t])) for t in weights}
        total = sum(weights[t] * idf[t] for t in weights)
        heads = [heading_terms(chunk, language) for chunk in chunks]
        unit_text = [f"{unit.context} {unit.text}" for _, unit, _ in units]
        head_text = [" ".join((chunk.title, *chunk.heading_path)) for chunk in chunks]
        picks: list[Pick] = []
        for i, unit, found in units:
            head = heads[i] | term_set(unit.context, language)
            gained = 0.0
            for term, weight in weights.items():
                if term in found:
                    gained += weight * idf[term]
                elif term in head:
                    gained += HEADING_CREDIT * weight * idf[term]
            lexical = gained / total if total else 0.0
            if wanted and not wanted & codes(f"{head_text[i]} {unit.context} {unit.text}"):
                lexical *= 0.3  # about another code than the one asked for
            bonus = 0.08 * max(chunks[i].score, 0.0) - 0.03 * i
            bonus += 0.05 if unit.position == 0 else 0.0
            if _META.match(unit.text):
                bonus -= 0.2
            if unit.kind != "sentence" and codes(unit.text) & wanted:
                bonus += 0.2
            picks.append(Pick(i, unit, lexical + bonus, lexical))
        if wanted and not any(codes(text) & wanted for text in head_text + unit_text):
            return []  # the code asked about is in none of the passages
        return picks

    def _blend(self, request: AnswerRequest, picks: list[Pick]) -> list[Pick]:
        assert self.embedder is not None
        ranked = sorted(picks, key=lambda p: p.score, reverse=True)[: self.embed_candidates]
        query = self.embedder.embed_query(request.search_query or request.question)
        vectors = self.embedder.embed_documents([pick.unit.text for pick in ranked])
        cosines = np.asarray(vectors @ query, dtype=np.float64)
        return [
            Pick(
                p.index,
                p.unit,
                0.6 * p.score + 0.4 * float(c),
                max(p.lexical, float(c) - 0.2),
            )
            for p, c in zip(ranked, cosines, strict=True)
        ]

    def _select(self, picks: list[Pick]) -> list[Pick]:
        ranked = sorted(picks, key=lambda p: p.score, reverse=True)
        if not ranked:
            return []
        if max(p.lexical for p in ranked) < MIN_MATCH:
            return []
        floor = max(0.5 * ranked[0].score, 0.1)
        chosen: list[Pick] = []
        seen: list[frozenset[str]] = []
        used = 0
        for pick in ranked:
            if len(chosen) >= self.max_units or pick.score < floor:
                break
            found = frozenset(words(pick.unit.text))
            if any(len(found & other) > 0.7 * min(len(found), len(other)) for other in seen):
                continue  # says what a chosen unit already says
            if chosen and used + len(pick.unit.text) > self.max_chars:
                continue
            chosen.append(pick)
            seen.append(found)
            used += len(pick.unit.text)
        return chosen

    def _pricing(self, request: AnswerRequest) -> str:
        """Deflect to sales; quote one figure-free sentence about pricing if there is one."""
        deflection = phrase(PRICING, request.language)
        question = term_set(request.question, request.language)
        best: Pick | None = None
        for i, chunk in enumerate(list(request.chunks)[: self.max_chunks]):
            for unit in passage_units(chunk.content):
                if not unit.quotable or _FIGURE.search(unit.text):
                    continue
                if not asks_pricing(f"{unit.context} {unit.text}"):
                    continue
                found = term_set(f"{unit.context} {unit.text}", request.language)
                overlap = len(question & found)
                score = overlap - 0.1 * i - 0.01 * unit.position
                if best is None or score > best.score:
                    best = Pick(i, unit, score, float(overlap))
        if best is None:
            return deflection
        return f"{deflection}\n\n{render(phrase(LEAD_IN, request.language), [best])}"
