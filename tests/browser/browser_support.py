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


def new_context(
    browser: Any, viewport: tuple[int, int] = (1280, 800), locale: str = "en-US"
) -> Any:
    """A fresh browser context (its own cookies and storage) recording the widget's events,
    its browser language `locale`."""
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    context.add_init_script(RECORD_EVENTS)
    return context


def widget(page: Any, selector: str) -> Any:
    """A locator inside the widget's shadow root (Playwright's CSS pierces open roots)."""
    return page.locator(f"frontdesk-chat {selector}")


def sign_in(page: Any, url: str, email: str, password: str, target: str = "/console") -> None:
    """Open `target` signed out, sign in on the page it redirects to, land on the console."""
    from playwright.sync_api import expect

    page.goto(f"{url}{target}")
    expect(page.locator('input[name="email"]')).to_be_visible()  # the sign-in form, any language
    page.fill('input[name="email"]', email)
    page.fill('input[name="password"]', password)
    page.click('button[type="submit"]')
    expect(page.locator("nav.pages")).to_be_visible()


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
