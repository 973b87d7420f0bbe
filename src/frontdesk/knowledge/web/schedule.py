"""Scheduled re-syncs: which web sources are due, and one sync per source across replicas.

`is_due` is pure. A sync runs under a lease named after its site and source: a Redis key
(SET NX with an expiry) when FRONTDESK_REDIS_URL is set, else a `crawl_leases` row. The
holder re-checks that the source is still due after taking the lease, so a replica that
waited for another's sync does not run it again.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from frontdesk.knowledge.web.state import CrawlStore, utcnow
from frontdesk.sites.schema import WebSource, interval_seconds

log = logging.getLogger(__name__)
LEASE_TTL_S = 3 * 3600.0  # longer than any sync; a crashed holder's lease expires
STALE_RUN = timedelta(seconds=LEASE_TTL_S)


def is_due(schedule: str | None, last_started: datetime | None, now: datetime) -> bool:
    """Whether a source with this schedule, last synced at `last_started`, is due `now`."""
    if schedule is None:
        return False
    if last_started is None:
        return True
    interval = interval_seconds(schedule)
    if interval is not None:
        return now >= last_started + timedelta(seconds=interval)
    from croniter import croniter

    following: datetime = croniter(schedule, last_started).get_next(datetime)
    return following <= now


def lease_name(site_id: str, source_url: str) -> str:
    return f"crawl:{site_id}:{source_url}"


class Lease(Protocol):
    async def acquire(self, name: str) -> bool: ...

    async def release(self, name: str) -> None: ...


class DatabaseLease:
    """A `crawl_leases` row, taken by a conditional UPDATE or an INSERT (one wins)."""

    def __init__(self, store: CrawlStore, ttl_s: float = LEASE_TTL_S) -> None:
        self.store = store
        self.ttl_s = ttl_s
        self.holder = uuid.uuid4().hex

    async def acquire(self, name: str) -> bool:
        return await asyncio.to_thread(self.store.acquire_lease, name, self.holder, self.ttl_s)

    async def release(self, name: str) -> None:
        await asyncio.to_thread(self.store.release_lease, name, self.holder)


_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"


class RedisLease:
    """`SET key holder NX PX ttl`; released only by its holder (compare and delete)."""

    def __init__(self, redis: Any, prefix: str = "frontdesk:", ttl_s: float = LEASE_TTL_S) -> None:
        self.redis = redis
        self.prefix = prefix
        self.ttl_ms = int(ttl_s * 1000)
        self.holder = uuid.uuid4().hex

    async def acquire(self, name: str) -> bool:
        key = f"{self.prefix}lease:{name}"
        return bool(await self.redis.set(key, self.holder, nx=True, px=self.ttl_ms))

    async def release(self, name: str) -> None:
        await self.redis.eval(_RELEASE + " return 0", 1, f"{self.prefix}lease:{name}", self.holder)


SyncSource = Callable[[str, WebSource, str], Awaitable[Any]]  # (site id, source, run id)


async def run_due(
    store: CrawlStore,
    lease: Lease,
    due_sources: list[tuple[str, WebSource]],
    sync_source: SyncSource,
    *,
    now: Callable[[], datetime] = utcnow,
) -> list[str]:
    """Sync every due source once (under its lease); the run ids started here."""
    from frontdesk.knowledge.web.sync import source_key

    started: list[str] = []
    for site_id, source in due_sources:
        key = source_key(source)
        if not _due(store, site_id, source, key, now()):
            continue
        name = lease_name(site_id, key)
        if not await lease.acquire(name):
            continue  # another replica is syncing it
        try:
            if not _due(store, site_id, source, key, now()):
                continue
            run_id = store.start_run(site_id, key, "schedule")
            started.append(run_id)
            try:
                await sync_source(site_id, source, run_id)
            except Exception as exc:  # recorded on the run; the schedule goes on
                log.warning("scheduled_crawl_failed site=%s source=%s: %s", site_id, key, exc)
        finally:
            await lease.release(name)
    return started


def _due(store: CrawlStore, site_id: str, source: WebSource, key: str, now: datetime) -> bool:
    last = store.runs(site_id, source_url=key, limit=1)
    if last and last[0].status == "running" and now - last[0].started_at < STALE_RUN:
        return False
    return is_due(source.schedule, last[0].started_at if last else None, now)
