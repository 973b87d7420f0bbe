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

How units are scored, chosen and laid out is `quoting.py`. A site that lets the local
writer read by meaning (`request.meaning`, `meaning.py`) gets, only where the words find
nothing at all (a paraphrase, slang, a synonym), the sentences whose cosine with the
question clears the site's own support bar.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from frontdesk.conversation.register import Tone
from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering.meaning import (
    heading_line,
    read_across,
    read_meaning,
    under_its_question,
)
from frontdesk.engines.local.answering.parts import (
    QuestionPart,
    addresses_the_business,
    asks_for_examples,
    asks_whether,
    is_customer_story,
    names_the_story,
    question_parts,
    without_second_person,
)
from frontdesk.engines.local.answering.phrases import (
    INTERNAL,
    LEAD_IN,
    NOT_FOUND,
    WEAK_LEAD_IN,
    asks_internal,
    asks_pricing,
    foreign_lead_in,
    phrase,
)
from frontdesk.engines.local.answering.quoting import (
    FIGURE,
    MAX_PARTS,
    MIN_MATCH,
    UNKNOWN_SHARE,
    WEAK_MATCH,
    Pick,
    by_relevance,
    missing_share,
    query_weights,
    render,
    repeats,
    score_units,
    select_picks,
    stream_pieces,
    supporting_passages,
    unknown_line,
    words_missing,
)
from frontdesk.engines.local.answering.rewrite import refers_back
from frontdesk.engines.local.answering.text import (
    cited_indices,
    passage_language,
    proper_names,
    question_terms,
    term_set,
)
from frontdesk.engines.local.answering.units import passage_units
from frontdesk.knowledge.models import RetrievedChunk

__all__ = ["LocalAnswerWriter", "cited_indices", "stream_pieces"]


class LocalAnswerWriter:
    """`AnswerWriterJob` that answers with cited quotes from the passages. It reads
    meaning only through `request.meaning` (the site's embedder and bar), never its own
    model: one writer serves every site, each with its own embedding model."""

    translates = False  # passages are quoted in their own language, under a lead-in

    def __init__(
        self,
        *,
        max_units: int = 4,
        max_chunks: int = 8,
        max_chars: int = 700,
    ) -> None:
        self.max_units = max_units
        self.max_chunks = max_chunks
        self.max_chars = max_chars

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
        # A message of several questions brings each question's passages after the whole
        # message's (`merge_results`): cutting at `max_chunks` would drop exactly those.
        several = len(question_parts(request.question, language)) >= 2
        chunks = list(request.chunks) if several else list(request.chunks)[: self.max_chunks]
        for passage_lang, indices in self._language_groups(request, chunks):
            answer = await self._answer_from(request, chunks, indices, passage_lang)
            if answer:
                return answer
        return phrase(NOT_FOUND, language)

    def _language_groups(
        self, request: AnswerRequest, chunks: Sequence[RetrievedChunk]
    ) -> list[tuple[str, frozenset[int]]]:
        """Passages to answer from, by language: the visitor's first, then the site's own
        (a German visitor of an English site with a Russian FAQ reads the English page),
        then the language of the best-ranked other passage. Case studies only when
        examples are asked for."""
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
        site = frozenset(i for i in others if lang_of[i] == request.site_language)
        if site and request.site_language != language:
            groups.append((request.site_language, site))
            others = [i for i in others if i not in site]
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
            return self._answer_parts(request, chunks, indices, parts, passage_lang)
        weights = query_weights(request.question, request.search_query, language)
        # "How long did their rollout take?" refers to the earlier subject: the query's
        # words may bring sentences in. Otherwise only the question's own words do.
        own = (
            frozenset()
            if refers_back(request.question, language)
            else question_terms(request.question, language)
        )
        candidates = score_units(request, chunks, indices, weights, own, foreign)
        supported = supporting_passages(
            question_terms(request.question, language), chunks, indices, language
        )
        meaning = request.meaning
        query = request.search_query or request.question
        headings = [heading_line(c.title, c.heading_path) for c in chunks]
        picks: list[Pick] = []
        if foreign and meaning is not None and candidates:
            # Another language: the question's words are not the passage's (`meaning.py`).
            across = await asyncio.to_thread(read_across, query, candidates, meaning, headings)
            picks = [under_its_question(pick, chunks[pick.index]) for pick in across]
        if not picks:
            picks = select_picks(candidates, self.max_units, self.max_chars, supported)
            if not foreign and own and _asks_about_the_unnamed(request, chunks, indices, picks):
                picks = []
        if not picks and candidates and meaning is not None and meaning.own_language:
            # The words find nothing: a sentence may still say it in other words. Only
            # then, so every answer the words find stays as it was (`meaning.py`).
            by_meaning = await asyncio.to_thread(read_meaning, query, candidates, meaning, headings)
            chosen = select_picks(by_meaning, self.max_units, self.max_chars, supported)
            picks = [under_its_question(pick, chunks[pick.index]) for pick in chosen]
        if not picks:
            return None
        weak = max(pick.lexical for pick in picks) < WEAK_MATCH
        return render(
            self._lead_in(language, passage_lang, weak, request.tone), by_relevance(picks)
        )

    def _answer_parts(
        self,
        request: AnswerRequest,
        chunks: Sequence[RetrievedChunk],
        indices: frozenset[int],
        parts: Sequence[QuestionPart],
        passage_lang: str,
    ) -> str | None:
        """Each part's best unit (two when the part is broad), in the visitor's order; the
        questions nothing answers are named at the end."""
        language = request.language
        foreign = passage_lang != language
        chosen: list[Pick] = []
        unknown: list[QuestionPart] = []
        for part in parts:
            weights = query_weights(part.text, part.text, language)
            own = question_terms(part.text, language)
            # A part naming something (Okta, HubSpot) is answered only by passages naming it.
            names = [name.casefold() for name in proper_names(part.text, language)]
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
                    for pick in score_units(
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
                if any(repeats(pick, other) for other in chosen):
                    continue
                chosen.append(pick)
                taken += 1
            if not taken and part.asks:
                unknown.append(part)
        if not chosen:
            return None
        weak = max(pick.lexical for pick in chosen) < WEAK_MATCH
        text = render(self._lead_in(language, passage_lang, weak, request.tone), chosen)
        return f"{text}\n\n{unknown_line(unknown, language)}" if unknown else text

    @staticmethod
    def _lead_in(language: str, passage_lang: str, weak: bool, tone: Tone) -> str:
        """Quotes of a page in another language say so, naming it in the visitor's."""
        if passage_lang != language:
            return foreign_lead_in(language, passage_lang)
        return phrase(WEAK_LEAD_IN if weak else LEAD_IN, language, tone)

    def _pricing(self, request: AnswerRequest) -> str:
        """The site's pricing reply; one figure-free sentence about pricing if there is one."""
        deflection = request.pricing_reply
        question = term_set(request.question, request.language)
        best: Pick | None = None
        for i, chunk in enumerate(list(request.chunks)[: self.max_chunks]):
            for unit in passage_units(chunk.content):
                if not unit.quotable or FIGURE.search(unit.text):
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


def _asks_about_the_unnamed(
    request: AnswerRequest,
    chunks: Sequence[RetrievedChunk],
    indices: frozenset[int],
    picks: Sequence[Pick],
) -> bool:
    """ "Do you repair trucks?" on a garage's site that never says "truck": a yes-or-no
    question matched only weakly by the words, with half its own words in none of the
    passages, asks about something they do not name, and the nearest passage (the cars
    the garage repairs) is no answer to it. Put to the business, its words are weighed
    by their rarity on the pages: a plumber's "install" and "water" are everywhere, the
    "water softeners" asked about nowhere. (A sentence that says it in other words may
    still be found by meaning, at the site's own bar.)"""
    if not picks or max(pick.lexical for pick in picks) >= WEAK_MATCH:
        return False
    if not asks_whether(request.question):
        return False
    asked = without_second_person(request.question)
    language = request.language
    if addresses_the_business(request.question):
        return missing_share(asked, language, chunks, indices) >= UNKNOWN_SHARE
    missing = words_missing(asked, language, chunks, indices)
    return len(missing) >= UNKNOWN_SHARE * len(question_terms(asked, language))
