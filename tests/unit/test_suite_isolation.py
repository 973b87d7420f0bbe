"""The suite's own isolation: fixtures set up before a test's environment is scrubbed (session
and module scope) still write converted models into the run's cache, never ~/.cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def cache_seen_by_module_fixture() -> str | None:
    return os.environ.get("FRONTDESK_MODEL_CACHE")


def test_module_fixtures_see_the_runs_model_cache(
    cache_seen_by_module_fixture: str | None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert cache_seen_by_module_fixture is not None
    run_root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run_root = run_root.parent  # shared by the workers of one run
    assert Path(cache_seen_by_module_fixture).is_relative_to(run_root)
    assert not Path(cache_seen_by_module_fixture).is_relative_to(Path.home() / ".cache")
