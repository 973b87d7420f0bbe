"""Throttling and lockout of failed admin authentication, per client IP.

Failures are counted by the process's `RateLimiter` (Redis when configured, so replicas
share the count; its in-process fallback otherwise): at most `max_failures` per minute
per IP. The failure that goes over the limit locks that IP out of the admin API for
`lockout_s` seconds: every admin request from it, right key or wrong, gets 429 with
`Retry-After` and is not checked at all, so a guesser learns nothing more. The lockout
itself is kept per process (a bounded dict); on another replica the shared counter is
already over the limit, so that replica locks the IP after at most one more failure.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from frontdesk.guard.limits import MINUTE, LimitCheck, LimitRule, RateLimiter

RULE = "admin_auth_failures_per_minute"


class AdminLockout:
    def __init__(
        self,
        limiter: RateLimiter,
        max_failures: int,
        lockout_s: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_ips: int = 10_000,
    ) -> None:
        self.limiter = limiter
        self.rule = LimitRule(RULE, max_failures, MINUTE)
        self.lockout_s = lockout_s
        self._clock = clock
        self._max_ips = max_ips
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def retry_after_s(self, ip_hash: str) -> int:
        """Seconds this IP is still locked out for (0: not locked out)."""
        now = self._clock()
        with self._lock:
            until = self._until.get(ip_hash)
            if until is None:
                return 0
            if until <= now:
                del self._until[ip_hash]
                return 0
            return max(1, math.ceil(until - now))

    async def failed(self, ip_hash: str) -> int:
        """Count one failed authentication; the lockout in seconds if it starts now, else 0."""
        decision = await self.limiter.hit([LimitCheck(f"admin-auth:{ip_hash}", self.rule)])
        if decision.allowed:
            return 0
        now = self._clock()
        with self._lock:
            if len(self._until) >= self._max_ips:
                self._until = {ip: t for ip, t in self._until.items() if t > now}
                if len(self._until) >= self._max_ips:  # still full: drop the oldest lockout
                    self._until.pop(min(self._until, key=self._until.__getitem__))
            self._until[ip_hash] = now + self.lockout_s
        return self.lockout_s
