"""Conversation acts as the site's own embedding model reads them: the second reader
beside the intent model's act head (`engines/local/acts.py`).

The act head learns from character n-grams of a few hundred rows, so a phrasing it never
saw ("Come stai?", "Nos vemos", "Конечно") slips through. For its default embedding model
the product ships the vectors of known acts — the project's own rows in eight languages
(`engines/local/data/phrases`, rows ending in `~act`) and the CLINC150 train split's
greetings, goodbyes, thanks, yes and no; never a validation row — and a bar: the
similarity to the nearest act that only 1 % of Frontdesk's own training questions and
everyday requests reach (`data/build_acts.py`). A short message at or above the bar is the
act of its nearest row. A site on another embedding model has the act head alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from frontdesk.knowledge.search import shipped

# The acts, one vocabulary for every engine and the conversation. What a message is on its
# own, whatever the business: each act has its own short reply
# (`conversation/texts.yaml`, `act.*`). A message that also asks or states something is
# no act: it is answered.
Act = Literal["greeting", "how_are_you", "thanks", "goodbye", "yes", "no", "email", "phone"]
ACTS: tuple[Act, ...] = (
    "greeting",
    "how_are_you",
    "thanks",
    "goodbye",
    "yes",
    "no",
    "email",
    "phone",
)


def artifact_path(model: str) -> Path:
    """`local:multilingual-e5-small` → `data/acts-multilingual-e5-small.npz`."""
    return shipped.artifact_path("acts", model)


@dataclass(frozen=True)
class ActExamples:
    """Shipped act vectors of one embedding model, their acts and the bar."""

    model: str
    vectors: NDArray[np.float32]  # one unit vector per row, as the model embeds queries
    acts: tuple[Act, ...]  # the act of each row
    bar: float

    def read(self, vector: NDArray[Any]) -> Act | None:
        """The act of the nearest row when `vector` (a unit query vector) is at least
        `bar` close to it, else None."""
        query = shipped.as_query(vector, self.vectors, self.model, "acts")
        similarities = self.vectors @ query
        nearest = int(np.argmax(similarities))
        return self.acts[nearest] if float(similarities[nearest]) >= self.bar else None


def as_act(label: str) -> Act:
    for act in ACTS:
        if act == label:
            return act
    raise ValueError(f"unknown act {label!r}")


@lru_cache(maxsize=4)
def load_acts(model: str) -> ActExamples | None:
    """The shipped acts of `model` (an embedding spec), or None when none were built."""
    data = shipped.read_artifact("acts", model)
    if data is None:
        return None
    return ActExamples(
        model=model,
        vectors=np.asarray(data["vectors"], dtype=np.float32),
        acts=tuple(as_act(str(label)) for label in data["acts"]),
        bar=float(data["bar"]),
    )
