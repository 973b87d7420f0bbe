"""The question read by the site's embedding model: its nearness to each kind of fact and
to the services a site prices. Compute only (no store, no network)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from frontdesk.facts.answer import KIND_DESCRIPTIONS, KIND_MARGINS
from frontdesk.facts.extract import LISTED
from frontdesk.facts.model import SiteFact

if TYPE_CHECKING:  # the knowledge package imports this module while it loads
    from frontdesk.knowledge.embeddings import Embedder, Matrix

_cache: dict[str, Matrix] = {}
_lock = threading.Lock()


_OWNERS = [kind for kind, texts in KIND_DESCRIPTIONS.items() for _ in texts]


def _descriptions(embedder: Embedder) -> Matrix:
    with _lock:
        vectors = _cache.get(embedder.name)
    if vectors is None:
        texts = [text for texts in KIND_DESCRIPTIONS.values() for text in texts]
        vectors = embedder.embed_documents(texts)
        with _lock:
            _cache[embedder.name] = vectors
    return vectors


def kind_scores(embedder: Embedder, question: str) -> dict[str, float]:
    """Each kind of `KIND_DESCRIPTIONS`: the cosine of the question to its nearest text."""
    query = embedder.embed_query(question).reshape(-1)
    scores: dict[str, float] = {}
    for kind, score in zip(_OWNERS, _descriptions(embedder) @ query, strict=True):
        scores[kind] = max(scores.get(kind, -1.0), float(score))
    return scores


def service_scores(embedder: Embedder, question: str, prices: tuple[SiteFact, ...]) -> list[float]:
    """Cosine of the question to each priced service's label."""
    if not prices:
        return []
    query = embedder.embed_query(question).reshape(-1)
    labels = embedder.embed_documents([fact.label for fact in prices])
    return [float(score) for score in np.asarray(labels @ query).reshape(-1)]


def confirmed(facts: Sequence[SiteFact], embedder: Embedder) -> tuple[SiteFact, ...]:
    """The facts with listed candidates (`extract.listed_candidates`) kept only where the
    line they were listed on reads as payment methods, clearly nearer than every other
    kind (the model's margin); a model without margins keeps none."""
    margins = KIND_MARGINS.get(embedder.name)
    verdicts: dict[str, bool] = {}
    kept: list[SiteFact] = []
    for fact in facts:
        if fact.note != LISTED:
            kept.append(fact)
            continue
        if fact.label not in verdicts:
            ok = False
            if margins is not None:
                ranked = sorted(kind_scores(embedder, fact.label).items(), key=lambda i: -i[1])
                ok = ranked[0][0] == "payment" and ranked[0][1] - ranked[1][1] >= margins.least
            verdicts[fact.label] = ok
        if verdicts[fact.label]:
            kept.append(replace(fact, note=""))
    return tuple(kept)
