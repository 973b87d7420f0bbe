"""The question read by the site's embedding model: its nearness to each kind of fact and
to the services a site prices. Compute only (no store, no network)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from frontdesk.facts.answer import KIND_MARGINS
from frontdesk.facts.kinds import KIND_TEXTS
from frontdesk.facts.lines import LISTED
from frontdesk.facts.model import SiteFact

if TYPE_CHECKING:  # the knowledge package imports this module while it loads
    from frontdesk.text.embedding import Embedder, Matrix

_cache: dict[tuple[str, str], tuple[list[str], Matrix]] = {}
_lock = threading.Lock()


def _descriptions(embedder: Embedder, language: str) -> tuple[list[str], Matrix]:
    """Each text's kind and vector, for the texts of one language."""
    key = (embedder.name, language)
    with _lock:
        known = _cache.get(key)
    if known is None:
        pairs = [
            (kind, text)
            for kind, by_language in KIND_TEXTS.items()
            for text in by_language.get(language, ())
        ]
        known = ([kind for kind, _ in pairs], embedder.embed_documents([t for _, t in pairs]))
        with _lock:
            _cache[key] = known
    return known


def _reading(query: Matrix, owners: list[str], vectors: Matrix) -> dict[str, float]:
    scores: dict[str, float] = {}
    for kind, score in zip(owners, vectors @ query, strict=True):
        scores[kind] = max(scores.get(kind, -1.0), float(score))
    return scores


def _margin(scores: dict[str, float]) -> float:
    first, second = sorted(scores.values(), reverse=True)[:2]
    return first - second


def kind_scores(embedder: Embedder, question: str, language: str = "en") -> dict[str, float]:
    """Each kind of fact (`kinds.yaml`): the cosine of the question to its nearest text,
    read against the English texts and against those of the question's `language`; the
    reading that sets its nearest kind further apart from the next counts. (One reading
    of both sets mixes the two scales: same-language cosines run higher, so a kind wins
    on sentence shape as much as on topic.)"""
    query = embedder.embed_query(question).reshape(-1)
    readings = [_reading(query, *_descriptions(embedder, "en"))]
    if language != "en" and any(language in texts for texts in KIND_TEXTS.values()):
        readings.append(_reading(query, *_descriptions(embedder, language)))
    return max(readings, key=_margin)


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
