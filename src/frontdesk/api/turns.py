"""Admitting a turn: rate limits first, then the per-session slot (the first guard layer).

`admit` either raises a 429 `ApiError` (with `Retry-After` and `X-RateLimit-*`) or
returns an `Admission` holding the session slot; its `release` is idempotent and
shielded from cancellation, so it is safe to call from every exit path of a stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio

from frontdesk.api.errors import ApiError
from frontdesk.api.metrics import ApiMetrics
from frontdesk.guard.limits import LimitCheck, LimitDecision, RateLimiter
from frontdesk.guard.locks import DEFAULT_TTL_S, SessionLocks


@dataclass
class Admission:
    locks: SessionLocks
    lock_key: str
    token: str
    decision: LimitDecision
    released: bool = field(default=False)

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        with anyio.CancelScope(shield=True):
            await self.locks.release(self.lock_key, self.token)


@dataclass
class TurnGuard:
    limiter: RateLimiter
    locks: SessionLocks
    metrics: ApiMetrics
    lock_ttl_s: float = DEFAULT_TTL_S

    async def check_limits(self, site_id: str, checks: list[LimitCheck]) -> LimitDecision:
        decision = await self.limiter.hit(checks)
        if not decision.allowed:
            self.metrics.blocks.labels(site_id, "rate_limited").inc()
            raise ApiError(
                429,
                "rate_limited",
                f"Too many requests ({decision.rule}); try again in {decision.retry_after_s}s.",
                headers=decision.headers(),
            )
        return decision

    async def admit(self, site_id: str, session_id: str, checks: list[LimitCheck]) -> Admission:
        decision = await self.check_limits(site_id, checks)
        lock_key = f"{site_id}:{session_id}"
        token = await self.locks.acquire(lock_key, self.lock_ttl_s)
        if token is None:
            self.metrics.blocks.labels(site_id, "session_busy").inc()
            raise ApiError(
                429,
                "session_busy",
                "This session is already answering a message; wait for it to finish.",
                headers={"Retry-After": "1", **decision.headers()},
            )
        return Admission(self.locks, lock_key, token, decision)
