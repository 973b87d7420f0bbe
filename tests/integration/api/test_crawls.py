"""The admin crawl API and the demo website: a real uvicorn server serves /demo-site/, the
admin API starts a sync of it in the background, and the status endpoint reports it."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from dataclasses import replace

import pytest
from api_support import Api, acme_headers, admin_headers
from live_server import LiveServer
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from tests.support.hostile_site import HostileSite

pytestmark = pytest.mark.integration


def test_admin_api_syncs_the_demo_website(api: Api) -> None:
    # The page server only serves /demo-site/: it follows no site files, or its follower
    # would serve acme's file again in place of the knowledge settings this test gives it.
    quiet = api.runtime.settings.model_copy(update={"sites_follow_s": 0})
    server_app = create_app(quiet, replace(api.runtime, settings=quiet), ScriptedBackend())
    server = LiveServer(server_app)
    start_url = f"{server.url}/demo-site/"
    knowledge = KnowledgeConfig.model_validate(
        {"embedding": "hash:256", "sources": [{"url": start_url, "allow_private_network": True}]}
    )
    for runtime in api.runtimes:  # every worker reads the same site file
        acme = runtime.sites["acme"]
        runtime.sites["acme"] = replace(
            acme, config=acme.config.model_copy(update={"knowledge": knowledge})
        )
    url = "/v1/admin/sites/acme/crawls"
    assert api.client.post(url).status_code == 401
    with server:
        robots = api.client.get("/robots.txt").text
        assert "Disallow: /v1/" in robots and "/demo-site/sitemap.xml" in robots
        started = api.client.post(url, headers=admin_headers())
        assert started.status_code == 202, started.text
        run = started.json()["runs"][0]
        assert run["status"] == "running" and run["trigger"] == "api"
        assert run["source_url"] == start_url
        busy = api.client.post(url, headers=admin_headers())
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "sync_running"
        deadline = time.monotonic() + 60
        while run["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
            run = api.client.get(f"{url}/{run['id']}", headers=admin_headers()).json()
    assert run["status"] == "succeeded", run
    summary = run["summary"]
    assert summary["changed"] >= 25 and summary["failed"] == {}
    listed = api.client.get(url, headers=admin_headers()).json()
    assert listed["runs"][0]["id"] == run["id"]

    kb = KnowledgeBase(api.runtime.engine)
    site = SiteKnowledge.of(api.runtime.sites["acme"].config)
    docs = {doc.doc_id for doc in kb.list_documents("acme")}
    assert f"{start_url}faq/" in docs and f"{start_url}ru-faq/" in docs
    # Citations carry the page URL, and the heading's anchor for a passage under one.
    chunks = kb.search(site, "How do I reset my password?").chunks
    assert chunks and all(chunk.url.startswith(start_url) for chunk in chunks)
    assert any("#" in chunk.url for chunk in chunks)
    # Nothing of the chrome (navigation listing every page) is indexed as content.
    assert not any("Demo company website served by Frontdesk" in c.content for c in chunks)


@pytest.mark.usefixtures("stack")  # SQLite and the production stack's two workers
def test_crawl_api_errors(api: Api) -> None:
    url = "/v1/admin/sites/acme/crawls"
    no_sources = api.client.post(url, headers=admin_headers())
    assert no_sources.status_code == 422
    assert no_sources.json()["error"]["code"] == "no_web_sources"
    bad = api.client.post(url, json={"url": "not a url"}, headers=admin_headers())
    assert bad.status_code == 422
    missing = api.client.get(f"{url}/nope", headers=admin_headers())
    assert missing.status_code == 404
    assert api.client.get("/v1/admin/sites/nope/crawls", headers=admin_headers()).status_code == 404


def crawl_processes() -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if p.name.startswith("frontdesk-crawl")]


def use_website(api: Api, site_ids: tuple[str, ...], url: str) -> None:
    knowledge = KnowledgeConfig.model_validate(
        {
            "embedding": "hash:256",
            "sources": [
                {
                    "url": url,
                    "allow_private_network": True,
                    "max_pages": 5_000,
                    "page_deadline_s": 120,
                }
            ],
        }
    )
    for runtime in api.runtimes:
        for site_id in site_ids:
            loaded = runtime.sites[site_id]
            runtime.sites[site_id] = replace(
                loaded, config=loaded.config.model_copy(update={"knowledge": knowledge})
            )


def wait_for_crawl_process(website: HostileSite, timeout_s: float = 60) -> None:
    """Until a sync process runs and has read a few pages."""
    deadline = time.monotonic() + timeout_s
    while (not crawl_processes() or len(website.served.pages) < 5) and time.monotonic() < deadline:
        time.sleep(0.1)


def test_a_crawl_runs_in_its_own_process_while_visitors_get_answers(api: Api) -> None:
    """Two owners start syncs of big, slow sites: each API call returns at once, one sync
    process runs (the global cap; the other waits), a second sync of the same site is
    refused, and a visitor's turn meanwhile is answered by the API process."""
    with HostileSite(sitemaps=40, urls_per_sitemap=5_000, trickle_bytes=600) as website:
        use_website(api, ("acme", "demo"), website.url + "/")
        acme = api.client.post("/v1/admin/sites/acme/crawls", headers=admin_headers())
        assert acme.status_code == 202, acme.text
        run = acme.json()["runs"][0]
        assert run["status"] == "running"
        demo = api.client.post("/v1/admin/sites/demo/crawls", headers=admin_headers())
        assert demo.status_code == 202, demo.text
        again = api.client.post("/v1/admin/sites/acme/crawls", headers=admin_headers())
        assert again.status_code == 409 and "site 'acme'" in again.json()["error"]["message"]

        wait_for_crawl_process(website)
        running = crawl_processes()
        assert len(running) == 1, running  # crawl_processes = 1: the demo sync waits
        assert running[0].pid != os.getpid()

        answer = api.client.post(
            "/v1/ask", json={"message": "What does the product cost?"}, headers=acme_headers()
        )
        assert answer.status_code == 200, answer.text
        status = api.client.get(f"/v1/admin/sites/acme/crawls/{run['id']}", headers=admin_headers())
        assert status.json()["status"] == "running"


def test_a_sync_process_that_dies_leaves_its_run_failed_and_the_site_free(api: Api) -> None:
    with HostileSite(sitemaps=40, urls_per_sitemap=5_000, trickle_bytes=600) as website:
        use_website(api, ("acme",), website.url + "/")
        url = "/v1/admin/sites/acme/crawls"
        run = api.client.post(url, headers=admin_headers()).json()["runs"][0]
        wait_for_crawl_process(website)
        os.kill(crawl_processes()[0].pid, signal.SIGKILL)  # e.g. the OOM killer
        deadline = time.monotonic() + 30
        while run["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.1)
            run = api.client.get(f"{url}/{run['id']}", headers=admin_headers()).json()
        assert run["status"] == "failed"
        assert run["error"] == "the sync process exited with code -9 before it finished"
        again = api.client.post(url, headers=admin_headers())
        assert again.status_code == 202, again.text
