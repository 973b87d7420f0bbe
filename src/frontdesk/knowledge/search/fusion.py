"""Two models' searches of one site, fused by document.

On an English site a second, English-trained model keeps its own index of the pages in
its own chunks (`knowledge/companion.py`). The default model's search decides what may
be returned — its relevance threshold applies to its cosines, as on every site — and the
second model's ranking only reorders: each document is ranked by the reciprocal ranks of
its best chunk in both searches, and the default search's chunks follow their document's
rank (within a document, in their own order). Two documents each model ranks one place
apart in opposite orders tie; the second model's order breaks the tie, since it is the
model trained on the question's language (on the English sets: StackFAQ MRR 0.970 against
0.962 when the default model's order broke ties, covid 0.737 against 0.755; NIH equal;
docs/knowledge.md). A document only the second model found has no chunk above the
threshold and is not added.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk
from frontdesk.knowledge.search.query import is_case_study


def document_order(chunks: Sequence[RetrievedChunk]) -> list[str]:
    """Documents in the order of their best chunk."""
    return list(dict.fromkeys(chunk.doc_id for chunk in chunks))


def fuse_documents(rankings: Sequence[Sequence[str]], k: int) -> dict[str, float]:
    """Reciprocal-rank score of every document over `rankings` (each best first)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    return scores


def reordered(
    result: RetrievalResult,
    other: Sequence[str],
    *,
    k: int,
    top_k: int,
    proactive_threshold: float | None,
) -> RetrievalResult:
    """`result`'s chunks ordered by their document's fused rank with the ranking `other`
    of a second model, cut to `top_k`; scores, threshold and top score unchanged."""
    if result.status != "ok" or not result.chunks:
        return result
    scores = fuse_documents([document_order(result.chunks), other], k)
    second = {doc_id: rank for rank, doc_id in enumerate(other)}
    order = sorted(
        range(len(result.chunks)),
        key=lambda i: (
            -scores[result.chunks[i].doc_id],
            second.get(result.chunks[i].doc_id, len(second)),
            i,
        ),
    )
    chunks = [result.chunks[i] for i in order][:top_k]
    first = chunks[0]
    return result.model_copy(
        update={
            "chunks": chunks,
            "proactive_case_study": bool(
                proactive_threshold is not None
                and is_case_study(first)
                and first.score >= proactive_threshold
            ),
        }
    )
