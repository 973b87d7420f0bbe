"""The widget speaks in its site's register: a German page on a formal site says "Sie",
on an informal one "du" — its labels, its notice and its greeting — in headless Chromium
against a live server on loopback (scripted chat backend: only the widget is tested)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from browser_support import Server, StartServer
from scripted_backend import ScriptedBackend

pytestmark = pytest.mark.browser

WIDGET = "frontdesk-chat"


def widget(page: Any, selector: str) -> Any:
    return page.locator(f"{WIDGET} {selector}")


def set_tone(sites_dir: Path, tone: str) -> None:
    demo_file = sites_dir / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo["tone"] = tone
    demo["texts"] = {}  # the demo's own wording is formal; an informal site writes its own
    demo["pricing_reply"] = {}
    demo["starter_questions"] = {}
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")


def open_german_widget(page: Any, server: Server, attributes: str = "") -> None:
    key = server.runtime.sites["demo"].config.widget.public_key
    html = (
        "<!doctype html><html lang=de><head><meta charset=utf-8></head><body>"
        '<script src="/widget.js" defer></script>'
        f'<frontdesk-chat api-url="/" site-key="{key}" fallback-url="https://acme.example/k" '
        f'proactive-delay-ms="off" {attributes}></frontdesk-chat></body></html>'
    )
    page.route("**/tone", lambda r: r.fulfill(status=200, content_type="text/html", body=html))
    with page.expect_response(lambda r: "/v1/widget/config" in r.url):
        page.goto(f"{server.url}/tone")
    widget(page, ".launcher").click()


def test_a_formal_site_says_sie_everywhere(context: Any, start_server: StartServer) -> None:
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend())
    page = context.new_page()
    open_german_widget(page, server)
    expect(widget(page, "#fd-title")).to_have_text("Schreiben Sie uns")
    expect(widget(page, "textarea")).to_have_attribute("placeholder", "Stellen Sie eine Frage…")
    expect(widget(page, ".gdpr-text")).to_contain_text("Wenn Sie fortfahren")
    widget(page, ".gdpr-ok").click()
    expect(widget(page, ".greeting .bubble")).to_contain_text("Fragen Sie mich")


def test_an_informal_site_says_du_everywhere(
    context: Any, start_server: StartServer, sites_dir: Path
) -> None:
    from playwright.sync_api import expect

    set_tone(sites_dir, "informal")
    server = start_server(ScriptedBackend())
    page = context.new_page()
    open_german_widget(page, server)
    expect(widget(page, "#fd-title")).to_have_text("Schreib uns")
    expect(widget(page, "textarea")).to_have_attribute("placeholder", "Stell eine Frage…")
    expect(widget(page, ".gdpr-text")).to_contain_text("Wenn du fortfährst")
    widget(page, ".gdpr-ok").click()
    expect(widget(page, ".greeting .bubble")).to_contain_text("Frag mich")
    text = widget(page, ".panel").inner_text()
    assert " Sie " not in f" {text} ", text


def test_the_tone_attribute_wins(context: Any, start_server: StartServer, sites_dir: Path) -> None:
    from playwright.sync_api import expect

    set_tone(sites_dir, "informal")
    server = start_server(ScriptedBackend())
    page = context.new_page()
    open_german_widget(page, server, 'tone="formal"')
    expect(widget(page, "#fd-title")).to_have_text("Schreiben Sie uns")
    page.wait_for_timeout(300)  # the site's config has arrived: the attribute still wins
    expect(widget(page, "textarea")).to_have_attribute("placeholder", "Stellen Sie eine Frage…")
