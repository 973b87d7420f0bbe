"""The demo page under its Content-Security-Policy: the widget loads, streams an answer
and renders it with no policy violation in Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import Server
from test_widget import open_and_acknowledge, widget

pytestmark = pytest.mark.browser

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(e.violatedDirective + ' ' + e.blockedURI);
}, true);
"""


def test_the_widget_works_under_the_demo_page_policy(context: Any, scripted_server: Server) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    page.add_init_script(RECORD_VIOLATIONS)
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
    response = page.goto(f"{scripted_server.url}/")
    assert response is not None
    assert "script-src 'self'" in response.headers["content-security-policy"]
    open_and_acknowledge(page)
    widget(page, "textarea").fill("What is Tessellate Flow?")
    widget(page, "textarea").press("Enter")
    answer = widget(page, '.turn.assistant[data-state="complete"]')
    expect(answer).to_be_visible(timeout=15_000)
    expect(answer.locator(".cite").first).to_have_text("1")
    assert page.evaluate("window.__csp") == []
    assert refused == []
