"""The demo page answers on whatever port the server listens on, and a page on the
developer's machine that the site does not allow tells them, in the widget, what to add."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import HostSite, widget
from live_server import LiveServer, free_port
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.browser


@pytest.fixture
def demo_server(tmp_path: Path, sites_dir: Path) -> Iterator[tuple[LiveServer, Runtime]]:
    """The bundled demo site file as shipped (no test origin added), served on a free
    port that the settings name, as `frontdesk demo --port N` does."""
    port = free_port()
    settings = Settings(data_dir=tmp_path / "data", sites_dir=sites_dir, port=port)
    runtime = build_runtime(settings)
    live = LiveServer(create_app(settings, runtime, ScriptedBackend()), port).start()
    try:
        yield live, runtime
    finally:
        live.stop()
        runtime.close()


def _ask(page: Any, question: str) -> None:
    from playwright.sync_api import expect

    page.wait_for_function("customElements.get('frontdesk-chat') !== undefined")
    if not widget(page, ".panel").is_visible():  # the widget reopens as it was left
        widget(page, ".launcher").click()
    if widget(page, ".gdpr-ok").is_visible():  # acknowledged once per browser
        widget(page, ".gdpr-ok").click()
    expect(widget(page, "textarea")).to_be_enabled()
    widget(page, "textarea").fill(question)
    widget(page, "textarea").press("Enter")


def test_the_demo_page_answers_on_its_own_port(
    context: Any, demo_server: tuple[LiveServer, Runtime]
) -> None:
    from playwright.sync_api import expect

    live, _ = demo_server
    for base in (live.url, f"http://localhost:{live.port}"):
        page = context.new_page()
        page.goto(f"{base}/")
        _ask(page, "What is Tessellate Flow?")
        expect(widget(page, '.turn.assistant[data-state="complete"]')).to_have_count(1)
        expect(widget(page, ".fallback")).to_be_hidden()
        page.close()


def test_a_refused_page_on_localhost_shows_what_to_add(
    context: Any, demo_server: tuple[LiveServer, Runtime]
) -> None:
    from playwright.sync_api import expect

    live, runtime = demo_server
    key = runtime.sites["demo"].config.widget.public_key
    port = free_port()
    page_origin = f"http://localhost:{port}"
    html = (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Dev</title></head>"
        f'<body><script src="{live.url}/widget.js" defer></script>'
        f'<frontdesk-chat api-url="{live.url}" site-key="{key}" proactive-delay-ms="off" '
        'fallback-url="https://example.com/contact"></frontdesk-chat></body></html>'
    )
    with HostSite(port) as dev_site:
        dev_site.serve("/", html)
        page = context.new_page()
        page.goto(f"{page_origin}/")
        _ask(page, "Hello?")
        hint = widget(page, ".fallback .owner-hint")
        expect(hint).to_be_visible()
        expect(hint).to_contain_text(f"{page_origin} is not in widget.allowed_origins")
        expect(hint).to_contain_text(live.url)  # what the site allows today
        # Fixed and reloaded, the widget works again: the refusal was not remembered.
        runtime.sites["demo"].config.widget.allowed_origins.append(page_origin)
        page.reload()
        _ask(page, "Hello?")
        expect(widget(page, '.turn.assistant[data-state="complete"]')).to_have_count(1)
