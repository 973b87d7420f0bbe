"""Accessibility and reach of the widget in Chromium: axe-core on the demo page with the
widget open (desktop and phone), keyboard-only use, full screen on a phone, right-to-left
layout, and a strict Content-Security-Policy on a company site of another origin."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import HostSite, Server, StartServer
from scripted_backend import ScriptedBackend
from test_widget import open_and_acknowledge, widget
from test_widget_continuity import COMPLETE, ask, host_page

from frontdesk.widget import widget_script

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
MAX_GZIPPED_BYTES = 40 * 1024


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Serious and critical violations on the page, the widget's shadow DOM included."""
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result: dict[str, Any] = page.evaluate("async () => await axe.run(document)")
    # axe names a node inside a shadow root by its path: [host, selector in the root].
    in_widget = [
        node
        for rule in result["passes"]
        for node in rule["nodes"]
        if isinstance(node["target"][0], list) and node["target"][0][0] == "frontdesk-chat"
    ]
    assert len(in_widget) > 20, "axe did not look inside the widget"
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


def without_policy(route: Any) -> None:
    route.fulfill(response=route.fetch(), headers={"content-type": "text/html"})


def describe(violations: list[dict[str, Any]]) -> str:
    return json.dumps(
        [
            {"id": v["id"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"][:3]]}
            for v in violations
        ],
        indent=1,
    )


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_axe_finds_no_serious_violation_with_the_widget_open(
    browser: Any, scripted_server: Server, artifacts: Path, width: int, height: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        # axe is injected as a script: the test bypasses the demo page's policy for it.
        page.route(f"{scripted_server.url}/", without_policy)
        page.goto(f"{scripted_server.url}/")
        open_and_acknowledge(page)
        ask(page, "What is Tessellate Flow?")
        violations = axe_violations(page)
        page.screenshot(path=str(artifacts / f"axe-{width}x{height}.png"))
        assert not violations, describe(violations)
    finally:
        context.close()


def test_phone_layout_is_full_screen_without_motion_and_closes_to_the_launcher(
    browser: Any, scripted_server: Server
) -> None:
    from playwright.sync_api import expect

    # Reduced motion: the panel appears without its slide-in animation.
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, reduced_motion="reduce"
    )
    try:
        page = context.new_page()
        page.goto(f"{scripted_server.url}/")
        widget(page, ".launcher").click()
        assert widget(page, ".panel").evaluate("n => getComputedStyle(n).animationName") == "none"
        box = widget(page, ".panel").bounding_box()
        assert box is not None
        assert (box["x"], box["y"], box["width"], box["height"]) == (0, 0, 390, 844)
        expect(widget(page, ".launcher")).to_be_hidden()
        widget(page, ".close").click()
        expect(widget(page, ".launcher")).to_be_focused()
    finally:
        context.close()


def test_keyboard_only_open_ask_read_sources_rate_and_close(
    context: Any, scripted_server: Server
) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{scripted_server.url}/")
    # Tab from the page into the widget's launcher, then only keys.
    widget(page, ".launcher").focus()
    page.keyboard.press("Enter")
    expect(widget(page, ".gdpr-ok")).to_be_focused()
    page.keyboard.press("Enter")
    expect(widget(page, "textarea")).to_be_focused()
    page.keyboard.type("What is Tessellate Flow?")
    page.keyboard.press("Enter")
    answer = widget(page, COMPLETE)
    expect(answer).to_be_visible(timeout=15_000)
    expect(widget(page, "textarea")).to_be_focused()
    # The answer is announced once, complete.
    expect(widget(page, ".announce")).to_contain_text("Assistant: Tessellate")
    # Shift+Tab walks back into the answer: a source pill opens the sources.
    focused = ""
    for _ in range(12):
        page.keyboard.press("Shift+Tab")
        focused = page.evaluate(
            "document.querySelector('frontdesk-chat').shadowRoot.activeElement?.className || ''"
        )
        if "cite" in focused:
            break
    assert "cite" in focused
    page.keyboard.press("Enter")
    expect(answer.locator("details.sources ol")).to_be_visible()
    expect(answer.locator("details.sources li.flash")).to_be_focused()
    # Focus is visible: an outline on the focused control.
    widget(page, ".vote.up").focus()
    outline = widget(page, ".vote.up").evaluate("n => getComputedStyle(n).outlineStyle")
    assert outline != "none"
    page.keyboard.press("Enter")
    expect(widget(page, ".vote.up")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    expect(widget(page, ".panel")).to_be_hidden()
    expect(widget(page, ".launcher")).to_be_focused()


def test_right_to_left_languages_are_laid_out_right_to_left(
    context: Any, scripted_server: Server
) -> None:
    page = context.new_page()
    html = host_page(scripted_server, "/rtl", 'lang="ar"')
    page.route(
        f"{scripted_server.url}/rtl",
        lambda route: route.fulfill(status=200, content_type="text/html", body=html),
    )
    page.goto(f"{scripted_server.url}/rtl")
    widget(page, ".launcher").click()
    assert widget(page, ".fd").get_attribute("dir") == "rtl"
    assert widget(page, ".panel").evaluate("n => getComputedStyle(n).direction") == "rtl"
    widget(page, ".gdpr-ok").click()
    ask(page, "مرحبا")
    bubble = widget(page, ".turn.user .bubble").bounding_box()
    panel = widget(page, ".panel").bounding_box()
    assert bubble is not None and panel is not None
    # The visitor's own bubble sits on the right in LTR, on the left in RTL.
    assert bubble["x"] - panel["x"] < 40


def test_the_widget_works_under_a_strict_policy_on_another_origin(
    context: Any, start_server: StartServer, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    with HostSite() as company:
        server = start_server(ScriptedBackend(), more_origins=(company.url,))
        policy = f"default-src 'self'; script-src 'self' {server.url}; connect-src {server.url}"
        # Loaded with `async`: the element upgrades whenever the script arrives.
        page_html = host_page(server, "/").replace(" defer>", " async>")
        company.serve("/", page_html, {"Content-Security-Policy": policy})
        page = context.new_page()
        violations: list[str] = []
        page.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation', "
            "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI), true);"
        )
        response = page.goto(f"{company.url}/")
        assert response is not None
        assert response.headers["content-security-policy"] == policy
        open_and_acknowledge(page)
        # Styled by the constructed stylesheet: the launcher is the accent colour.
        color = widget(page, ".launcher").evaluate("n => getComputedStyle(n).backgroundColor")
        assert color == "rgb(79, 70, 229)"
        answer = ask(page, "What is Tessellate Flow?")
        expect(answer.locator(".cite").first).to_have_text("1")
        page.reload()
        expect(widget(page, ".turn.user")).to_have_count(1)
        page.screenshot(path=str(artifacts / "strict-csp.png"))
        assert page.evaluate("window.__csp") == []
        assert violations == []


def test_the_widget_script_is_at_most_40_kb_gzipped() -> None:
    size = len(gzip.compress(widget_script(), compresslevel=9))
    assert size <= MAX_GZIPPED_BYTES, f"widget.js is {size} bytes gzipped"
