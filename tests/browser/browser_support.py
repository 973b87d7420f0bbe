"""Support for browser tests: Chromium settings, artifacts folder, live servers."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

API_TESTS = Path(__file__).resolve().parents[1] / "integration" / "api"
if str(API_TESTS) not in sys.path:
    sys.path.insert(0, str(API_TESTS))

from live_server import LiveServer, free_port  # noqa: E402

from frontdesk.runtime import Runtime  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
EVENT_NAMES = [
    "chat_opened",
    "first_message_sent",
    "qualification_state_changed",
    "contact_captured",
    "escalation_triggered",
    "conversation_ended",
    "fallback_activated",
    "gdpr_acknowledged",
]
RECORD_EVENTS = "window.__fd = [];" + "".join(
    f"document.addEventListener('frontdesk:{name}', e => window.__fd.push("
    f"{{name: '{name}', detail: e.detail}}));"
    for name in EVENT_NAMES
)


class HostSite:
    """Another website on loopback (its own origin) serving fixed pages with the headers
    given: a company site that embeds the widget from the Frontdesk origin."""

    def __init__(self, port: int | None = None) -> None:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import HTMLResponse, Response
        from starlette.routing import Route

        self.pages: dict[str, tuple[str, dict[str, str]]] = {}

        async def page(request: Request) -> Response:
            found = self.pages.get(request.url.path)
            if found is None:
                return Response("not found", status_code=404)
            return HTMLResponse(found[0], headers=found[1])

        app = Starlette(routes=[Route("/{path:path}", page)])
        self.live = LiveServer(app, port or free_port())

    @property
    def url(self) -> str:
        return self.live.url

    def serve(self, path: str, html: str, headers: dict[str, str] | None = None) -> None:
        self.pages[path] = (html, headers or {})

    def __enter__(self) -> HostSite:
        self.live.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.live.stop()


@dataclass
class Server:
    live: LiveServer
    runtime: Runtime
    backend: Any

    @property
    def url(self) -> str:
        return self.live.url


StartServer = Callable[..., Server]


def write_sites(
    sites_dir: Path,
    origin: str,
    widget: dict[str, Any] | None = None,
    more_origins: tuple[str, ...] = (),
) -> None:
    """The demo site allows `origin` (and `more_origins`); `widget` adds widget settings."""
    demo_file = sites_dir / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo["widget"]["allowed_origins"] = [*demo["widget"]["allowed_origins"], origin, *more_origins]
    demo["widget"].update(widget or {})
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")
