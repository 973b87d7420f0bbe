"""Redis for stateless replicas: rate-limit counters, session locks, and cache plumbing.

Every replica sees the same counters and the same session slots, so a session that
sends two messages to two replicas at once still gets exactly one turn (the other 429).

- `RedisRateLimiter`: fixed windows aligned to epoch seconds, `INCR` + `EXPIRE` per
  window key in one pipeline (one round trip per request, whatever the number of rules).
- `RedisSessionLocks`: `SET key token NX PX ttl` and a compare-and-delete script, so only
  the owner frees a slot and a crashed process's slot expires after `ttl_s`.

The in-memory versions (`guard.limits`, `guard.locks`) stay the single-process default.

Caches (query embeddings, visitor enrichment) use Redis too, but a cache must never fail
a turn: they connect with short timeouts and report failures to a `RedisOutage`, which
skips Redis for a pause and logs one warning per outage instead of one per call.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

from frontdesk.guard.limits import Clock, LimitCheck, LimitDecision, tightest
from frontdesk.guard.locks import DEFAULT_TTL_S

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

log = logging.getLogger(__name__)

HEALTH_CHECK_S = 30  # seed 000: ping idle connections so they are never dropped silently
CACHE_TIMEOUT_S = 0.5  # a cache answer slower than this is worth less than recomputing
OUTAGE_PAUSE_S = 30.0


def redis_client(url: str, *, timeout_s: float = 5.0) -> Any:
    """An asyncio Redis client (connections open lazily, on the serving event loop)."""
    from redis.asyncio import Redis

    return Redis.from_url(
        url,
        health_check_interval=HEALTH_CHECK_S,
        socket_connect_timeout=timeout_s,
        socket_timeout=timeout_s,
        decode_responses=True,
    )


def redis_sync_client(url: str, *, timeout_s: float = CACHE_TIMEOUT_S) -> Any:
    """A blocking Redis client for worker threads (thread-safe: one connection pool);
    values are bytes."""
    from redis import Redis

    return Redis.from_url(
        url,
        health_check_interval=HEALTH_CHECK_S,
        socket_connect_timeout=timeout_s,
        socket_timeout=timeout_s,
    )


class RedisOutage:
    """Whether a cache should skip Redis for now, after a failure.

    `failed` starts a pause of `pause_s` (one warning per outage, not per call); calls in
    the pause skip Redis; the first success after it logs that Redis is back.
    """

    def __init__(
        self, what: str, pause_s: float = OUTAGE_PAUSE_S, clock: Clock = time.monotonic
    ) -> None:
        self.what = what
        self.pause_s = pause_s
        self._clock = clock
        self._until = 0.0
        self._down = False
        self._lock = threading.Lock()

    def skip(self) -> bool:
        return self._down and self._clock() < self._until

    def failed(self, exc: BaseException) -> None:
        now = self._clock()
        with self._lock:
            warn = now >= self._until
            self._until = now + self.pause_s
            self._down = True
        if warn:
            log.warning(
                "%s: Redis unavailable (%s: %s); going on without it for %.0f s",
                self.what,
                type(exc).__name__,
                exc,
                self.pause_s,
            )

    def ok(self) -> None:
        if self._down:
            with self._lock:
                was_down, self._down = self._down, False
            if was_down:
                log.info("%s: Redis is back", self.what)


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
        decisions = []
        for i, (check, start) in enumerate(windows):
            count = int(results[2 * i])
            decisions.append(
                LimitDecision(
                    allowed=count <= check.rule.limit,
                    rule=check.rule.name,
                    limit=check.rule.limit,
                    remaining=max(0, check.rule.limit - count),
                    reset_s=max(1, math.ceil(start + check.rule.window_s - now)),
                )
            )
        return tightest(decisions)


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


async def shared_ip_salt(client: Any, prefix: str = "frontdesk:") -> bytes:
    """One IP-hash salt for every replica (per-IP limits must count the same visitor)."""
    key = f"{prefix}ip_salt"
    await client.set(key, secrets.token_hex(16), nx=True)
    value = await client.get(key)
    return bytes.fromhex(str(value))
