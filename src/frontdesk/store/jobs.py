"""Scheduled jobs in the store: leases that keep each job to one process per period, and
each job's last run (migration 0018). Plain SQL that runs on SQLite and PostgreSQL alike.

Why a store lease by default: the store is the one thing every worker and replica of a
deployment already shares, embedded (one SQLite file) or not, so `frontdesk serve` needs
no other service to run its schedules once. With FRONTDESK_REDIS_URL set, a Redis key
(SET NX PX) does the same with less load on the store.

A lease is taken by one conditional UPDATE (the row exists and has expired) or, for a
name never taken, one INSERT (the primary key lets one writer win); its holder renews it
while the job runs, so a holder that dies loses it at most `ttl` later.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

log = logging.getLogger(__name__)
# A lease outlives its holder by at most this long: the holder renews it while it runs,
# so a crashed worker blocks a job for two minutes, not for a whole run.
LEASE_TTL_S = 120.0


def utcnow() -> datetime:
    return datetime.now(UTC)


def _aware(value: Any) -> datetime | None:
    if value is None:
        return None
    moment: datetime = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Lease(Protocol):
    ttl_s: float

    async def acquire(self, name: str) -> bool: ...

    async def renew(self, name: str) -> bool: ...

    async def release(self, name: str) -> None: ...


class DatabaseLease:
    """A `job_leases` row, taken by a conditional UPDATE or an INSERT (one wins)."""

    def __init__(self, engine: Engine, ttl_s: float = LEASE_TTL_S) -> None:
        self.engine = engine
        self.ttl_s = ttl_s
        self.holder = uuid.uuid4().hex

    async def acquire(self, name: str) -> bool:
        return await asyncio.to_thread(self._acquire, name)

    async def renew(self, name: str) -> bool:
        return await asyncio.to_thread(self._renew, name)

    async def release(self, name: str) -> None:
        await asyncio.to_thread(self._release, name)

    def _acquire(self, name: str) -> bool:
        now = utcnow()
        expires = now + timedelta(seconds=self.ttl_s)
        with self.engine.begin() as conn:
            taken = conn.execute(
                text(
                    "UPDATE job_leases SET holder = :holder, expires_at = :expires"
                    " WHERE name = :name AND expires_at < :now"
                ),
                {"name": name, "holder": self.holder, "expires": expires, "now": now},
            ).rowcount
        if taken:
            return True
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO job_leases (name, holder, expires_at)"
                        " VALUES (:name, :holder, :expires)"
                    ),
                    {"name": name, "holder": self.holder, "expires": expires},
                )
        except IntegrityError:
            return False  # another process holds it
        return True

    def _renew(self, name: str) -> bool:
        with self.engine.begin() as conn:
            renewed = conn.execute(
                text(
                    "UPDATE job_leases SET expires_at = :expires"
                    " WHERE name = :name AND holder = :holder"
                ),
                {
                    "name": name,
                    "holder": self.holder,
                    "expires": utcnow() + timedelta(seconds=self.ttl_s),
                },
            ).rowcount
        return bool(renewed)

    def _release(self, name: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text("DELETE FROM job_leases WHERE name = :name AND holder = :holder"),
                {"name": name, "holder": self.holder},
            )


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
        self.ttl_s = ttl_s
        self.holder = uuid.uuid4().hex

    def _key(self, name: str) -> str:
        return f"{self.prefix}lease:{name}"

    async def acquire(self, name: str) -> bool:
        ttl_ms = int(self.ttl_s * 1000)
        return bool(await self.redis.set(self._key(name), self.holder, nx=True, px=ttl_ms))

    async def renew(self, name: str) -> bool:
        ttl_ms = int(self.ttl_s * 1000)
        return bool(await self.redis.eval(_RENEW, 1, self._key(name), self.holder, ttl_ms))

    async def release(self, name: str) -> None:
        await self.redis.eval(_RELEASE, 1, self._key(name), self.holder)


def open_lease(
    engine: Engine, *, redis_url: str = "", redis_prefix: str = "frontdesk:", ttl_s: float
) -> Lease:
    """A Redis lease when Redis is configured, else the store's."""
    if redis_url:
        from frontdesk.guard.redis import redis_client

        return RedisLease(redis_client(redis_url, timeout_s=5.0), redis_prefix, ttl_s)
    return DatabaseLease(engine, ttl_s)


async def keep_renewed(lease: Lease, name: str, every_s: float | None = None) -> None:
    """Renew `name` until cancelled (run beside the work that holds it), four times a TTL."""
    every_s = every_s if every_s is not None else lease.ttl_s / 4
    while True:
        await asyncio.sleep(every_s)
        try:
            if not await lease.renew(name):
                log.warning("lease_lost name=%s (another process may start the job)", name)
        except Exception as exc:  # Redis or the store hiccuped; the next renewal may work
            log.warning("lease_renewal_failed name=%s: %s", name, exc)


async def run_held(lease: Lease, name: str, work: Awaitable[Any]) -> None:
    """Await `work` while renewing the lease it holds, then release it."""
    renewer = asyncio.create_task(keep_renewed(lease, name))
    try:
        await work
    finally:
        renewer.cancel()
        await asyncio.gather(renewer, return_exceptions=True)
        await lease.release(name)


@dataclass(frozen=True)
class JobRun:
    """A job's last run and its next one (what the console's Schedules show)."""

    name: str
    started_at: datetime
    finished_at: datetime | None
    outcome: str  # running | succeeded | failed
    error: str
    next_run_at: datetime | None


class JobRuns:
    """One row per job: its last run, overwritten by the next."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def start(self, name: str, holder: str, at: datetime) -> None:
        params = {"name": name, "holder": holder, "now": at}
        with self.engine.begin() as conn:
            updated = conn.execute(
                text(
                    "UPDATE job_runs SET holder = :holder, started_at = :now,"
                    " finished_at = NULL, outcome = 'running', error = '' WHERE name = :name"
                ),
                params,
            ).rowcount
            if not updated:
                conn.execute(
                    text(
                        "INSERT INTO job_runs (name, holder, started_at, outcome, error)"
                        " VALUES (:name, :holder, :now, 'running', '')"
                    ),
                    params,
                )

    def finish(self, name: str, *, error: str, next_run_at: datetime | None) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE job_runs SET finished_at = :now, outcome = :outcome, error = :error,"
                    " next_run_at = :next WHERE name = :name"
                ),
                {
                    "name": name,
                    "now": utcnow(),
                    "outcome": "failed" if error else "succeeded",
                    "error": error,
                    "next": next_run_at,
                },
            )

    def get(self, name: str) -> JobRun | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                text(
                    "SELECT name, started_at, finished_at, outcome, error, next_run_at"
                    " FROM job_runs WHERE name = :name"
                ),
                {"name": name},
            ).first()
        if row is None:
            return None
        started = _aware(row[1])
        assert started is not None
        return JobRun(row[0], started, _aware(row[2]), row[3], row[4], _aware(row[5]))
