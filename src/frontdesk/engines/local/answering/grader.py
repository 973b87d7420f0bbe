"""Document grading for the local engine (Corrective RAG).

A passage is relevant when enough of the question's content terms occur in it (title,
heading path and text; a longer or shorter form of a word counts, as "blanquearme" asked
and "blanqueamiento" written: stemmers of inflected languages leave them apart), when the
retriever's cosine is high, or when both are moderate.
A product code in the question (`ERR-1004`, `E20`) must occur in the passage: a page
about a neighbouring code is not an answer. Booleans are honest; keeping the top hit
as a fallback is the graph's decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from frontdesk.engines.local.answering.quoting import passage_support
from frontdesk.engines.local.answering.text import (
    chunk_terms,
    codes,
    coverage,
    guess_language,
    question_terms,
)
from frontdesk.knowledge.models import RetrievedChunk


@dataclass(frozen=True)
class GradeThresholds:
    lexical: float = 0.5  # relevant on term coverage alone
    dense: float = 0.55  # relevant on cosine alone
    mixed_lexical: float = 0.34  # relevant when both reach these
    mixed_dense: float = 0.3


def lexical_match(question: str, chunk: RetrievedChunk, language: str) -> float:
    """Share of the question's content terms found in the passage, in [0, 1]."""
    needed = question_terms(question, language)
    if not needed:
        return 0.0
    return coverage(needed, chunk_terms(chunk, language))


def mentions_codes(question: str, chunk: RetrievedChunk) -> bool:
    """False when the question names a code the passage does not contain."""
    asked = codes(question)
    if not asked:
        return True
    text = " ".join((chunk.title, *chunk.heading_path, chunk.content))
    return bool(asked & codes(text))


class LocalDocumentGrader:
    """`DocumentGraderJob` from term overlap and the retriever's cosine."""

    def __init__(self, thresholds: GradeThresholds | None = None) -> None:
        self.thresholds = thresholds or GradeThresholds()

    def is_relevant(self, question: str, chunk: RetrievedChunk, language: str) -> bool:
        if not mentions_codes(question, chunk):
            return False
        limits = self.thresholds
        lexical = max(
            lexical_match(question, chunk, language),
            passage_support(question_terms(question, language), chunk, language),
        )
        dense = max(chunk.score, 0.0)
        return (
            lexical >= limits.lexical
            or dense >= limits.dense
            or (lexical >= limits.mixed_lexical and dense >= limits.mixed_dense)
        )

    async def grade(self, question: str, chunks: Sequence[RetrievedChunk]) -> list[bool]:
        language = guess_language(question)
        return [self.is_relevant(question, chunk, language) for chunk in chunks]
