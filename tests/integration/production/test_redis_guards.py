"""Redis session locks and rate limits: shared by processes, expiring, owner-only release."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from frontdesk.guard.limits import LimitCheck, LimitRule
from frontdesk.guard.redis import (
    RedisRateLimiter,
    RedisSessionLocks,
    redis_client,
    shared_ip_salt,
)

pytestmark = [pytest.mark.redis, pytest.mark.integration]
REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
async def client(redis_prefix: str) -> AsyncIterator[Any]:
    redis = redis_client(REDIS_URL)
    yield redis
    await redis.aclose()


async def test_one_holder_per_session_across_clients(client: Any, redis_prefix: str) -> None:
    other = redis_client(REDIS_URL)  # a second replica's connection
    try:
        mine, theirs = (
            RedisSessionLocks(client, redis_prefix),
            RedisSessionLocks(other, redis_prefix),
        )
        tokens = await asyncio.gather(*(locks.acquire("demo:s1") for locks in [mine, theirs] * 5))
        held = [t for t in tokens if t is not None]
        assert len(held) == 1
        assert not await theirs.release("demo:s1", "not-the-owner")
        assert await mine.busy("demo:s1")
        owner = next(i for i, t in enumerate(tokens) if t is not None)
        assert await [mine, theirs][owner % 2].release("demo:s1", held[0])
        assert await theirs.acquire("demo:s1") is not None
    finally:
        await other.aclose()


async def test_a_crashed_holder_never_locks_a_session_forever(
    client: Any, redis_prefix: str
) -> None:
    locks = RedisSessionLocks(client, redis_prefix)
    assert await locks.acquire("demo:s2", ttl_s=0.2) is not None  # never released
    assert await locks.acquire("demo:s2") is None
    await asyncio.sleep(0.35)
    assert await locks.acquire("demo:s2") is not None


async def test_fixed_window_counts_are_shared_and_expire(client: Any, redis_prefix: str) -> None:
    now = [1_000_000.0]
    a = RedisRateLimiter(client, redis_prefix, clock=lambda: now[0])
    b = RedisRateLimiter(client, redis_prefix, clock=lambda: now[0])
    check = [LimitCheck("demo:session:x", LimitRule("per_session_per_minute", 3, 60))]
    decisions = [await limiter.hit(check) for limiter in (a, b, a, b)]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert decisions[-1].headers()["Retry-After"] == "20"  # window ends at 1_000_020
    assert decisions[1].remaining == 1
    ttl = await client.ttl(f"{redis_prefix}rl:demo:session:x:60:999960")
    assert 0 < ttl <= 61
    now[0] += 60
    assert (await b.hit(check)).allowed


async def test_replicas_share_one_ip_salt(client: Any, redis_prefix: str) -> None:
    first = await shared_ip_salt(client, redis_prefix)
    assert first == await shared_ip_salt(client, redis_prefix) and len(first) == 16


async def test_a_burst_of_more_calls_than_connections_waits_for_one(redis_prefix: str) -> None:
    """300 turns at once (200 live chats do it) each take a lock: none may fail for want of a
    pooled connection — a failure opens the outage breaker and every replica falls back to
    per-process locks.

    The product's pool (100 connections) with a roomier timeout than its 0.5 s: the waiting
    is under test, not the timeout's size. redis-py's default pool fails the 101st call at
    once whatever the timeout. At 0.5 s, an event-loop stall of this long test process
    (a full garbage collection of earlier tests' objects, most likely) during the 100
    connects failed one fresh-clone CI run with a connect timeout."""
    client = redis_client(REDIS_URL, timeout_s=5.0)
    try:
        locks = RedisSessionLocks(client, redis_prefix)
        tokens = await asyncio.gather(*(locks.acquire(f"demo:burst-{i}") for i in range(300)))
        assert all(token is not None for token in tokens)
        held = await asyncio.gather(*(locks.busy(f"demo:burst-{i}") for i in range(300)))
        assert all(held)
    finally:
        await client.aclose()
