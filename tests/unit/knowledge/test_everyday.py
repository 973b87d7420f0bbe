"""Everyday requests as the site's model reads them (`knowledge/search/everyday.py`): the shipped
vectors, their bar, and the build's split of shipped and calibration rows."""

from __future__ import annotations

import numpy as np
import pytest

from frontdesk.knowledge.data.build_everyday import split_rows
from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING
from frontdesk.knowledge.search.everyday import (
    EverydayRequests,
    EverydaySimilarity,
    artifact_path,
    load_everyday,
    reads_as_everyday,
)

pytestmark = pytest.mark.unit


def _unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_nearest_is_the_best_cosine_with_any_request() -> None:
    requests = EverydayRequests("test:model", np.vstack([_unit(1, 0, 0), _unit(0, 1, 0)]), 0.9)
    assert requests.nearest(_unit(0, 1, 0)) == pytest.approx(1.0)
    assert requests.nearest(_unit(1, 1, 0)) == pytest.approx(0.7071, abs=1e-4)
    with pytest.raises(ValueError, match="2-dimensional"):
        requests.nearest(np.ones(2))


def test_reads_as_everyday_at_or_above_the_bar_and_never_without_a_signal() -> None:
    assert reads_as_everyday(0.90, 0.88)
    assert reads_as_everyday(0.88, 0.88)
    assert not reads_as_everyday(0.87, 0.88)
    assert not reads_as_everyday(None, 0.88)
    assert not reads_as_everyday(0.99, None)
    assert EverydaySimilarity(nearest=0.95, bar=0.88).reads_as_everyday
    assert not EverydaySimilarity(nearest=0.80, bar=0.88).reads_as_everyday


def test_the_default_model_ships_its_requests_and_another_model_has_none() -> None:
    shipped = load_everyday(DEFAULT_EMBEDDING)
    assert shipped is not None
    assert artifact_path(DEFAULT_EMBEDDING).name == "everyday-multilingual-e5-small.npz"
    rows, dims = shipped.vectors.shape
    assert rows >= 1000 and dims == 384
    assert np.allclose(np.linalg.norm(shipped.vectors, axis=1), 1.0, atol=1e-2)
    assert 0.8 < shipped.bar < 0.95
    # A request read against the shipped rows is as close to itself as it gets.
    assert shipped.nearest(shipped.vectors[7]) == pytest.approx(1.0, abs=1e-2)
    assert load_everyday("local:all-MiniLM-L6-v2") is None
    assert load_everyday("openai:text-embedding-3-small") is None


def test_calibration_rows_are_never_shipped() -> None:
    texts = [f"row {i}" for i in range(100)]
    shipped, calibration = split_rows(texts, per_intent=10, calibrate=6)
    assert len(shipped) == 10 and len(calibration) == 6
    assert not set(shipped) & set(calibration)
    few = [f"row {i}" for i in range(5)]
    shipped, calibration = split_rows(few, per_intent=10, calibrate=6)
    assert shipped == few and calibration == []
