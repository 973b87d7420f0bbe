"""The scheduled jobs of a deployment, run by `frontdesk serve` (by default) or by
`frontdesk worker`: web source re-syncs, queued trust reports, GDPR retention and the digest.

    jobs = start_jobs(runtime, web)   # in the API's lifespan, or the worker
    ...
    await jobs.aclose()

Each job runs once per period across every worker and replica that shares the store:
a re-sync under its site's lease (knowledge/web/schedule.py), a trust report claimed by
its queued row (store/trust.py), retention and the digest under a lease each (here; the
digest also claims each site's period in `digest_runs`). Each job's last run and next run
are recorded in `job_runs` (re-syncs in `crawl_runs`) for the console's Schedules.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from frontdesk.store.jobs import JobRun, JobRuns, Lease, open_lease, run_held, utcnow

if TYPE_CHECKING:
    from frontdesk.knowledge.web.service import WebSync
    from frontdesk.runtime import Runtime

log = logging.getLogger(__name__)
RETENTION_EVERY = timedelta(hours=1)
RETENTION = "retention"
DIGEST = "digest"


@dataclass(frozen=True)
class PeriodicJob:
    """A job run once per period: `due` from its last run and the time, `work` to run it,
    `next_run` (from the time a run starts) for the console."""

    name: str
    due: Callable[[JobRun | None, datetime], bool]
    next_run: Callable[[datetime], datetime | None]
    work: Callable[[], Awaitable[Any]]


def every(interval: timedelta) -> Callable[[JobRun | None, datetime], bool]:
    """Due when never run, when its last run's holder may have died (still `running`: the
    lease decides), or once the recorded next run has come."""

    def due(last: JobRun | None, now: datetime) -> bool:
        if last is None or last.outcome == "running" or last.next_run_at is None:
            return True
        return now >= last.next_run_at

    return due


def lease_name(job: str) -> str:
    return f"job:{job}"


async def run_if_due(
    job: PeriodicJob, lease: Lease, runs: JobRuns, holder: str, now: datetime
) -> bool:
    """Run `job` if it is due and this process takes its lease; whether it ran."""
    if not job.due(await asyncio.to_thread(runs.get, job.name), now):
        return False
    name = lease_name(job.name)
    if not await lease.acquire(name):
        return False  # another process runs it
    try:
        # Re-read under the lease: the process that held it may have just run the job.
        if not job.due(await asyncio.to_thread(runs.get, job.name), now):
            return False
        await asyncio.to_thread(runs.start, job.name, holder, now)
        error = ""
        try:
            await run_held(lease, name, job.work())
        except asyncio.CancelledError:
            error = "interrupted: the process stopped"
            raise
        except Exception as exc:
            log.exception("job_failed name=%s", job.name)
            error = f"{type(exc).__name__}: {exc}"
        finally:
            next_run_at = job.next_run(now)
            await asyncio.to_thread(runs.finish, job.name, error=error, next_run_at=next_run_at)
    finally:
        await lease.release(name)  # idempotent after run_held
    return True


async def run_periodic(
    job: PeriodicJob,
    lease: Lease,
    runs: JobRuns,
    stop: asyncio.Event,
    tick_s: float,
    clock: Callable[[], datetime] = utcnow,
) -> None:
    """Until `stop`: every tick, run the job if it is due (here or on another process)."""
    holder = getattr(lease, "holder", "")
    while not stop.is_set():
        try:
            await run_if_due(job, lease, runs, holder, clock())
        except Exception:  # the store or Redis hiccuped: try again next tick
            log.exception("job_schedule_failed name=%s", job.name)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=tick_s)


def retention_job(runtime: Runtime) -> PeriodicJob:
    from frontdesk.retention import retention_once

    return PeriodicJob(
        RETENTION,
        every(RETENTION_EVERY),
        lambda now: now + RETENTION_EVERY,
        lambda: retention_once(runtime),
    )


def digest_job(runtime: Runtime, knowledge: Any) -> PeriodicJob | None:
    """The digest at each tick of FRONTDESK_DIGEST_SCHEDULE (None when it is off)."""
    from croniter import croniter

    from frontdesk.improvement.digest import due_period_end, send_due

    schedule = runtime.settings.digest_schedule.strip()
    if not schedule:
        return None
    warned: set[tuple[str, datetime]] = set()

    def due(last: JobRun | None, now: datetime) -> bool:
        period_end = due_period_end(schedule, now)
        if period_end is None:
            return False
        return last is None or last.outcome == "running" or last.started_at < period_end

    def next_run(now: datetime) -> datetime:
        following: datetime = croniter(schedule, now).get_next(datetime)
        return following

    async def work() -> None:
        period_end = due_period_end(schedule, utcnow())
        if period_end is not None:
            await send_due(runtime, knowledge, period_end, warned)

    return PeriodicJob(DIGEST, due, next_run, work)


@dataclass
class ScheduledJobs:
    """The running jobs of one process; `aclose` stops them."""

    stop: asyncio.Event
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def aclose(self) -> None:
        self.stop.set()
        # Wait for a job between runs; a run in progress (a trust report, a sync waiting
        # for its process) is cancelled and recorded as interrupted.
        _, pending = await asyncio.wait(self.tasks, timeout=5.0) if self.tasks else ((), ())
        for task in pending:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def start_jobs(
    runtime: Runtime, web: WebSync | None, knowledge: Any, *, trust_reports: bool = True
) -> ScheduledJobs:
    """Start the deployment's scheduled jobs in this process (see the module docstring);
    `web` runs the re-syncs (None: no web sources are synced here)."""
    from frontdesk.evals.trust_jobs import trust_loop

    settings = runtime.settings
    stop = asyncio.Event()
    jobs = ScheduledJobs(stop)
    tick_s = settings.jobs_tick_s
    lease = open_lease(
        runtime.engine,
        redis_url=settings.redis_url,
        redis_prefix=settings.redis_prefix,
        ttl_s=settings.job_lease_s,
    )
    runs = JobRuns(runtime.engine)
    periodic = [retention_job(runtime), digest_job(runtime, knowledge)]
    for job in periodic:
        if job is not None:
            jobs.tasks.append(
                asyncio.create_task(
                    run_periodic(job, lease, runs, stop, tick_s), name=f"frontdesk-job-{job.name}"
                )
            )
    if web is not None:
        jobs.tasks.append(
            asyncio.create_task(web.run_schedules(stop, tick_s), name="frontdesk-job-crawls")
        )
    if trust_reports:  # each queued report is claimed by one process (store/trust.py)
        jobs.tasks.append(
            asyncio.create_task(trust_loop(runtime, stop), name="frontdesk-job-trust")
        )
    return jobs
