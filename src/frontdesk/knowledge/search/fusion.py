"""Two models' searches of one site, fused chunk by chunk.

On an English site a second, English-trained model keeps its own index of the pages in
its own chunks (`knowledge/companion.py`). The default model's search decides what may
be returned — its relevance threshold applies to its cosines, as on every site — and the
second model's ranking only reorders: each chunk of the default search scores the
reciprocal of its own rank there plus `SECOND_MODEL_WEIGHT` × the reciprocal of its
document's rank in the second model's search, and chunks are ordered by that score
(ties keep the default order). A document the second model ranks high lifts its chunks,
but a weak chunk of it does not pass the best chunk of the next document: the answer
reads passages of several pages, as with one model. Ordering whole documents instead
(every chunk of the first page, then the second's) often left one page in the top five:
the demo's answer accuracy fell from 0.777 to 0.723-0.755, where chunk by chunk it stays
0.777. The weight below one keeps the default model's order where the two disagree
(benchmarks/RESULTS.md, "Ways to combine the two models"). A document only the second
model found has no chunk above the threshold and is not added.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk
from frontdesk.knowledge.search.query import is_case_study

# The second model's share of a chunk's fused score, against the default model's 1.
SECOND_MODEL_WEIGHT = 0.75


def document_order(chunks: Sequence[RetrievedChunk]) -> list[str]:
    """Documents in the order of their best chunk."""
    return list(dict.fromkeys(chunk.doc_id for chunk in chunks))


def fused_scores(
    chunk_documents: Sequence[str], other: Sequence[str], *, k: int, weight: float
) -> list[float]:
    """Pure: per chunk (the document of each, best first), 1/(k + its rank) plus `weight`
    / (k + its document's rank in `other`), nothing for a document `other` lacks."""
    second = {doc_id: rank for rank, doc_id in enumerate(other, start=1)}
    return [
        1.0 / (k + rank) + (weight / (k + second[doc_id]) if doc_id in second else 0.0)
        for rank, doc_id in enumerate(chunk_documents, start=1)
    ]


def reordered(
    result: RetrievalResult,
    other: Sequence[str],
    *,
    k: int,
    top_k: int,
    proactive_threshold: float | None,
    weight: float = SECOND_MODEL_WEIGHT,
) -> RetrievalResult:
    """`result`'s chunks ordered by their fused score with the document ranking `other`
    of a second model, cut to `top_k`; scores, threshold and top score unchanged."""
    if result.status != "ok" or not result.chunks:
        return result
    scores = fused_scores([chunk.doc_id for chunk in result.chunks], other, k=k, weight=weight)
    # sorted() is stable: equal scores keep the default search's order.
    order = sorted(range(len(result.chunks)), key=lambda i: -scores[i])
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
