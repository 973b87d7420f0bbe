"""The enrichment pipeline: cache → returning visitor → reveal → HTTP providers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from frontdesk.conversation.payload import VisitorContext
from frontdesk.enrichment import Enricher
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.models import Visitor
from tests.support.loopback import HttpReceiver
from tests.support.ports import free_port

pytestmark = pytest.mark.integration


def site_with(providers: list[dict[str, object]], **enrichment: object) -> SiteConfig:
    return SiteConfig.model_validate(
        {
            "id": "acme",
            "name": "Acme",
            "widget": {"public_key": "pk_acme_000000000001"},
            "business_hours": {"timezone": "Europe/Madrid"},
            "enrichment": {"providers": providers, **enrichment},
        }
    )


@pytest.fixture
def runtime(tmp_path: Path, http: HttpReceiver) -> Iterator[Runtime]:
    folder = tmp_path / "sites"
    folder.mkdir()
    (folder / "acme.yaml").write_text(
        "id: acme\nname: Acme\nwidget: {public_key: pk_acme_000000000001}\n"
        "business_hours: {timezone: Europe/Madrid}\n",
        encoding="utf-8",
    )
    rt = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=folder))
    yield rt
    rt.close()


async def test_priority_pipeline_stops_at_the_first_completed_source(
    runtime: Runtime, http: HttpReceiver
) -> None:
    http.replies["/slow"] = {"company": {"name": "Never"}}
    http.replies["/empty"] = {"status": "not_found"}
    http.replies["/good"] = {"status": "completed", "company_name": "Initech", "sector": "SaaS"}
    http.fail_next("/slow", "timeout")
    dead = f"http://127.0.0.1:{free_port()}/down"
    site = site_with(
        [
            {"name": "down", "url": dead, "timeout_s": 0.5},
            {"name": "slow", "url": http.url("/slow"), "timeout_s": 0.2},
            {"name": "empty", "url": http.url("/empty")},
            {"name": "good", "url": http.url("/good"), "headers": {"X-Api-Key": "k"}},
            {"name": "never", "url": http.url("/never")},
        ]
    )
    enricher = Enricher(runtime.sessions)
    visitor = VisitorContext(ip_hash="h-1", user_agent="UA", page_url="https://acme.test/p")
    try:
        first = await enricher.enrich(site, visitor)
        assert first == {
            "company_name": "Initech",
            "sector": "SaaS",
            "enrichment_status": "completed",
            "enrichment_source": "provider:good",
        }
        (call,) = http.received_on("/good")
        assert call.json() == {
            "site_id": "acme",
            "ip_hash": "h-1",
            "user_agent": "UA",
            "page_url": "https://acme.test/p",
        }
        assert call.headers["x-api-key"] == "k"
        assert http.received_on("/never") == []  # stopped at the first completed source

        # Same process: the cache answers, no provider is called again.
        calls = http.seen
        assert (await enricher.enrich(site, visitor))["enrichment_source"] == "cache"
        assert http.seen == calls

        # A new process (empty cache): the visitor is a returning one, known by IP hash.
        restarted = Enricher(runtime.sessions)
        again = await restarted.enrich(site, visitor)
        await restarted.aclose()
        assert again["enrichment_source"] == "returning_visitor"
        assert again["company_name"] == "Initech" and http.seen == calls
    finally:
        await enricher.aclose()
    with runtime.sessions() as db:
        rows = db.scalars(select(Visitor)).all()
    assert [(v.ip_hash, v.source) for v in rows] == [("h-1", "provider:good")]
    assert "127.0.0.1" not in str(rows[0].profile)  # only the hash is ever stored


async def test_reveal_data_wins_over_providers_and_is_cleaned(
    runtime: Runtime, http: HttpReceiver
) -> None:
    http.replies["/good"] = {"company_name": "Provider Inc"}
    site = site_with([{"name": "good", "url": http.url("/good")}])
    enricher = Enricher(runtime.sessions)
    visitor = VisitorContext(
        ip_hash="h-2",
        reveal={"company": "Umbrella", "domain": "umbrella.test", "password": "x", "ip": "1.2.3.4"},
    )
    try:
        got = await enricher.enrich(site, visitor)
    finally:
        await enricher.aclose()
    assert got == {
        "company_name": "Umbrella",
        "company_domain": "umbrella.test",
        "enrichment_status": "completed",
        "enrichment_source": "reveal",
    }
    assert http.seen == 0


async def test_nothing_known_and_disabled_sites_return_nothing(
    runtime: Runtime, http: HttpReceiver
) -> None:
    http.replies["/empty"] = {"status": "not_found"}
    enricher = Enricher(runtime.sessions)
    try:
        assert await enricher.enrich(site_with([]), VisitorContext(ip_hash="h-3")) == {}
        found = site_with([{"name": "empty", "url": http.url("/empty")}])
        assert await enricher.enrich(found, VisitorContext(ip_hash="h-3")) == {}
        off = site_with([{"name": "empty", "url": http.url("/empty")}], enabled=False)
        assert await enricher.enrich(off, VisitorContext(ip_hash="h-3")) == {}
        # Without an IP hash there is nothing to look up or send to a provider.
        assert await enricher.enrich(found, VisitorContext()) == {}
    finally:
        await enricher.aclose()
    assert http.seen == 1
