"""Scheduled re-syncs run once per schedule across replicas: two workers, each with its
own lease holder, race for the same due source (a database lease on SQLite and on
PostgreSQL, a Redis lease) and exactly one syncs it; the crawl state works on both stores."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from frontdesk.knowledge.web.schedule import DatabaseLease, Lease, RedisLease, run_due
from frontdesk.knowledge.web.state import CrawlStore, PageRow
from frontdesk.sites.schema import WebSource
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
    synced = asyncio.run(race(store, [DatabaseLease(store), DatabaseLease(store)]))
    assert len(synced) == 1
    # Not due again within the hour, whoever asks.
    assert asyncio.run(race(store, [DatabaseLease(store)])) == []
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
