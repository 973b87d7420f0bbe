"""Everyday requests to a personal assistant, as the site's own embedding model reads them.

The intent classifier hears an everyday request ("off-topic"), and the site's content then
gets its say (`outcomes.supported_by_site`): a message whose best passage beats the site's
support bar is answered. A site about work, health or travel has passages *near* many
everyday requests — a COVID-at-work FAQ has a page on sick leave, so "I want to book
vacation days" or "did my vacation get approved yet" scored just above its bar and were
answered ("I couldn't find this"), not refused. What tells such a request apart is not the
site but the request: it reads as one of the everyday kinds a personal assistant is asked
for (book time off, check a balance, set an alarm...).

So the product ships, for its default embedding model, the vectors of a few public
everyday requests per kind (CLINC150 train, `data/build_everyday.py`; never the validation
split, never a site's questions) and a bar: the similarity to the nearest shipped request
that 90 % of unseen CLINC150 train requests reach, raised to what only 5 % of Frontdesk's
own training questions to a company reach (a question to a company should almost never
read as an everyday request). A message at or above that bar reads as one, and the site
must then support it by both signals at once (`outcomes.strongly_supported_by_site`), as a
conversation act needs. Nothing here refuses a message: it only asks more of the content.

A site on another embedding model gets no everyday signal (`load_everyday` returns None)
and keeps the single-signal rule. The requests are English; e5 reads other languages'
everyday requests about 0.05 lower against them, under the bar, so there the rule rarely
applies (measured in docs/evaluation.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontdesk.knowledge.search import shipped


def artifact_path(model: str) -> Path:
    """`local:multilingual-e5-small` → `data/everyday-multilingual-e5-small.npz`."""
    return shipped.artifact_path("everyday", model)


@dataclass(frozen=True)
class EverydayRequests:
    """Shipped everyday-request vectors of one embedding model and their bar."""

    model: str
    vectors: NDArray[np.float32]  # one unit vector per row, as the model embeds queries
    bar: float  # `nearest` at or above this reads as an everyday request

    def nearest(self, vector: NDArray[Any]) -> float:
        """Cosine of `vector` (a unit query vector) with its nearest everyday request."""
        query = shipped.as_query(vector, self.vectors, self.model, "everyday requests")
        return float(np.max(self.vectors @ query))


@dataclass(frozen=True)
class EverydaySimilarity:
    """One message against the everyday requests: its nearest cosine and the bar."""

    nearest: float
    bar: float

    @property
    def reads_as_everyday(self) -> bool:
        return reads_as_everyday(self.nearest, self.bar)


def reads_as_everyday(nearest: float | None, bar: float | None) -> bool:
    """Pure: the message is as close to a known everyday request as unseen everyday
    requests are (None — no signal for this model — never reads as one)."""
    return nearest is not None and bar is not None and nearest >= bar


@lru_cache(maxsize=4)
def load_everyday(model: str) -> EverydayRequests | None:
    """The shipped requests of `model` (an embedding spec such as
    `local:multilingual-e5-small`), or None when none were built for it."""
    data = shipped.read_artifact("everyday", model)
    if data is None:
        return None
    vectors = np.asarray(data["vectors"], dtype=np.float32)
    return EverydayRequests(model=model, vectors=vectors, bar=float(data["bar"]))
