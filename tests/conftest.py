"""Shared fixtures: a throwaway data folder per test and the bundled demo site files."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from tests.support.stacks import Stack, production_stack

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = REPO_ROOT.parent / "shared" / "datasets"
DEMO_SITES_DIR = DEMO_DIR / "sites"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`-n 2 --dist loadgroup`): Chromium tests run one at a time on one
    worker, and so do the llama.cpp server tests (two such heavy processes at once on two
    cores push each other past their timeouts); the tests of a module that share a
    module-scoped fixture (servers, replicas, a loaded model) stay on one worker, so it is
    built once."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        group = None
        if item.get_closest_marker("browser"):
            group = "chromium"
        elif item.get_closest_marker("llm_local"):
            group = "llama-server"
        else:
            info = getattr(item, "_fixtureinfo", None)
            definitions = info.name2fixturedefs.values() if info else ()
            if any(d.scope == "module" for defs in definitions for d in defs):
                group = item.nodeid.split("::")[0]
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


# Where the budget of `make test` goes, by tier: a test counts under its heaviest marker.
TIERS = ("llm_local", "browser", "postgres", "redis", "integration", "unit")
_tier_seconds: dict[str, float] = {}
_tier_tests: dict[str, set[str]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    tier = next((name for name in TIERS if name in report.keywords), "other")
    _tier_seconds[tier] = _tier_seconds.get(tier, 0.0) + report.duration
    _tier_tests.setdefault(tier, set()).add(report.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Test time per tier (setup, call and teardown; summed over xdist workers)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not _tier_seconds:
        return
    terminalreporter.section("time per tier")
    for tier in sorted(_tier_seconds, key=lambda name: -_tier_seconds[name]):
        terminalreporter.write_line(
            f"{tier:<12} {len(_tier_tests[tier]):>5} tests {_tier_seconds[tier]:>8.1f} s"
        )


def shared_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """A folder `build` fills once per run. Under pytest-xdist every worker gets the same
    folder (in the run's common temporary directory, built by the first worker under a file
    lock), so a slow session fixture is not rebuilt per worker; callers only read it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    folder = tmp_path_factory.getbasetemp().parent / f"shared-{name}"
    with open(f"{folder}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / ".built"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that died half way
            folder.mkdir(parents=True)
            build(folder)
            done.touch()
    return folder


def private_copy(data_dir: Path, target: Path) -> Path:
    """A copy of a shared, ingested data folder for a process that may write to it (servers
    keep answer-time vectors in the knowledge file): other xdist workers copy the original
    while this test runs, and must never see it half written."""
    shutil.copytree(data_dir, target)
    return target


def remove_unless_shared(folder: Path) -> None:
    """Session teardown of a `shared_once` folder: another worker may still read it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache of converted models for the whole run, shared by xdist workers (e5's ONNX
    graph takes seconds to build; every test and the subprocesses it starts reuse it; the
    graph is written atomically, so two workers building it at once is only wasted work).
    Set for the whole session, so session and module fixtures that embed (they are set up
    before `_isolated_environment`) never write into ~/.cache."""
    folder = shared_once(tmp_path_factory, "model-cache", lambda folder: None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FRONTDESK_MODEL_CACHE", str(folder))
        yield folder


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
    """Settings of a data folder whose demo knowledge base is already ingested (once per
    run, also under xdist: tests copy it or only read it)."""

    def build(root: Path) -> None:
        settings = Settings(data_dir=root / "data", sites_dir=demo_sites(root / "sites"))
        runtime = build_runtime(settings)
        ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
        runtime.close()

    root = shared_once(tmp_path_factory, "demo", build)
    yield Settings(data_dir=root / "data", sites_dir=root / "sites")
    remove_unless_shared(root)


@pytest.fixture(scope="session")
def _stack_template() -> Iterator[str]:
    """A migrated PostgreSQL database (pgvector included) the production stack copies."""
    from tests.support.stacks import drop_database, migrated_template

    name = migrated_template()
    yield name
    drop_database(name)


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("production", marks=[pytest.mark.postgres, pytest.mark.redis]),
    ]
)
def stack(request: pytest.FixtureRequest) -> Iterator[Stack]:
    """The stack a behavioural test runs on, once per stack: `sqlite` (one process, the
    embedded default) and `production` (two workers sharing PostgreSQL + pgvector and
    Redis, requests alternating between them). App fixtures that honour it (`make_api`,
    `console_app`, the live `replica`) build one app per worker; a test opts in with
    `@pytest.mark.usefixtures("stack")` or by naming it."""
    if request.param == "sqlite":
        yield Stack("sqlite")
        return
    yield from production_stack(request.getfixturevalue("_stack_template"))


def stack_of(request: pytest.FixtureRequest) -> Stack:
    """The test's stack if it asked for one, else the embedded default."""
    if "stack" in request.fixturenames:
        stack: Stack = request.getfixturevalue("stack")
        return stack
    return Stack("sqlite")
