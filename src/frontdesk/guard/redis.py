"""Redis for stateless replicas: rate-limit counters, session locks, and cache plumbing.

Every replica sees the same counters and the same session slots, so a session that
sends two messages to two replicas at once still gets exactly one turn (the other 429).

- `RedisRateLimiter`: fixed windows aligned to epoch seconds, `INCR` + `EXPIRE` per
  window key in one pipeline (one round trip per request, whatever the number of rules).
- `RedisSessionLocks`: `SET key token NX PX ttl` and a compare-and-delete script, so only
  the owner frees a slot and a crashed process's slot expires after `ttl_s`.

The in-memory versions (`guard.limits`, `guard.locks`) stay the single-process default.

Redis is an accelerator, never a dependency of a turn. Every client has short connect
and read timeouts and no retries of its own; a failure is reported to a `RedisOutage`
(a circuit breaker), which skips Redis for a pause, lets one call probe it again after
the pause, and logs a warning when Redis goes down (then a reminder at most every
`WARN_EVERY_S`), not one per call:

- `FallbackRateLimiter` / `FallbackSessionLocks`: Redis when it answers, else the
  per-process `InMemoryRateLimiter` / `InMemorySessionLocks` (limits and "one turn per
  session" then hold per process, not across replicas, until Redis is back);
- caches (query embeddings, visitor enrichment): a Redis failure is a miss.

`/readyz` reports the breaker's state (`"redis": "down: …"`, status `degraded`, still 200).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import threading
import time
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from frontdesk.guard.limits import (
    Clock,
    InMemoryRateLimiter,
    LimitCheck,
    LimitDecision,
    tightest,
)
from frontdesk.guard.locks import DEFAULT_TTL_S, InMemorySessionLocks

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

log = logging.getLogger(__name__)

HEALTH_CHECK_S = 30  # ping idle connections so they are never dropped silently
CACHE_TIMEOUT_S = 0.5  # a cache answer slower than this is worth less than recomputing
GUARD_TIMEOUT_S = 0.5  # FRONTDESK_REDIS_TIMEOUT_S: a lock or counter round trip is ~1 ms
OUTAGE_PAUSE_S = 30.0
POOL_CONNECTIONS = 100  # per process; a call waits for a free one rather than failing
GUARD_RETRY_S = 5.0
WARN_EVERY_S = 30.0  # FRONTDESK_REDIS_RETRY_S: how soon the guards try Redis again

T = TypeVar("T")


def _no_retries() -> Any:
    """No retry inside the client (redis-py retries 3 times by default, which multiplies
    a timeout): the breaker decides when to try Redis again."""
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return Retry(NoBackoff(), 0)


def redis_client(url: str, *, timeout_s: float = GUARD_TIMEOUT_S) -> Any:
    """An asyncio Redis client (connections open lazily, on the serving event loop) whose
    calls fail within about `timeout_s` when Redis is down or stalled."""
    from redis.asyncio import BlockingConnectionPool, Redis

    # A blocking pool: a burst of more calls than connections waits (up to `timeout_s`)
    # for a free one. redis-py's default pool raises at once instead, and that error
    # opened the outage breaker under 200 concurrent live chats.
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_CONNECTIONS,
        timeout=timeout_s,
        health_check_interval=HEALTH_CHECK_S,
        socket_connect_timeout=timeout_s,
        socket_timeout=timeout_s,
        retry=_no_retries(),
        decode_responses=True,
    )
    return Redis.from_pool(pool)


def redis_sync_client(url: str, *, timeout_s: float = CACHE_TIMEOUT_S) -> Any:
    """A blocking Redis client for worker threads (thread-safe: one connection pool);
    values are bytes."""
    from redis import Redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return Redis.from_url(
        url,
        health_check_interval=HEALTH_CHECK_S,
        socket_connect_timeout=timeout_s,
        socket_timeout=timeout_s,
        retry=Retry(NoBackoff(), 0),
    )


class RedisOutage:
    """A circuit breaker: whether to skip Redis for now, after a failure.

    `failed` opens it for `pause_s` (a warning when Redis goes down, then at most one
    every `max(pause_s, WARN_EVERY_S)` while it stays down); calls in the pause skip
    Redis; after the pause one call at a time probes Redis (the others still skip it)
    until one succeeds, which closes the breaker and logs that Redis is back.
    """

    def __init__(
        self,
        what: str,
        pause_s: float = OUTAGE_PAUSE_S,
        clock: Clock = time.monotonic,
        fallback: str = "going on without it",
    ) -> None:
        self.what = what
        self.pause_s = pause_s
        self.fallback = fallback
        self._clock = clock
        self._until = 0.0
        self._down = False
        self._probe_until = 0.0
        self._warned_at: float | None = None
        self.error = ""
        self._lock = threading.Lock()

    @property
    def down(self) -> bool:
        return self._down

    def skip(self) -> bool:
        if not self._down:
            return False
        now = self._clock()
        with self._lock:
            if now < self._until or now < self._probe_until:
                return True
            # This call probes Redis; the others skip it until the probe reports (or, if
            # the probe never reports — cancelled — until the next pause has passed).
            self._probe_until = now + self.pause_s
            return False

    def failed(self, exc: BaseException) -> None:
        now = self._clock()
        with self._lock:
            last = self._warned_at
            warn = last is None or now - last >= max(self.pause_s, WARN_EVERY_S)
            if warn:
                self._warned_at = now
            self._until = now + self.pause_s
            self._probe_until = 0.0
            self._down = True
            self.error = f"{type(exc).__name__}: {exc}"[:200]
        if warn:
            log.warning(
                "%s: Redis unavailable (%s); %s, trying Redis again every %g s",
                self.what,
                self.error,
                self.fallback,
                self.pause_s,
            )

    def ok(self) -> None:
        if self._down:
            with self._lock:
                was_down, self._down = self._down, False
                self._warned_at = None
                self._probe_until = 0.0
                self.error = ""
            if was_down:
                log.warning("%s: Redis is back", self.what)

    async def call(self, work: Awaitable[T], timeout_s: float) -> T:
        """Await a Redis call within `timeout_s` (a hard bound over the socket timeouts,
        which do not cover every wait); a failure is recorded and raised."""
        try:
            result = await asyncio.wait_for(work, timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.failed(exc)
            raise
        self.ok()
        return result


class RedisRateLimiter:
    def __init__(self, client: Any, prefix: str = "frontdesk:", clock: Clock = time.time) -> None:
        self._client = client
        self._prefix = prefix
        self._clock = clock

    async def hit(self, checks: Sequence[LimitCheck]) -> LimitDecision:
        now = self._clock()
        pipe = self._client.pipeline(transaction=False)
        windows: list[tuple[LimitCheck, int]] = []
        for check in checks:
            window = check.rule.window_s
            start = math.floor(now / window) * window
            key = f"{self._prefix}rl:{check.key}:{window}:{int(start)}"
            pipe.incr(key)
            pipe.expire(key, window + 1, nx=True)
            windows.append((check, start))
        results = await pipe.execute()
        # Each INCR's reply is followed by its EXPIRE's: the counts are every other reply.
        return tightest(
            [
                LimitDecision.counted(check.rule, int(count), start, now)
                for (check, start), count in zip(windows, results[::2], strict=True)
            ]
        )


class RedisSessionLocks:
    def __init__(self, client: Any, prefix: str = "frontdesk:") -> None:
        self._client = client
        self._prefix = prefix
        self._release = client.register_script(_RELEASE)

    async def acquire(self, key: str, ttl_s: float = DEFAULT_TTL_S) -> str | None:
        token = secrets.token_hex(8)
        taken = await self._client.set(
            f"{self._prefix}lock:{key}", token, nx=True, px=max(1, int(ttl_s * 1000))
        )
        return token if taken else None

    async def release(self, key: str, token: str) -> bool:
        freed = await self._release(keys=[f"{self._prefix}lock:{key}"], args=[token])
        return bool(freed)

    async def busy(self, key: str) -> bool:
        return bool(await self._client.exists(f"{self._prefix}lock:{key}"))


async def _drop_connections(client: Any) -> None:
    """Close every pooled connection after a failure: after a Redis restart each stale
    connection would otherwise fail once more (and flap the breaker) before a fresh one."""
    with contextlib.suppress(Exception):
        await client.connection_pool.disconnect()


class FallbackRateLimiter:
    """Counters in Redis (shared by replicas); per-process counters while Redis is down
    or slow. A turn never waits more than about `timeout_s` for Redis."""

    def __init__(
        self,
        shared: RedisRateLimiter,
        outage: RedisOutage,
        local: InMemoryRateLimiter | None = None,
        timeout_s: float = GUARD_TIMEOUT_S,
    ) -> None:
        self.shared = shared
        self.local = local or InMemoryRateLimiter()
        self.outage = outage
        self.timeout_s = timeout_s

    async def hit(self, checks: Sequence[LimitCheck]) -> LimitDecision:
        if not self.outage.skip():
            try:
                return await self.outage.call(self.shared.hit(checks), 2 * self.timeout_s)
            except Exception:  # recorded by the breaker; count in this process instead
                await _drop_connections(self.shared._client)
        return await self.local.hit(checks)


class FallbackSessionLocks:
    """One turn per session: always in this process, and across replicas through Redis
    while it answers. The token names both slots (`local:redis`; `local:` when Redis was
    skipped). A Redis slot that could not be freed (Redis down at the end of the turn) is
    freed when Redis answers again, so a session is not left busy for the slot's TTL."""

    def __init__(
        self,
        shared: RedisSessionLocks,
        outage: RedisOutage,
        local: InMemorySessionLocks | None = None,
        timeout_s: float = GUARD_TIMEOUT_S,
    ) -> None:
        self.shared = shared
        self.local = local or InMemorySessionLocks()
        self.outage = outage
        self.timeout_s = timeout_s
        self._unreleased: dict[str, str] = {}

    async def acquire(self, key: str, ttl_s: float = DEFAULT_TTL_S) -> str | None:
        local = await self.local.acquire(key, ttl_s)
        if local is None:
            return None
        if self.outage.skip():
            return f"{local}:"
        try:
            await self._release_leftovers()
            shared = await self.outage.call(self.shared.acquire(key, ttl_s), 2 * self.timeout_s)
        except Exception:  # recorded by the breaker: this process's slot only
            await _drop_connections(self.shared._client)
            return f"{local}:"
        if shared is None:
            await self.local.release(key, local)
            return None
        return f"{local}:{shared}"

    async def release(self, key: str, token: str) -> bool:
        local, _, shared = token.partition(":")
        freed = await self.local.release(key, local)
        if shared:
            try:
                if self.outage.skip():
                    raise ConnectionError("Redis is paused by the breaker")
                await self.outage.call(self.shared.release(key, shared), 2 * self.timeout_s)
            except Exception:
                self._unreleased[key] = shared
        return freed

    async def _release_leftovers(self) -> None:
        while self._unreleased:
            key, shared = next(iter(self._unreleased.items()))
            await self.outage.call(self.shared.release(key, shared), 2 * self.timeout_s)
            self._unreleased.pop(key, None)


async def shared_ip_salt(client: Any, prefix: str = "frontdesk:") -> bytes:
    """One IP-hash salt for every replica (per-IP limits must count the same visitor)."""
    key = f"{prefix}ip_salt"
    await client.set(key, secrets.token_hex(16), nx=True)
    value = await client.get(key)
    return bytes.fromhex(str(value))
