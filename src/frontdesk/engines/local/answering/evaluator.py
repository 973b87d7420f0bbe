"""Self-critique for the local engine (FULLY / PARTIALLY / CANNOT).

Coverage is read from the question's key terms (content terms and product codes):
- `none`: no passages, an answer citing no existing passage, a code asked about that
  no passage contains, or none of the key terms in any passage;
- `full`: most key terms (≥ 75 %) are in the passages and at least half are in the
  answer or in the headings of the passages it cites;
- `partial` otherwise.
`relevance` (0–1) is 0.6 × passage coverage + 0.4 × answer coverage. `quality` (0–1)
scales relevance by citation validity and coverage. Both are rounded to 3 decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from frontdesk.engines.base import Evaluation
from frontdesk.engines.local.answering.parts import names_missing
from frontdesk.engines.local.answering.text import (
    chunk_terms,
    cited_indices,
    codes,
    coverage,
    guess_language,
    heading_terms,
    proper_names,
    question_terms,
    strip_citations,
    term_set,
)
from frontdesk.knowledge.models import RetrievedChunk

Coverage = Literal["full", "partial", "none"]
FULL_PASSAGES = 0.75
FULL_ANSWER = 0.5
CROSS_LANGUAGE_SCORE = 0.5  # a cited passage this close counts when no term is shared
_COVERAGE_FACTOR: dict[str, float] = {"full": 1.0, "partial": 0.7, "none": 0.3}


class LocalAnswerEvaluator:
    """`AnswerEvaluatorJob` from key-term coverage and citation checks."""

    async def evaluate(
        self, question: str, answer: str, chunks: Sequence[RetrievedChunk]
    ) -> Evaluation:
        language = guess_language(question)
        key = question_terms(question, language)
        cited_all = cited_indices(answer)
        cited = sorted(n for n in cited_all if 1 <= n <= len(chunks))
        invalid = sorted(cited_all - set(cited))
        in_passages: frozenset[str] = frozenset().union(
            *(chunk_terms(chunk, language) for chunk in chunks)
        )
        in_answer = term_set(strip_citations(answer), language).union(
            *(heading_terms(chunks[n - 1], language) for n in cited)
        )
        passage_cover = coverage(key, in_passages) if chunks else 0.0
        answer_cover = coverage(key, in_answer) if cited else 0.0
        passages_text = " ".join(_texts(chunks))
        missing_codes = sorted(codes(question) - codes(passages_text))
        missing_names = sorted(
            name
            for name in proper_names(question, language)
            if name.casefold() not in passages_text.casefold()
        )
        best_cited = max((chunks[n - 1].score for n in cited), default=0.0)

        several_unknown = False
        if missing_names and not names_missing(question, language, passages_text):
            # Several questions, one about something the passages lack: the writer names
            # it as unknown; the others still count (partial, not none).
            missing_names, several_unknown = [], True
        label: Coverage
        if not chunks or not cited or missing_codes or missing_names:
            label = "none"
        elif key and passage_cover == 0.0:
            label = "partial" if best_cited >= CROSS_LANGUAGE_SCORE else "none"
        elif passage_cover >= FULL_PASSAGES and answer_cover >= FULL_ANSWER and not several_unknown:
            label = "full"
        else:
            label = "partial"

        relevance = 0.6 * passage_cover + 0.4 * answer_cover
        if label != "none" and key and passage_cover == 0.0:
            relevance = max(relevance, 0.5 * best_cited)
        citation_factor = 1.0 if cited and not invalid else 0.5 if cited else 0.2
        quality = relevance * citation_factor * _COVERAGE_FACTOR[label]
        reasoning = (
            f"key terms {len(key)}: {passage_cover:.0%} in passages, {answer_cover:.0%} in "
            f"answer; cited {cited or 'nothing'}"
            + (f"; invalid citations {invalid}" if invalid else "")
            + (f"; codes not in passages {missing_codes}" if missing_codes else "")
            + (f"; names not in passages {missing_names}" if missing_names else "")
        )
        return Evaluation(
            quality=round(min(quality, 1.0), 3),
            relevance=round(min(relevance, 1.0), 3),
            coverage=label,
            reasoning=reasoning,
        )


def _texts(chunks: Sequence[RetrievedChunk]) -> list[str]:
    return [" ".join((chunk.title, *chunk.heading_path, chunk.content)) for chunk in chunks]
