"""Vectors the product ships per embedding model (`data/<kind>-<model>.npz`, built by
`data/build_<kind>.py`): where they lie, how they are read, how a query meets them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

DATA = Path(__file__).resolve().parent.parent / "data"


def artifact_path(kind: str, model: str) -> Path:
    """`acts`, `local:multilingual-e5-small` → `data/acts-multilingual-e5-small.npz`."""
    name = model.split(":", 1)[-1].replace("/", "-")
    return DATA / f"{kind}-{name}.npz"


def read_artifact(kind: str, model: str) -> dict[str, NDArray[Any]] | None:
    """The arrays shipped for `model` (an embedding spec), or None when none were built;
    raises when the file was built for another model."""
    path = artifact_path(kind, model)
    if not path.is_file():
        return None
    with np.load(path) as data:
        if str(data["model"]) != model:
            raise ValueError(f"{path} holds {data['model']}, not {model}")
        return {key: data[key] for key in data.files}


def as_query(
    vector: NDArray[Any], rows: NDArray[np.float32], model: str, what: str
) -> NDArray[Any]:
    """`vector` as one float32 row, checked against the width of the shipped `rows`."""
    query = np.asarray(vector, dtype=np.float32).reshape(-1)
    if query.shape[0] != rows.shape[1]:
        raise ValueError(
            f"a {query.shape[0]}-dimensional vector against {model}'s "
            f"{rows.shape[1]}-dimensional {what}"
        )
    return query
