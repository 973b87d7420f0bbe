"""Redis is an accelerator, the database a dependency with a clear 503.

Each test runs its own `redis-server` on a private port (never the shared 6379) and
stops it (SIGKILL) or freezes it (SIGSTOP). What must survive: every turn is answered
within a bounded time, rate limits still hold (per process), one warning per outage,
`/readyz` says "degraded", and Redis is used again once it is back. With the database
gone, API routes answer 503 + `Retry-After` with a JSON error, never a 500.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from api_support import ADMIN_KEY, MakeApi, admin_headers, demo_headers

from frontdesk.guard.limits import InMemoryRateLimiter
from frontdesk.guard.locks import InMemorySessionLocks
from frontdesk.guard.redis import (
    FallbackRateLimiter,
    FallbackSessionLocks,
    RedisOutage,
    RedisRateLimiter,
    RedisSessionLocks,
    redis_client,
)
from tests.support.redis_server import PrivateRedis, redis_server_available

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not redis_server_available(), reason="redis-server is not installed"),
]

BOUND_S = 1.5  # a turn may wait for Redis at most ~2 × 0.3 s, then goes on without it
FAST = {"redis_timeout_s": 0.3, "redis_retry_s": 0.5}


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.close()


def _ask(api: Any, session: str, message: str = "What is Tessellate Flow?") -> tuple[int, float]:
    started = time.perf_counter()
    response = api.client.post(
        "/v1/ask", json={"message": message, "session_id": session}, headers=demo_headers()
    )
    return response.status_code, time.perf_counter() - started


def _outage_warnings(caplog: pytest.LogCaptureFixture) -> int:
    return sum("Redis unavailable" in r.getMessage() for r in caplog.records)


def test_turns_go_on_while_redis_is_down_and_use_it_again_when_back(
    make_api: MakeApi, private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    api = make_api(
        rate_limits={"per_session_per_minute": 3, "per_ip_per_minute": 100},
        settings_options={"redis_url": private_redis.url, **FAST},
    )
    session = str(uuid.uuid4())
    assert _ask(api, session)[0] == 200
    assert private_redis.client().keys("frontdesk:rl:*"), "counters live in Redis while it is up"
    ready = api.client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["checks"]["redis"] == "ok"

    private_redis.stop()
    with caplog.at_level(logging.WARNING, logger="frontdesk.guard.redis"):
        outcomes = [_ask(api, str(uuid.uuid4())) for _ in range(5)]
        # The per-session limit (3 a minute) still holds, counted in this process.
        limited = [_ask(api, session)[0] for _ in range(4)]
    assert [status for status, _ in outcomes] == [200] * 5, outcomes
    assert max(elapsed for _, elapsed in outcomes) < BOUND_S, outcomes
    assert limited == [200, 200, 200, 429], limited
    assert _outage_warnings(caplog) == 1, "one warning per outage, not one per request"
    degraded = api.client.get("/readyz")
    assert degraded.status_code == 200
    assert degraded.json()["status"] == "degraded"
    assert degraded.json()["checks"]["redis"].startswith("down")

    private_redis.start()  # same port, empty: a restarted Redis
    time.sleep(0.6)  # the breaker's retry interval
    with caplog.at_level(logging.WARNING, logger="frontdesk.guard.redis"):
        assert [_ask(api, str(uuid.uuid4()))[0] for _ in range(4)] == [200] * 4
    assert _outage_warnings(caplog) == 1, "no flapping on stale connections after a restart"
    assert sum("Redis is back" in r.getMessage() for r in caplog.records) == 1
    assert private_redis.client().keys("frontdesk:rl:*"), "counters are back in Redis"
    assert api.client.get("/readyz").json()["status"] == "ready"


def test_a_stalled_redis_costs_a_bounded_wait_not_an_error(
    make_api: MakeApi, private_redis: PrivateRedis
) -> None:
    api = make_api(settings_options={"redis_url": private_redis.url, **FAST})
    assert _ask(api, str(uuid.uuid4()))[0] == 200
    private_redis.pause()
    try:
        outcomes = [_ask(api, str(uuid.uuid4())) for _ in range(4)]
        ready = api.client.get("/readyz")
    finally:
        private_redis.resume()
    assert [status for status, _ in outcomes] == [200] * 4, outcomes
    assert max(elapsed for _, elapsed in outcomes) < BOUND_S, outcomes
    assert ready.status_code == 200 and ready.json()["status"] == "degraded"
    time.sleep(0.6)
    assert _ask(api, str(uuid.uuid4()))[0] == 200
    assert api.client.get("/readyz").json()["checks"]["redis"] == "ok"


async def test_session_slots_fall_back_per_process_and_are_freed_in_redis_later(
    private_redis: PrivateRedis,
) -> None:
    # Must survive: one turn per session (in this process) while Redis is down, and a
    # slot taken in Redis before the outage is freed once Redis answers again (else the
    # session would stay busy for the slot's whole TTL).
    client = redis_client(private_redis.url, timeout_s=0.3)
    outage = RedisOutage("locks", pause_s=0.3)
    locks = FallbackSessionLocks(
        RedisSessionLocks(client, "t:"), outage, InMemorySessionLocks(), timeout_s=0.3
    )
    limiter = FallbackRateLimiter(RedisRateLimiter(client, "t:"), outage, InMemoryRateLimiter())
    try:
        held = await locks.acquire("demo:s1")
        assert held is not None and held.split(":")[1], "a Redis slot while Redis is up"
        private_redis.pause()
        try:
            await locks.release("demo:s1", held)  # Redis stalled: remembered, not lost
            down = await locks.acquire("demo:s2")
            assert down is not None and down.endswith(":")
            assert await locks.acquire("demo:s2") is None, "still one turn per session"
            assert (await limiter.hit([])).allowed
        finally:
            private_redis.resume()
        await locks.release("demo:s2", down)
        await asyncio.sleep(0.35)
        again = await locks.acquire("demo:s3")
        assert again is not None and again.split(":")[1]
        assert not private_redis.client().exists("t:lock:demo:s1"), "the stale slot was freed"
        assert await locks.acquire("demo:s1") is not None
    finally:
        await client.aclose()


@pytest.fixture
def doomed_pg_database() -> Iterator[tuple[str, str]]:
    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    try:
        psycopg.connect(admin, connect_timeout=2).close()
    except psycopg.OperationalError:
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    name = f"fd_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin, name
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_lost_database_is_a_503_with_retry_after(
    make_api: MakeApi, doomed_pg_database: tuple[str, str]
) -> None:
    # Must survive: the process itself (it answers), and the client learns to retry.
    admin, name = doomed_pg_database
    api = make_api(
        settings_options={"database_url": f"postgresql://postgres@127.0.0.1:5432/{name}"}
    )
    assert ADMIN_KEY
    assert api.client.get("/v1/admin/sites/demo/leads", headers=admin_headers()).status_code == 200
    assert api.client.get("/readyz").status_code == 200
    with psycopg.connect(admin, autocommit=True) as conn:  # the database goes away
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')

    gone = api.client.get("/v1/admin/sites/demo/leads", headers=admin_headers())
    assert gone.status_code == 503, gone.text
    assert gone.headers["Retry-After"] == "5"
    assert gone.json()["error"]["code"] == "store_unavailable"
    ready = api.client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["checks"]["database"].startswith("unreachable")
