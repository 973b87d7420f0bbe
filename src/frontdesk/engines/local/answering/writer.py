"""Extractive, grounded answers for the local engine.

The writer quotes: it scores every sentence, list item and table row of the best
passages against the visitor's question and the search query, picks up to four that
answer it, and cites each with `[n]`, the 1-based position of its passage in
`request.chunks`. The only words it adds are a localized lead-in. Internal matters are
never answered from passages. Prices are answered like anything else (figures only
from passages) unless the site configured a `pricing_reply`: then that reply, plus a
quoted sentence without any figure when the passages have one.

An answer reads like an answer:
- the picks are ordered by relevance to this question, not by passage order (a run of
  consecutive units of one passage, such as numbered steps, stays in its order);
- every pick shares a word with the question itself: terms the rewriter carried over
  from earlier turns (in `search_query`) rank units but never bring in one alone,
  unless the question refers back itself ("their rollout", "and for Enterprise?");
- one language per answer: passages in the visitor's language are used first; only
  when none of them answers are passages of another language quoted, under a lead-in
  (in the visitor's language) that says so, all from that one other language;
- a message with several questions (`parts.question_parts`) gets the best unit for
  each part, in the visitor's order, and a closing line naming the parts the
  documentation does not cover;
- case studies are quoted only when the visitor asks for examples or names the customer.

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
from dataclasses import dataclass, replace

import numpy as np

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering.parts import (
    QuestionPart,
    asks_for_examples,
    is_customer_story,
    names_the_story,
    question_parts,
)
from frontdesk.engines.local.answering.phrases import (
    FOREIGN_LEAD_IN,
    INTERNAL,
    LEAD_IN,
    NOT_FOUND,
    PARTS_UNKNOWN,
    WEAK_LEAD_IN,
    asks_internal,
    asks_pricing,
    phrase,
)
from frontdesk.engines.local.answering.rewrite import refers_back
from frontdesk.engines.local.answering.text import (
    Unit,
    cited_indices,
    codes,
    heading_terms,
    in_other_script,
    passage_language,
    passage_units,
    proper_names,
    question_terms,
    term_set,
    words,
)
from frontdesk.knowledge.embeddings import Embedder
from frontdesk.knowledge.models import RetrievedChunk

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
        if request.pricing_reply and (
            asks_pricing(request.question)
            # "and for Enterprise?" after a pricing question: the rewritten query tells
            or (
                len(question_terms(request.question, language)) <= 1
                and asks_pricing(request.search_query)
            )
        ):
            return self._pricing(request)
        chunks = list(request.chunks)[: self.max_chunks]
        for passage_lang, indices in self._language_groups(request, chunks):
            answer = await self._answer_from(request, chunks, indices, passage_lang)
            if answer:
                return answer
        return phrase(NOT_FOUND, language)

    def _language_groups(
        self, request: AnswerRequest, chunks: Sequence[RetrievedChunk]
    ) -> list[tuple[str, frozenset[int]]]:
        """Passages to answer from, by language: the visitor's first, then the language of
        the best-ranked other passage. Case studies only when examples are asked for."""
        usable = set(range(len(chunks)))
        if not asks_for_examples(request.question):
            stories = {
                i
                for i, chunk in enumerate(chunks)
                # "How long did their rollout take?": the rewriter carried the name over
                if is_customer_story(chunk)
                and not names_the_story(f"{request.question} {request.search_query}", chunk)
            }
            if stories != usable:  # only stories retrieved: the question is about them
                usable -= stories
        language = request.language
        lang_of = {
            i: passage_language(f"{chunks[i].title}\n{chunks[i].content}", language) for i in usable
        }
        groups: list[tuple[str, frozenset[int]]] = []
        own = frozenset(i for i in usable if lang_of[i] == language)
        if own:
            groups.append((language, own))
        others = sorted(usable - own)
        if others:
            first = lang_of[others[0]]
            groups.append((first, frozenset(i for i in others if lang_of[i] == first)))
        return groups

    async def _answer_from(
        self,
        request: AnswerRequest,
        chunks: Sequence[RetrievedChunk],
        indices: frozenset[int],
        passage_lang: str,
    ) -> str | None:
        language = request.language
        foreign = passage_lang != language
        parts = question_parts(request.question, language)[:MAX_PARTS]
        if len(parts) >= 2:
            return self._answer_parts(request, chunks, indices, parts, foreign)
        weights = query_weights(request.question, request.search_query, language)
        # "How long did their rollout take?" refers to the earlier subject: the query's
        # words may bring sentences in. Otherwise only the question's own words do.
        own = (
            frozenset()
            if refers_back(request.question, language)
            else question_terms(request.question, language)
        )
        candidates = self._score(request, chunks, indices, weights, own, foreign)
        unsure = bool(candidates) and max(pick.lexical for pick in candidates) < WEAK_MATCH
        if self.embedder is not None and unsure:  # the words alone find no good match
            candidates = await asyncio.to_thread(self._blend, request, candidates)
        picks = self._select(candidates)
        if not picks:
            return None
        weak = max(pick.lexical for pick in picks) < WEAK_MATCH
        lead = FOREIGN_LEAD_IN if foreign else WEAK_LEAD_IN if weak else LEAD_IN
        return render(phrase(lead, language), by_relevance(picks))

    def _answer_parts(
        self,
        request: AnswerRequest,
        chunks: Sequence[RetrievedChunk],
        indices: frozenset[int],
        parts: Sequence[QuestionPart],
        foreign: bool,
    ) -> str | None:
        """Each part's best unit (two when the part is broad), in the visitor's order; the
        questions nothing answers are named at the end."""
        language = request.language
        chosen: list[Pick] = []
        unknown: list[QuestionPart] = []
        for part in parts:
            weights = query_weights(part.text, part.text, language)
            own = question_terms(part.text, language)
            # A part naming something (Okta, HubSpot) is answered only by passages naming it.
            names = [name.casefold() for name in proper_names(part.text)]
            naming = {
                i
                for i in indices
                if all(
                    name in f"{chunks[i].title} {chunks[i].content}".casefold() for name in names
                )
            }
            ranked = sorted(
                (
                    pick
                    for pick in self._score(
                        request, chunks, frozenset(naming), weights, own, foreign
                    )
                    if pick.own and pick.lexical >= MIN_MATCH
                ),
                key=lambda p: p.score,
                reverse=True,
            )
            taken = 0
            for pick in ranked:
                if taken == 2 or (taken and pick.lexical < 0.8 * ranked[0].lexical):
                    break
                if any(p.index == pick.index and p.unit == pick.unit for p in chosen):
                    taken += 1  # the unit an earlier part chose answers this one too
                    continue
                if any(_repeats(pick, other) for other in chosen):
                    continue
                chosen.append(pick)
                taken += 1
            if not taken and part.asks:
                unknown.append(part)
        if not chosen:
            return None
        weak = max(pick.lexical for pick in chosen) < WEAK_MATCH
        lead = FOREIGN_LEAD_IN if foreign else WEAK_LEAD_IN if weak else LEAD_IN
        text = render(phrase(lead, language), chosen)
        return f"{text}\n\n{unknown_line(unknown, language)}" if unknown else text

    def _score(
        self,
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

    def _blend(self, request: AnswerRequest, picks: list[Pick]) -> list[Pick]:
        assert self.embedder is not None
        ranked = sorted(picks, key=lambda p: p.score, reverse=True)[: self.embed_candidates]
        query = self.embedder.embed_query(request.search_query or request.question)
        vectors = self.embedder.embed_documents([pick.unit.text for pick in ranked])
        cosines = np.asarray(vectors @ query, dtype=np.float64)
        blended: list[Pick] = []
        for pick, cosine in zip(ranked, cosines, strict=True):
            lexical = max(pick.lexical, float(cosine) - 0.2)
            blended.append(
                replace(
                    pick,
                    score=0.6 * pick.score + 0.4 * float(cosine),
                    lexical=lexical,
                    own=pick.own or lexical >= MIN_MATCH,  # a paraphrase of the question
                )
            )
        return blended

    def _select(self, picks: list[Pick]) -> list[Pick]:
        ranked = sorted(
            (p for p in picks if p.own and p.lexical > 0), key=lambda p: p.score, reverse=True
        )
        if not ranked:
            return []
        if max(p.lexical for p in ranked) < MIN_MATCH:
            return []
        floor = max(0.5 * ranked[0].score, 0.1)
        chosen: list[Pick] = []
        used = 0
        for pick in ranked:
            if len(chosen) >= self.max_units:
                break
            # The rest of the section on the question's subject ("We deliver in Amsterdam…"
            # under "Delivery") stays in with a lower score than the best sentence.
            if pick.score < (SECTION_FLOOR * floor if pick.in_section else floor):
                continue
            if any(_repeats(pick, other) for other in chosen):
                continue  # says what a chosen unit already says
            if chosen and used + len(pick.unit.text) > self.max_chars:
                continue
            chosen.append(pick)
            used += len(pick.unit.text)
        return chosen

    def _pricing(self, request: AnswerRequest) -> str:
        """The site's pricing reply; one figure-free sentence about pricing if there is one."""
        deflection = request.pricing_reply
        question = term_set(request.question, request.language)
        best: Pick | None = None
        for i, chunk in enumerate(list(request.chunks)[: self.max_chunks]):
            for unit in passage_units(chunk.content):
                if not unit.quotable or _FIGURE.search(unit.text):
                    continue
                if passage_language(chunk.content, request.language) != request.language:
                    continue  # one language per answer
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


def shares(asked: frozenset[str] | set[str], present: frozenset[str]) -> bool:
    """Whether a term of `asked` is in `present`, or a longer or shorter form of it
    (stems of five letters or more: `deliv` and `deliveri`)."""
    if asked & present:
        return True
    return any(
        len(a) >= 5 and len(b) >= 5 and (a.startswith(b) or b.startswith(a))
        for a in asked
        for b in present
    )


def _repeats(pick: Pick, other: Pick) -> bool:
    """`pick` says what `other` already says (the same unit, or most of its words)."""
    found = frozenset(words(pick.unit.text))
    seen = frozenset(words(other.unit.text))
    return len(found & seen) > 0.7 * min(len(found), len(seen))
