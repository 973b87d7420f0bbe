"""Scheduled re-syncs: which web sources are due, and one sync per source across replicas.

`is_due` is pure. A sync runs under a lease named after its site (one sync of a site at a
time, whichever source, replica or worker starts it): a Redis key
(SET NX with an expiry) when FRONTDESK_REDIS_URL is set, else a `job_leases` row
(store/jobs.py), renewed while the sync runs. The holder re-checks that the source is
still due after taking the lease, so a replica that waited for another's sync does not run
it again; a run left `running` by a holder that died does not count: once its lease has
expired the next holder marks it interrupted and syncs the source again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from frontdesk.knowledge.web.state import INTERRUPTED, CrawlRun, CrawlStore, utcnow
from frontdesk.sites.knowledge import WebSource, interval_seconds
from frontdesk.store.jobs import (  # noqa: F401  (the leases crawls run under)
    DatabaseLease,
    Lease,
    RedisLease,
    keep_renewed,
    run_held,
)

log = logging.getLogger(__name__)


def next_due(schedule: str, last_started: datetime) -> datetime:
    """When a source with this schedule, last synced at `last_started`, is due again."""
    interval = interval_seconds(schedule)
    if interval is not None:
        return last_started + timedelta(seconds=interval)
    from croniter import croniter

    following: datetime = croniter(schedule, last_started).get_next(datetime)
    return following


def is_due(schedule: str | None, last_started: datetime | None, now: datetime) -> bool:
    """Whether a source with this schedule, last synced at `last_started`, is due `now`."""
    if schedule is None:
        return False
    return last_started is None or next_due(schedule, last_started) <= now


def last_scheduled_start(runs: list[CrawlRun]) -> datetime | None:
    """The start of the newest run that counts for the schedule (newest first; a run
    interrupted because its process died does not count)."""
    for run in runs:
        if run.error != INTERRUPTED:
            return run.started_at
    return None


def lease_name(site_id: str) -> str:
    return f"crawl:{site_id}"


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
        # Holding the lease, any run still marked running lost its process.
        store.interrupt_runs(site_id, key)
        if not _due(store, site_id, source, key, now()):
            await lease.release(name)
            continue
        run_id = store.start_run(site_id, key, "schedule")
        started.append(run_id)
        try:
            await run_held(lease, name, sync_source(site_id, source, run_id))
        except Exception as exc:  # recorded on the run; the schedule goes on
            log.warning("scheduled_crawl_failed site=%s source=%s: %s", site_id, key, exc)
    return started


def _due(store: CrawlStore, site_id: str, source: WebSource, key: str, now: datetime) -> bool:
    """Due by the last run that counts; a run still `running` may belong to a holder that
    died, so the source stays a candidate (the lease decides)."""
    runs = store.runs(site_id, source_url=key, limit=20)
    if runs and runs[0].status == "running":
        return True
    return is_due(source.schedule, last_scheduled_start(runs), now)
