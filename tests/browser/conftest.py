"""Browser fixtures: Debian's Chromium via Playwright, and live Frontdesk servers on loopback.

Never downloads a browser: tests are skipped when /usr/bin/chromium is missing
(`make browser-deps` installs it with apt when run as root).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    RECORD_EVENTS,
    Server,
    StartServer,
    write_sites,
)
from live_server import LiveServer, free_port
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.conversation.backend import ChatBackend
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    missing = None
    if not CHROMIUM.exists():
        missing = "/usr/bin/chromium is missing (run `make browser-deps` as root)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "playwright (Python) is not installed"
    if missing:
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=missing))


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope: Playwright's sync API keeps an event loop running in this thread while
    # it is open, and every async test that runs later would find it and fail.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    ctx.add_init_script(RECORD_EVENTS)
    yield ctx
    ctx.close()


@pytest.fixture
def start_server(tmp_path: Path, sites_dir: Path) -> Iterator[StartServer]:
    """Start Frontdesk on a free loopback port; the demo site allows that origin."""
    stack = ExitStack()

    def start(
        backend: ChatBackend | None = None,
        data_dir: Path | None = None,
        widget: dict[str, Any] | None = None,
        more_origins: tuple[str, ...] = (),
    ) -> Server:
        port = free_port()
        write_sites(sites_dir, f"http://127.0.0.1:{port}", widget, more_origins)
        settings = Settings(data_dir=data_dir or tmp_path / "data", sites_dir=sites_dir)
        runtime = build_runtime(settings)
        stack.callback(runtime.close)
        app = create_app(settings, runtime, backend)
        live = LiveServer(app, port).start()
        stack.callback(live.stop)
        return Server(live=live, runtime=runtime, backend=backend)

    yield start
    stack.close()


@pytest.fixture
def scripted_server(start_server: StartServer) -> Server:
    """A live server whose chat backend is the scripted test double (not the graph)."""
    return start_server(ScriptedBackend())
