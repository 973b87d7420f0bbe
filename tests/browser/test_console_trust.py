"""The trust report page in headless Chromium against a live Frontdesk on loopback.

The real app (LangGraph graph, local engine, the demo knowledge base): an owner presses
Run now, the API process's background loop runs the report (a small one:
FRONTDESK_TRUST_QUESTIONS=12), the page polls and reloads with the figures; a second run
adds a point to the trend. A viewer sees the page without the button; an operator with
no role on the site gets the console's 404.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import new_context, sign_in
from live_server import LiveServer, free_port

from frontdesk.api.app import create_app
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import DEMO_DIR, Settings

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "docs" / "img"
PASSWORD = "correct horse battery"
OWNER, VIEWER, STRANGER = "owner@trust.test", "viewer@trust.test", "stranger@trust.test"
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
RUN_TIMEOUT_MS = 300_000  # a 12-question report on a machine shared with other test runs


@dataclass
class TrustServer:
    url: str
    runtime: Runtime


@pytest.fixture(scope="module")
def trust_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TrustServer]:
    from real_service import ingested_data_dir, service_unavailable_reason

    reason = service_unavailable_reason()
    if reason:
        pytest.skip(reason)
    from frontdesk.console.passwords import hash_password
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    root = tmp_path_factory.mktemp("trust")
    sites = root / "sites"
    shutil.copytree(DEMO_DIR / "sites", sites)
    demo = sites / "demo.yaml"
    demo.write_text(
        demo.read_text(encoding="utf-8").replace("[../kb]", f"[{DEMO_DIR / 'kb'}]"), "utf-8"
    )
    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites, root / "data")
    settings = Settings(data_dir=data, sites_dir=sites, trust_in_process=True, trust_questions=12)
    runtime = build_runtime(settings)
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        secret = hash_password(PASSWORD)
        operators.grant(operators.ensure(OWNER, secret), "demo", "owner")
        operators.grant(operators.ensure(VIEWER, secret), "demo", "viewer")
        operators.ensure(STRANGER, secret)
    live = LiveServer(create_app(settings, runtime), free_port()).start(timeout_s=300)
    yield TrustServer(url=live.url, runtime=runtime)
    live.stop()
    runtime.close()


def test_run_now_shows_figures_examples_and_a_trend(
    browser: Any, trust_server: TrustServer
) -> None:
    from playwright.sync_api import expect

    target = "/console/sites/demo/trust"
    context = new_context(browser)
    page = context.new_page()
    try:
        sign_in(page, trust_server.url, OWNER, PASSWORD, target)
        expect(page.locator("main h1")).to_have_text("Trust report")
        expect(page.locator("#trust-empty")).to_be_visible()
        page.get_by_role("button", name="Run now").click()
        expect(page.locator("#trust-active")).to_be_visible()  # queued or running, polling
        expect(page.locator("#trust-figures")).to_be_visible(timeout=RUN_TIMEOUT_MS)
        stats = page.locator("#trust-figures .stat")
        expect(stats).to_have_count(5)
        for name in ("answered", "grounded", "abstained", "refused"):
            expect(page.locator("#trust-figures")).to_contain_text(name)
        for kind in ("generated", "unanswerable", "off_topic"):
            expect(page.locator(f"#examples-{kind} tbody tr").first).to_be_visible()
        page.get_by_role("button", name="Run now").click()
        done = page.locator("#trust-runs tbody tr", has_text="done")
        expect(done).to_have_count(2, timeout=RUN_TIMEOUT_MS)
        expect(page.locator("svg.chart circle").first).to_be_attached()
        expect(page.locator("#trust-runs")).to_contain_text(OWNER)
    finally:
        context.close()


def test_the_page_fits_desktop_and_phone(browser: Any, trust_server: TrustServer) -> None:
    """Screenshots for docs/evaluation.md; nothing may overflow the phone's width."""
    from playwright.sync_api import expect

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = "/console/sites/demo/trust"
    for name, viewport in VIEWPORTS.items():
        context = new_context(browser, viewport)
        page = context.new_page()
        try:
            sign_in(page, trust_server.url, OWNER, PASSWORD, target)
            expect(page.locator("main h1")).to_be_visible()
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, f"the trust page overflows {viewport} by {overflow}px"
            page.screenshot(path=str(SCREENSHOTS / f"console-trust-{name}.png"))
        finally:
            context.close()


def test_a_viewer_cannot_run_it_and_a_stranger_gets_404(
    browser: Any, trust_server: TrustServer
) -> None:
    from playwright.sync_api import expect

    target = "/console/sites/demo/trust"
    context = new_context(browser)
    page = context.new_page()
    try:
        sign_in(page, trust_server.url, VIEWER, PASSWORD, target)
        expect(page.locator("main h1")).to_have_text("Trust report")
        expect(page.get_by_role("button", name="Run now")).to_have_count(0)
        csrf = page.locator('meta[name="csrf-token"]').get_attribute("content")
        posted = page.request.post(
            f"{trust_server.url}{target}/run", form={"csrf_token": csrf or ""}
        )
        assert posted.status == 403
    finally:
        context.close()
    context = new_context(browser)
    page = context.new_page()
    try:
        page.goto(f"{trust_server.url}/console/login")
        page.fill('input[name="email"]', STRANGER)
        page.fill('input[name="password"]', PASSWORD)
        page.click('button[type="submit"]')
        response = page.goto(f"{trust_server.url}{target}")
        assert response is not None and response.status == 404
        assert httpx.get(f"{trust_server.url}{target}", follow_redirects=False).status_code in (
            303,
            307,
        )  # signed out: to the sign-in form
    finally:
        context.close()
