"""Redis-backed guards for stateless replicas: rate-limit counters and session locks.

Every replica sees the same counters and the same session slots, so a session that
sends two messages to two replicas at once still gets exactly one turn (the other 429).

- `RedisRateLimiter`: fixed windows aligned to epoch seconds, `INCR` + `EXPIRE` per
  window key in one pipeline (one round trip per request, whatever the number of rules).
- `RedisSessionLocks`: `SET key token NX PX ttl` and a compare-and-delete script, so only
  the owner frees a slot and a crashed process's slot expires after `ttl_s`.

The in-memory versions (`guard.limits`, `guard.locks`) stay the single-process default.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Sequence
from typing import Any

from frontdesk.guard.limits import Clock, LimitCheck, LimitDecision, tightest
from frontdesk.guard.locks import DEFAULT_TTL_S

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

HEALTH_CHECK_S = 30  # seed 000: ping idle connections so they are never dropped silently


def redis_client(url: str) -> Any:
    """An asyncio Redis client (connections open lazily, on the serving event loop)."""
    from redis.asyncio import Redis

    return Redis.from_url(
        url,
        health_check_interval=HEALTH_CHECK_S,
        socket_connect_timeout=5,
        socket_timeout=5,
        decode_responses=True,
    )


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
