""" "What Frontdesk knows about you" in headless Chromium against a live Frontdesk on
loopback: a German bike shop's pages ingested with the default multilingual model, an
owner corrects Tuesday's hours, mistypes Christmas Eve's short hours (the error names the
field and the form keeps the input), fixes them, and the page shows who corrected what and when."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser_support import new_context, sign_in
from live_server import LiveServer, free_port

from frontdesk.api.app import create_app
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "docs" / "img"
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "radwerk"
OWNER = "jana@radwerk.test"
PASSWORD = "correct horse battery"
SITE = """\
id: radwerk
name: Radwerk Kreuzberg
default_language: de
languages: [de, en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_radwerk_browser_01
business_hours:
  timezone: Europe/Berlin
"""


@dataclass
class FactsServer:
    url: str
    runtime: Runtime


@pytest.fixture(scope="module")
def facts_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FactsServer]:
    from frontdesk.console.passwords import hash_password
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    root = tmp_path_factory.mktemp("facts")
    sites = root / "sites"
    sites.mkdir()
    shutil.copytree(FIXTURE, sites / "kb")
    (sites / "radwerk.yaml").write_text(SITE, encoding="utf-8")
    settings = Settings(data_dir=root / "data", sites_dir=sites)
    runtime = build_runtime(settings)
    site = runtime.site("radwerk")
    KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        operators.grant(operators.ensure(OWNER, hash_password(PASSWORD)), "radwerk", "owner")
    live = LiveServer(create_app(settings, runtime), free_port()).start(timeout_s=300)
    yield FactsServer(url=live.url, runtime=runtime)
    live.stop()
    runtime.close()


def test_an_owner_corrects_the_hours_the_site_publishes(
    browser: Any, facts_server: FactsServer
) -> None:
    from playwright.sync_api import expect

    target = "/console/sites/radwerk/knowledge"
    context = new_context(browser, (1280, 1000))
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        sign_in(page, facts_server.url, OWNER, PASSWORD, target)
        facts = page.locator("#facts")
        expect(facts.locator("h2")).to_have_text("What Frontdesk knows about you")
        tuesday = facts.locator('tr[data-key="hours:day:1"]')
        expect(tuesday).to_contain_text("Tuesday")
        expect(tuesday.locator('input[name="value"]')).to_have_value("09:30-18:30")
        expect(tuesday.locator("a")).to_have_attribute(
            "href", "https://radwerk.example/kontakt.html"
        )
        expect(facts.locator('tr[data-kind="phone"]')).to_contain_text("footer")
        expect(
            facts.locator('tr[data-key="price:schlauch wechseln"] input[name="value"]')
        ).to_have_value("12 €")

        # Tuesday corrected: a lunch break the page does not mention.
        tuesday.locator('input[name="value"]').fill("09:30-13:00, 14:00-18:30")
        tuesday.get_by_role("button", name="Save").click()
        expect(page.locator("p.ok")).to_contain_text("Saved")
        tuesday = page.locator('#facts tr[data-key="hours:day:1"]')
        expect(tuesday).to_contain_text(f"corrected by {OWNER}")
        expect(tuesday.locator('input[name="value"]')).to_have_value("09:30-13:00, 14:00-18:30")

        # Christmas Eve's short hours, mistyped: the error names the field, nothing typed
        # is lost.
        page.select_option("#fact-kind", "hours")
        page.fill("#fact-about", "2026-12-24")
        page.fill("#fact-value", "11-")
        page.locator("#fact-add").get_by_role("button", name="Add").click()
        expect(page.locator("p.error")).to_contain_text("Value: '11-' is not a time range")
        expect(page.locator("#fact-value")).to_have_value("11-")
        expect(page.locator("#fact-value")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#fact-about")).to_have_value("2026-12-24")
        page.fill("#fact-value", "10:00-12:00")
        page.locator("#fact-add").get_by_role("button", name="Add").click()
        expect(page.locator("p.ok")).to_contain_text("Saved")
        eve = page.locator('#facts tr[data-key="hours:date:2026-12-24"]')
        expect(eve.locator('input[name="value"]')).to_have_value("10:00-12:00")
        expect(eve).to_contain_text(f"corrected by {OWNER}")

        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#facts").screenshot(path=str(SCREENSHOTS / "console-facts.png"))
        # No CSP violation, no script error (the refused form's own 422 aside).
        assert [e for e in errors if "status of 422" not in e] == [], errors
    finally:
        context.close()

    # The answers use the corrections.
    from frontdesk.knowledge.service import KnowledgeBase

    site = facts_server.runtime.site("radwerk")
    hours = KnowledgeBase(facts_server.runtime.engine).site_facts(site.config).of_kind("hours")
    team = {fact.weekday or fact.label: fact for fact in hours if fact.origin == "team"}
    assert team[1].ranges == (("09:30", "13:00"), ("14:00", "18:30"))
    assert team["2026-12-24"].ranges == (("10:00", "12:00"),)
    assert team["2026-12-24"].author == OWNER
