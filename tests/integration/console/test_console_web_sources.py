"""Web sources on the console's knowledge page, on a real SQLite store: each source's sync
state from the crawler's tables, and a re-sync that crawls a loopback website through the
admin API's `WebSync` in the background while the page follows it."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from console_support import Console, page_csrf, sign_in

from frontdesk.knowledge.web import CrawlStore
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.trust import TrustStore
from tests.support.website import LoopbackWebsite

pytestmark = pytest.mark.integration

KNOWLEDGE = "/console/sites/acme/knowledge"


@pytest.fixture
def website() -> Iterator[LoopbackWebsite]:
    with LoopbackWebsite(12, slow_s=1.0, oversized_bytes=200_000) as site:
        yield site


def give_acme_the_website(console: Console, website: LoopbackWebsite) -> str:
    start_url = f"{website.url}/"
    acme = console.runtime.sites["acme"]
    knowledge = KnowledgeConfig.model_validate(
        {"embedding": "hash:256", "sources": [{"url": start_url, "allow_private_network": True}]}
    )
    console.runtime.sites["acme"] = replace(
        acme, config=acme.config.model_copy(update={"knowledge": knowledge})
    )
    return start_url


def source_row(html: str, url: str) -> str:
    found = re.search(
        rf'<tr class="web-source" data-source="{re.escape(url)}">(.*?)</tr>', html, re.S
    )
    assert found, f"no row for {url} in the web sources"
    return found.group(1)


def test_resync_crawls_the_source_and_the_page_shows_its_state(
    console_app: Console, team: Any, website: LoopbackWebsite
) -> None:
    start_url = give_acme_the_website(console_app, website)
    client = console_app.live
    assert client is not None
    sign_in(client, team["owner"])
    before = source_row(client.get(KNOWLEDGE).text, start_url)
    assert "never" in before and '<td class="num pages">0</td>' in before

    resync = f"{KNOWLEDGE}/web/resync"
    # Without the CSRF token nothing starts.
    assert client.post(resync, data={"url": start_url}).status_code == 403
    store = CrawlStore(console_app.runtime.engine)
    assert store.runs("acme") == []
    # A source the site does not have is refused, and nothing starts either.
    token = page_csrf(client, KNOWLEDGE)
    stranger = client.post(resync, data={"url": "https://elsewhere.example/", "csrf_token": token})
    assert stranger.status_code == 404 and "no web source" in stranger.text
    assert store.runs("acme") == []

    started = client.post(resync, data={"url": start_url, "csrf_token": token})
    assert started.status_code == 202, started.text
    assert "started" in started.text and "status-running" in source_row(started.text, start_url)
    # While it runs, a second re-sync of the same source is refused (the lease).
    busy = client.post(resync, data={"url": start_url, "csrf_token": token})
    assert busy.status_code == 409 and "already running" in busy.text
    # The section polls itself while a sync runs; follow it as htmx would.
    deadline = time.monotonic() + 90
    fragment = client.get(f"{KNOWLEDGE}/web").text
    while "status-running" in fragment and time.monotonic() < deadline:
        time.sleep(0.3)
        fragment = client.get(f"{KNOWLEDGE}/web").text
    row = source_row(fragment, start_url)
    assert "status-succeeded" in row, row
    assert 'hx-trigger="every 3s"' not in fragment  # nothing left to follow

    runs = store.runs("acme")
    assert len(runs) == 1 and runs[0].trigger == "api"  # the admin API's own sync path
    # New pages: the site's trust report is queued for the worker, once. The sync queues it
    # right after it records the run as succeeded, so a loaded machine may show the run first.
    trust = TrustStore(console_app.runtime.engine)
    queued = trust.next_queued()
    queued_by = time.monotonic() + 10
    while not queued and time.monotonic() < queued_by:
        time.sleep(0.1)
        queued = trust.next_queued()
    assert [(run.site_id, run.trigger) for run in queued] == [("acme", "sync")]
    summary = runs[0].summary
    pages = store.page_count("acme", start_url)
    assert summary["fetched"] >= 10 and pages >= 10
    assert f'<td class="num pages">{pages}</td>' in row
    counts = re.findall(r'<span title="(\w+)">(\d+)</span>', row)
    assert dict(counts) == {
        "found": str(summary["found"]),
        "fetched": str(summary["fetched"]),
        "changed": str(summary["changed"]),
        "removed": str(summary["removed"]),
        "failed": str(len(summary["failed"])),
    }
    # The crawled pages are documents of the site now.
    documents = client.get(KNOWLEDGE).text
    assert f'data-doc="{website.url}/docs/page-0.html"' in documents


def test_only_owners_resync_and_other_sites_see_nothing(
    console_app: Console, team: Any, website: LoopbackWebsite
) -> None:
    start_url = give_acme_the_website(console_app, website)
    agent = console_app.client()
    sign_in(agent, team["acme_agent"])
    page = agent.get(KNOWLEDGE).text
    assert start_url in source_row(page, start_url)
    assert "/knowledge/web/resync" not in page  # no button for an agent
    token = page_csrf(agent, KNOWLEDGE)
    refused = agent.post(f"{KNOWLEDGE}/web/resync", data={"url": start_url, "csrf_token": token})
    assert refused.status_code == 403
    assert CrawlStore(console_app.runtime.engine).runs("acme") == []
    # The agent has no role on demo: its web sources are a 404 like any other page.
    assert agent.get("/console/sites/demo/knowledge/web").status_code == 404


def test_a_web_source_added_to_the_site_file_resyncs_after_a_reload(
    console_app: Console, team: Any, website: LoopbackWebsite, sites_dir: Path
) -> None:
    client = console_app.live
    assert client is not None
    sign_in(client, team["owner"])
    token = page_csrf(client, KNOWLEDGE)
    start_url = f"{website.url}/"
    resync = f"{KNOWLEDGE}/web/resync"
    # The first re-sync sets up the process's WebSync (acme has no web sources yet).
    assert client.post(resync, data={"url": start_url, "csrf_token": token}).status_code == 404
    acme_file = sites_dir / "acme.yaml"
    acme = yaml.safe_load(acme_file.read_text(encoding="utf-8"))
    acme["knowledge"] = {
        "embedding": "hash:256",
        "sources": [{"url": start_url, "allow_private_network": True}],
    }
    acme_file.write_text(yaml.safe_dump(acme), encoding="utf-8")
    reload = client.post("/console/sites/acme/settings/reload", data={"csrf_token": token})
    assert reload.status_code == 200, reload.text
    assert "never" in source_row(client.get(KNOWLEDGE).text, start_url)
    started = client.post(resync, data={"url": start_url, "csrf_token": token})
    assert started.status_code == 202, started.text
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        runs = CrawlStore(console_app.runtime.engine).runs("acme")
        if runs and runs[0].status != "running":
            break
        time.sleep(0.3)
    assert runs and runs[0].status == "succeeded", runs
