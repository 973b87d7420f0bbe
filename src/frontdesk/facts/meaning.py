"""The question read by the site's embedding model: its nearness to each kind of fact and
to the services a site prices. Compute only (no store, no network)."""

from __future__ import annotations

import threading

import numpy as np

from frontdesk.facts.answer import KIND_DESCRIPTIONS
from frontdesk.facts.model import SiteFact
from frontdesk.knowledge.embeddings import Embedder, Matrix

_cache: dict[str, Matrix] = {}
_lock = threading.Lock()


def _descriptions(embedder: Embedder) -> Matrix:
    with _lock:
        vectors = _cache.get(embedder.name)
    if vectors is None:
        vectors = embedder.embed_documents(list(KIND_DESCRIPTIONS.values()))
        with _lock:
            _cache[embedder.name] = vectors
    return vectors


def kind_scores(embedder: Embedder, question: str) -> dict[str, float]:
    """Cosine of the question to each description of `KIND_DESCRIPTIONS`."""
    query = embedder.embed_query(question).reshape(-1)
    scores = _descriptions(embedder) @ query
    return {name: float(score) for name, score in zip(KIND_DESCRIPTIONS, scores, strict=True)}


def service_scores(embedder: Embedder, question: str, prices: tuple[SiteFact, ...]) -> list[float]:
    """Cosine of the question to each priced service's label."""
    if not prices:
        return []
    query = embedder.embed_query(question).reshape(-1)
    labels = embedder.embed_documents([fact.label for fact in prices])
    return [float(score) for score in np.asarray(labels @ query).reshape(-1)]
