"""The embedding interface every model implements, below the models themselves.

`knowledge/embedding/embedders.py` picks a model by name; the e5 runtimes beside it and
the packages that only hold an embedder (engines, facts, the conversation) need just this
interface, so none of them imports the module that builds the models.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float32]


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or failed to embed."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into normalised vectors. `name` keys caches and indexes."""

    @property
    def name(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> Matrix: ...

    def embed_query(self, text: str) -> Matrix: ...


def normalise(matrix: NDArray[Any]) -> Matrix:
    rows = np.asarray(matrix, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows.reshape(1, -1)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(rows / norms, dtype=np.float32)
