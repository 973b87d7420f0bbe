"""Scheduled re-syncs: which web sources are due, and one sync per source across replicas.

`is_due` is pure. A sync runs under a lease named after its site (one sync of a site at a
time, whichever source, replica or worker starts it): a Redis key
(SET NX with an expiry) when FRONTDESK_REDIS_URL is set, else a `crawl_leases` row,
renewed while the sync runs. The holder re-checks that the source is still due after
taking the lease, so a replica that waited for another's sync does not run it again.
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
# A lease outlives its holder by at most this long: the holder renews it while it syncs,
# so a crashed worker blocks a schedule for two minutes, not for a whole sync.
LEASE_TTL_S = 120.0
RENEW_EVERY_S = 30.0


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


def lease_name(site_id: str) -> str:
    return f"crawl:{site_id}"


class Lease(Protocol):
    async def acquire(self, name: str) -> bool: ...

    async def renew(self, name: str) -> bool: ...

    async def release(self, name: str) -> None: ...


class DatabaseLease:
    """A `crawl_leases` row, taken by a conditional UPDATE or an INSERT (one wins)."""

    def __init__(self, store: CrawlStore, ttl_s: float = LEASE_TTL_S) -> None:
        self.store = store
        self.ttl_s = ttl_s
        self.holder = uuid.uuid4().hex

    async def acquire(self, name: str) -> bool:
        return await asyncio.to_thread(self.store.acquire_lease, name, self.holder, self.ttl_s)

    async def renew(self, name: str) -> bool:
        return await asyncio.to_thread(self.store.renew_lease, name, self.holder, self.ttl_s)

    async def release(self, name: str) -> None:
        await asyncio.to_thread(self.store.release_lease, name, self.holder)


_RENEW = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then"
    " return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
)
_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)


class RedisLease:
    """`SET key holder NX PX ttl`; renewed and released only by its holder."""

    def __init__(self, redis: Any, prefix: str = "frontdesk:", ttl_s: float = LEASE_TTL_S) -> None:
        self.redis = redis
        self.prefix = prefix
        self.ttl_ms = int(ttl_s * 1000)
        self.holder = uuid.uuid4().hex

    def _key(self, name: str) -> str:
        return f"{self.prefix}lease:{name}"

    async def acquire(self, name: str) -> bool:
        return bool(await self.redis.set(self._key(name), self.holder, nx=True, px=self.ttl_ms))

    async def renew(self, name: str) -> bool:
        return bool(await self.redis.eval(_RENEW, 1, self._key(name), self.holder, self.ttl_ms))

    async def release(self, name: str) -> None:
        await self.redis.eval(_RELEASE, 1, self._key(name), self.holder)


async def keep_renewed(lease: Lease, name: str, every_s: float = RENEW_EVERY_S) -> None:
    """Renew `name` until cancelled (run beside the sync that holds it)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            if not await lease.renew(name):
                log.warning("crawl_lease_lost name=%s (another worker may start it)", name)
        except Exception as exc:  # Redis or the store hiccuped; the next renewal may work
            log.warning("crawl_lease_renewal_failed name=%s: %s", name, exc)


async def run_held(lease: Lease, name: str, work: Awaitable[Any]) -> None:
    """Await `work` while renewing the lease it holds, then release it."""
    renewer = asyncio.create_task(keep_renewed(lease, name))
    try:
        await work
    finally:
        renewer.cancel()
        await asyncio.gather(renewer, return_exceptions=True)
        await lease.release(name)


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
        name = lease_name(site_id)
        if not await lease.acquire(name):
            continue  # another replica is syncing the site
        if not _due(store, site_id, source, key, now()):
            await lease.release(name)
            continue
        # Holding the lease, any run still marked running lost its process.
        store.interrupt_runs(site_id, key)
        run_id = store.start_run(site_id, key, "schedule")
        started.append(run_id)
        try:
            await run_held(lease, name, sync_source(site_id, source, run_id))
        except Exception as exc:  # recorded on the run; the schedule goes on
            log.warning("scheduled_crawl_failed site=%s source=%s: %s", site_id, key, exc)
    return started


def _due(store: CrawlStore, site_id: str, source: WebSource, key: str, now: datetime) -> bool:
    last = store.runs(site_id, source_url=key, limit=1)
    return is_due(source.schedule, last[0].started_at if last else None, now)
