"""Retention and the digest run once per period across processes: two holders race for a
due job on one store (SQLite, PostgreSQL) or one Redis, and exactly one runs it; a job
whose holder died is taken over once its lease has expired, not before."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from frontdesk.jobs import PeriodicJob, every, lease_name, run_if_due
from frontdesk.store.db import make_engine
from frontdesk.store.jobs import DatabaseLease, JobRuns, Lease, RedisLease, utcnow
from frontdesk.store.migrate import upgrade

pytestmark = pytest.mark.integration
HOUR = timedelta(hours=1)


def counting_job(ran: list[str]) -> PeriodicJob:
    async def work() -> None:
        ran.append("ran")
        await asyncio.sleep(0.3)  # long enough for the other process to try

    return PeriodicJob("retention", every(HOUR), lambda now: now + HOUR, work)


async def race(runs: JobRuns, leases: list[Lease]) -> list[str]:
    ran: list[str] = []
    job = counting_job(ran)
    await asyncio.gather(*(run_if_due(job, lease, runs, f"h{i}", utcnow())
                           for i, lease in enumerate(leases)))  # fmt: skip
    return ran


def once_per_period(url: str) -> None:
    engine = make_engine(url)
    upgrade(engine)
    runs = JobRuns(engine)
    assert asyncio.run(race(runs, [DatabaseLease(engine), DatabaseLease(engine)])) == ["ran"]
    assert asyncio.run(race(runs, [DatabaseLease(engine)])) == []  # not due within the hour
    record = runs.get("retention")
    assert record is not None and record.outcome == "succeeded" and record.next_run_at
    assert record.next_run_at - record.started_at == HOUR
    engine.dispose()


def test_one_run_per_period_on_sqlite(tmp_path: Path) -> None:
    once_per_period(f"sqlite:///{tmp_path / 'app.db'}")


@pytest.mark.postgres
def test_one_run_per_period_on_postgres(pg_url: str) -> None:
    once_per_period(pg_url.replace("postgresql://", "postgresql+psycopg://"))


@pytest.mark.redis
def test_one_run_per_period_with_redis(tmp_path: Path, redis_prefix: str) -> None:
    from frontdesk.guard.redis import redis_client

    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade(engine)

    async def main() -> list[str]:
        clients = [redis_client("redis://127.0.0.1:6379/0") for _ in range(2)]
        try:
            return await race(JobRuns(engine), [RedisLease(c, redis_prefix) for c in clients])
        finally:
            for client in clients:
                await client.aclose()

    assert asyncio.run(main()) == ["ran"]


def test_a_dead_holders_job_is_taken_over_after_its_lease_expires(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade(engine)
    runs = JobRuns(engine)
    dead, survivor = DatabaseLease(engine, ttl_s=0.5), DatabaseLease(engine, ttl_s=0.5)
    ran: list[str] = []
    job = counting_job(ran)

    async def main() -> None:
        # A holder took the lease, recorded its run and died without renewing or finishing.
        assert await dead.acquire(lease_name("retention"))
        runs.start("retention", dead.holder, utcnow())
        assert not await run_if_due(job, survivor, runs, survivor.holder, utcnow())
        await asyncio.sleep(0.6)
        assert await run_if_due(job, survivor, runs, survivor.holder, utcnow())

    asyncio.run(main())
    record = runs.get("retention")
    assert ran == ["ran"] and record is not None and record.outcome == "succeeded"
