"""Throttling and lockout of failed admin authentication, per client IP.

Failures are counted by the process's `RateLimiter` (Redis when configured, so replicas
share the count; its in-process fallback otherwise): at most `max_failures` per minute
per key. The failure that goes over the limit locks that key out for `lockout_s`
seconds: every request under it, right credentials or wrong, gets 429 with `Retry-After`
and is not checked at all, so a guesser learns nothing more. The admin API locks per
client IP; console sign-in per IP and per (IP, account).

An account is never locked as such: anyone could lock its owner out from elsewhere. When
one account collects more than `max_failures` failures a minute from all IPs together,
each sign-in to it waits `account_slowdown_s` before its password is checked, for
`lockout_s` seconds: guessing from many addresses gets slower, and the owner still gets in.

Lockouts and slow-downs are kept per process (bounded dicts); on another replica the
shared counter is already over the limit, so that replica follows after at most one more
failure.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from frontdesk.guard.limits import MINUTE, LimitCheck, LimitRule, RateLimiter

RULE = "admin_auth_failures_per_minute"
ACCOUNT_RULE = "admin_auth_account_failures_per_minute"


class _Deadlines:
    """key → monotonic deadline, bounded: expired keys go first, then the oldest."""

    def __init__(self, clock: Callable[[], float], max_keys: int) -> None:
        self._clock = clock
        self._max_keys = max_keys
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def remaining(self, key: str) -> float:
        now = self._clock()
        with self._lock:
            until = self._until.get(key)
            if until is None:
                return 0.0
            if until <= now:
                del self._until[key]
                return 0.0
            return until - now

    def start(self, key: str, seconds: float) -> None:
        now = self._clock()
        with self._lock:
            if len(self._until) >= self._max_keys:
                self._until = {k: t for k, t in self._until.items() if t > now}
                if len(self._until) >= self._max_keys:  # still full: drop the oldest
                    self._until.pop(min(self._until, key=self._until.__getitem__))
            self._until[key] = now + seconds


class AdminLockout:
    def __init__(
        self,
        limiter: RateLimiter,
        max_failures: int,
        lockout_s: int,
        *,
        account_slowdown_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        max_ips: int = 10_000,
    ) -> None:
        self.limiter = limiter
        self.rule = LimitRule(RULE, max_failures, MINUTE)
        self.account_rule = LimitRule(ACCOUNT_RULE, max_failures, MINUTE)
        self.lockout_s = lockout_s
        self.account_slowdown_s = account_slowdown_s
        self._locked = _Deadlines(clock, max_ips)
        self._slowed = _Deadlines(clock, max_ips)

    def retry_after_s(self, key: str) -> int:
        """Seconds this key (an IP, or an IP and account) is still locked out for (0: not)."""
        remaining = self._locked.remaining(key)
        return max(1, math.ceil(remaining)) if remaining else 0

    async def failed(self, key: str) -> int:
        """Count one failed authentication; the lockout in seconds if it starts now, else 0."""
        decision = await self.limiter.hit([LimitCheck(f"admin-auth:{key}", self.rule)])
        if decision.allowed:
            return 0
        self._locked.start(key, self.lockout_s)
        return self.lockout_s

    def account_delay_s(self, account: str) -> float:
        """How long a sign-in to this account waits before its password is checked."""
        return self.account_slowdown_s if self._slowed.remaining(account) else 0.0

    async def account_failed(self, account: str) -> None:
        """Count one failure for an account from any IP; over the limit, slow it down."""
        check = LimitCheck(f"admin-auth-account:{account}", self.account_rule)
        if not (await self.limiter.hit([check])).allowed:
            self._slowed.start(account, self.lockout_s)
