"""Shared fixtures: a throwaway data folder per test and the bundled demo site files."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import DEMO_DIR, Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = REPO_ROOT.parent / "shared" / "datasets"
DEMO_SITES_DIR = DEMO_DIR / "sites"


@pytest.fixture(scope="session")
def _model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache of converted models for the whole run (e5's ONNX graph takes seconds to
    build; every test and the subprocesses it starts reuse it)."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(autouse=True)
def _isolated_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, _model_cache: Path
) -> None:
    # No test may read the developer's FRONTDESK_* settings or write into the repo.
    import os

    for name in list(os.environ):
        if name.startswith("FRONTDESK_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("FRONTDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FRONTDESK_MODEL_CACHE", str(_model_cache))
    # Tests serve exactly the sites of their folder (the bundled demo is added only when a
    # test asks for it: tests/integration/console/test_console_pages.py).
    monkeypatch.setenv("FRONTDESK_DEMO_SITE", "false")
    # Uploads queue trust reports; a test that wants one run in the app turns this on.
    monkeypatch.setenv("FRONTDESK_TRUST_IN_PROCESS", "false")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from frontdesk.settings import get_settings

    get_settings.cache_clear()


@pytest.fixture
def sites_dir(tmp_path: Path) -> Path:
    """A writable copy of the demo site files (knowledge sources stay pointing at the demo)."""
    target = tmp_path / "sites"
    shutil.copytree(DEMO_SITES_DIR, target)
    demo = target / "demo.yaml"
    demo.write_text(
        demo.read_text(encoding="utf-8").replace("[../kb]", f"[{DEMO_DIR / 'kb'}]"),
        encoding="utf-8",
    )
    return target


@pytest.fixture
def settings(tmp_path: Path, sites_dir: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", sites_dir=sites_dir)


@pytest.fixture
def runtime(settings: Settings) -> Iterator[Runtime]:
    rt = build_runtime(settings)
    yield rt
    rt.close()


def demo_sites(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "demo.yaml"
    text = (DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8")
    target.write_text(text.replace("[../kb]", f"[{DEMO_DIR / 'kb'}]"), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def ingested_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings of a data folder whose demo knowledge base is already ingested."""
    root = tmp_path_factory.mktemp("demo")
    settings = Settings(data_dir=root / "data", sites_dir=demo_sites(root / "sites"))
    runtime = build_runtime(settings)
    ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
    runtime.close()
    yield settings
    shutil.rmtree(root, ignore_errors=True)
