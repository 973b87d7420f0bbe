"""Scheduled re-syncs run once per schedule across replicas: two workers, each with its
own lease holder, race for the same due source (a database lease on SQLite and on
PostgreSQL, a Redis lease) and exactly one syncs it; the crawl state works on both stores."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from frontdesk.knowledge.web.schedule import (
    DatabaseLease,
    Lease,
    RedisLease,
    keep_renewed,
    run_due,
)
from frontdesk.knowledge.web.service import WebSync
from frontdesk.knowledge.web.state import CrawlStore, PageRow
from frontdesk.sites.knowledge import WebSource
from frontdesk.sites.registry import LoadedSite
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

pytestmark = pytest.mark.integration

SOURCE = WebSource.model_validate({"url": "https://help.example.com/", "schedule": "1h"})


async def race(store: CrawlStore, leases: list[Lease]) -> list[str]:
    synced: list[str] = []

    async def sync(site_id: str, source: WebSource, run_id: str) -> None:
        synced.append(run_id)
        await asyncio.sleep(0.3)  # long enough for the other replica to try
        store.finish_run(run_id, status="succeeded", summary={})

    await asyncio.gather(*(run_due(store, lease, [("acme", SOURCE)], sync) for lease in leases))
    return synced


def replicas_sync_once(url: str) -> CrawlStore:
    engine = make_engine(url)
    upgrade(engine)
    store = CrawlStore(engine)
    synced = asyncio.run(race(store, [DatabaseLease(store.engine), DatabaseLease(store.engine)]))
    assert len(synced) == 1
    # Not due again within the hour, whoever asks.
    assert asyncio.run(race(store, [DatabaseLease(store.engine)])) == []
    return store


def test_database_lease_on_sqlite(tmp_path: Path) -> None:
    replicas_sync_once(f"sqlite:///{tmp_path / 'app.db'}")


@pytest.mark.postgres
def test_database_lease_and_crawl_state_on_postgres(pg_url: str) -> None:
    store = replicas_sync_once(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    row = PageRow("https://help.example.com/a", "https://help.example.com/a", '"e1"', "", "h",
                  ("https://help.example.com/b",), "ok", 0, "")  # fmt: skip
    store.save_pages("acme", "https://help.example.com/", [row], [])
    store.save_pages("acme", "https://help.example.com/", [row], [])  # upsert
    known = store.known_pages("acme", "https://help.example.com/")
    assert known["https://help.example.com/a"].links == ("https://help.example.com/b",)
    store.save_pages("acme", "https://help.example.com/", [], ["https://help.example.com/a"])
    assert store.known_pages("acme", "https://help.example.com/") == {}
    assert store.known_pages("other", "https://help.example.com/") == {}


@pytest.mark.redis
def test_redis_lease(tmp_path: Path, redis_prefix: str) -> None:
    from frontdesk.guard.redis import redis_client

    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade(engine)
    store = CrawlStore(engine)

    async def main() -> list[str]:
        clients = [redis_client("redis://127.0.0.1:6379/0") for _ in range(2)]
        try:
            return await race(store, [RedisLease(c, redis_prefix) for c in clients])
        finally:
            for client in clients:
                await client.aclose()

    assert len(asyncio.run(main())) == 1


def test_a_renewed_lease_outlives_its_ttl_and_a_dead_holders_run_is_interrupted(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade(engine)
    store = CrawlStore(engine)
    holder, other = DatabaseLease(store.engine, ttl_s=0.4), DatabaseLease(store.engine, ttl_s=0.4)

    async def main() -> None:
        assert await holder.acquire("crawl:acme:x")
        renewing = asyncio.create_task(keep_renewed(holder, "crawl:acme:x", every_s=0.1))
        await asyncio.sleep(1.0)  # 2.5 TTLs: alive only because it is renewed
        assert not await other.acquire("crawl:acme:x")
        renewing.cancel()
        await asyncio.sleep(0.6)  # the holder "died": its lease expires
        assert await other.acquire("crawl:acme:x")
        assert not await holder.renew("crawl:acme:x")

    asyncio.run(main())
    orphan = store.start_run("acme", "https://help.example.com/", "schedule")
    assert store.interrupt_runs("acme", "https://help.example.com/") == 1
    run = store.run("acme", orphan)
    assert run is not None and run.status == "failed" and "interrupted" in run.error


def test_two_workers_run_a_schedule_once(tmp_path: Path) -> None:
    from tests.support.website import LoopbackWebsite

    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade(engine)
    with LoopbackWebsite(pages=20, slow_s=0.0) as website:
        config = SiteConfig.model_validate(
            {
                "id": "acme",
                "name": "Acme",
                "widget": {"public_key": "pk_acme_schedule_0001"},
                "business_hours": {"timezone": "UTC"},
                "knowledge": {
                    "embedding": "hash:256",
                    "sources": [
                        {
                            "url": website.url + "/docs/page-0.html",
                            "schedule": "1h",
                            "allow_private_network": True,
                            "include": [r"/docs/"],
                        }
                    ],
                },
            }
        )
        sites = {"acme": LoadedSite(config, tmp_path / "acme.yaml")}
        workers = [WebSync(engine, sites), WebSync(engine, sites)]

        async def main() -> None:
            stop = asyncio.Event()
            loops = [asyncio.create_task(w.run_schedules(stop, tick_s=0.2)) for w in workers]
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                runs = workers[0].store.runs("acme")
                if runs and runs[0].status != "running":
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.6)  # a few more ticks: nothing is due again
            stop.set()
            await asyncio.gather(*loops)

        asyncio.run(main())
    runs = CrawlStore(engine).runs("acme")
    assert [(run.trigger, run.status) for run in runs] == [("schedule", "succeeded")]
    assert runs[0].summary["changed"] == 20


@pytest.mark.postgres
def test_a_site_crawled_into_postgres_and_pgvector_resyncs_unchanged(pgvector_url: str) -> None:
    from frontdesk.knowledge.index.postgres import PostgresKnowledgeIndex
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.knowledge.web import SiteSync
    from frontdesk.sites.knowledge import KnowledgeConfig
    from tests.support.website import LoopbackWebsite, page_marker, page_path

    engine = make_engine(pgvector_url)
    upgrade(engine)
    kb = KnowledgeBase(engine)
    assert isinstance(kb.index, PostgresKnowledgeIndex)
    site = SiteKnowledge("acme", KnowledgeConfig(embedding="hash:256"))
    sync = SiteSync(engine, kb.ingestor(site, progress=False))
    with LoopbackWebsite(pages=30, slow_s=0.0) as website:
        source = WebSource.model_validate(
            {"url": website.url + "/", "allow_private_network": True, "include": [r"/docs/"]}
        )
        first = asyncio.run(sync.sync("acme", source))
        again = asyncio.run(sync.sync("acme", source))
        hit = kb.search(site, page_marker(12)).chunks[0]
    assert first.changed >= 30 and again.changed == 0 and again.chunks_embedded == 0
    assert again.fetched == 0 and again.unchanged == first.fetched  # 304s: nothing read
    assert hit.doc_id == website.url + page_path(12)
