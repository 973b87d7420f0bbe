"""The settings page's Schedules, rendered on the server from a real SQLite store: a web
source's re-sync with its last run, outcome, last error and next run, and retention, which
the served app itself ran at start-up (no worker process)."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from console_support import Console, sign_in

from frontdesk.console.templating import format_when
from frontdesk.knowledge.web import CrawlStore
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.jobs import JobRuns

pytestmark = pytest.mark.integration
SOURCE = "https://help.acme.example/"


def schedule_rows(html: str) -> list[str]:
    section = re.search(r'<section class="card" id="schedules">(.*?)</section>', html, re.S)
    assert section, "no Schedules section on the settings page"
    return re.findall(r'<tr class="schedule">(.*?)</tr>', section.group(1), re.S)


def test_the_settings_page_shows_each_schedule_with_its_last_and_next_run(
    console_app: Console, team: Any
) -> None:
    runtime = console_app.runtime
    # Retention ran in the app's own lifespan (FRONTDESK_RUN_JOBS is on by default).
    deadline = time.monotonic() + 10
    while (run := JobRuns(runtime.engine).get("retention")) is None or run.outcome == "running":
        assert time.monotonic() < deadline, "retention did not run in the served app"
        time.sleep(0.05)
    assert run.next_run_at is not None and run.next_run_at - run.started_at >= timedelta(hours=1)

    store = CrawlStore(runtime.engine)
    run_id = store.start_run("acme", SOURCE, "schedule")
    store.finish_run(run_id, status="failed", summary={}, error="robots.txt answered 500")
    acme = runtime.sites["acme"]
    knowledge = KnowledgeConfig.model_validate(
        {"embedding": "hash:256", "sources": [{"url": SOURCE, "schedule": "1d"}]}
    )
    runtime.sites["acme"] = replace(
        acme, config=acme.config.model_copy(update={"knowledge": knowledge})
    )
    last = store.run("acme", run_id)
    assert last is not None

    client = console_app.live
    assert client is not None
    sign_in(client, team["owner"])
    rows = schedule_rows(client.get("/console/sites/acme/settings").text)
    crawl = next(row for row in rows if SOURCE in row)
    assert "<code>1d</code>" in crawl and "status-failed" in crawl
    assert "robots.txt answered 500" in crawl
    # On the site's wall clock, labelled (no browser language: English formats).
    zone = acme.config.business_hours.timezone
    next_day = format_when(last.started_at + timedelta(days=1), zone, "en")
    assert next_day in crawl and next_day.endswith(("EST", "EDT")), crawl
    retention = next(row for row in rows if "Retention" in row)
    assert "status-succeeded" in retention and "never" not in retention
