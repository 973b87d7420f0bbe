"""Rate limits: fixed-window counters per session, per IP and per site per day.

The API asks a `RateLimiter` to count one hit against several rules at once and gets
back the most restrictive decision. `InMemoryRateLimiter` serves a single process;
`guard/redis.py` backs the same protocol with Redis (`INCR` + `EXPIRE` per window key),
which is why the algorithm is a fixed window: one counter per key and window, no lists.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from frontdesk.sites.schema import RateLimits

Clock = Callable[[], float]

MINUTE = 60
DAY = 86_400


@dataclass(frozen=True)
class LimitRule:
    """At most `limit` hits per `window_s` seconds for one key (e.g. one session)."""

    name: str
    limit: int
    window_s: int


@dataclass(frozen=True)
class LimitCheck:
    """One rule applied to one key: `key` already names the site and the subject."""

    key: str
    rule: LimitRule


@dataclass(frozen=True)
class LimitDecision:
    allowed: bool
    rule: str
    limit: int
    remaining: int
    reset_s: int
    """Seconds until the current window ends and the counter starts again."""

    @classmethod
    def counted(cls, rule: LimitRule, count: int, window_start: float, now: float) -> LimitDecision:
        """The decision for the `count`-th hit of the window of `rule` that began at
        `window_start`: one formula for every store that keeps the counters."""
        return cls(
            allowed=count <= rule.limit,
            rule=rule.name,
            limit=rule.limit,
            remaining=max(0, rule.limit - count),
            reset_s=max(1, math.ceil(window_start + rule.window_s - now)),
        )

    @property
    def retry_after_s(self) -> int:
        return max(1, self.reset_s)

    def headers(self) -> dict[str, str]:
        """`X-RateLimit-*` headers, plus `Retry-After` when the request is refused."""
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_s),
            "X-RateLimit-Policy": self.rule,
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after_s)
        return headers


class RateLimiter(Protocol):
    async def hit(self, checks: Sequence[LimitCheck]) -> LimitDecision:
        """Count one hit for every check; the refused one, or else the tightest one."""
        ...


def turn_checks(
    site_id: str, session_id: str, ip_hash: str, limits: RateLimits
) -> list[LimitCheck]:
    """The three limits a turn counts against (site file `rate_limits`)."""
    return [*session_checks(site_id, session_id, limits), *visitor_checks(site_id, ip_hash, limits)]


def visitor_checks(site_id: str, ip_hash: str, limits: RateLimits) -> list[LimitCheck]:
    """The limits known before the session is (per IP and per site): counted before
    anything of the request is written."""
    return [
        LimitCheck(
            f"{site_id}:ip:{ip_hash}",
            LimitRule("per_ip_per_minute", limits.per_ip_per_minute, MINUTE),
        ),
        LimitCheck(f"{site_id}:day", LimitRule("per_site_per_day", limits.per_site_per_day, DAY)),
    ]


def session_checks(site_id: str, session_id: str, limits: RateLimits) -> list[LimitCheck]:
    """The per-session limit, once the session is verified (and before it is written)."""
    return [
        LimitCheck(
            f"{site_id}:session:{session_id}",
            LimitRule("per_session_per_minute", limits.per_session_per_minute, MINUTE),
        )
    ]


def read_checks(site_id: str, ip_hash: str, limits: RateLimits) -> list[LimitCheck]:
    """Session reads (history, export, erase) count against their own per-IP budget."""
    return [
        LimitCheck(
            f"{site_id}:ip-read:{ip_hash}",
            LimitRule("per_ip_per_minute", limits.per_ip_per_minute, MINUTE),
        )
    ]


def tightest(decisions: Sequence[LimitDecision]) -> LimitDecision:
    """The first refusal, else the decision with the fewest remaining hits."""
    if not decisions:
        return LimitDecision(True, "none", 0, 0, 0)
    refused = [d for d in decisions if not d.allowed]
    if refused:
        return max(refused, key=lambda d: d.reset_s)
    return min(decisions, key=lambda d: (d.remaining / max(d.limit, 1), d.remaining))


class InMemoryRateLimiter:
    """Fixed-window counters in a dict; windows are aligned to the clock (epoch seconds)."""

    def __init__(self, clock: Clock = time.time, max_keys: int = 100_000) -> None:
        self._clock = clock
        self._max_keys = max_keys
        self._counts: dict[tuple[str, int, int], int] = {}
        self._lock = threading.Lock()

    async def hit(self, checks: Sequence[LimitCheck]) -> LimitDecision:
        now = self._clock()
        decisions: list[LimitDecision] = []
        with self._lock:
            if len(self._counts) > self._max_keys:
                self._evict(now)
            for check in checks:
                window = check.rule.window_s
                start = math.floor(now / window) * window
                slot = (check.key, window, start)
                count = self._counts.get(slot, 0) + 1
                self._counts[slot] = count
                decisions.append(LimitDecision.counted(check.rule, count, start, now))
        return tightest(decisions)

    def _evict(self, now: float) -> None:
        expired = [slot for slot in self._counts if slot[2] + slot[1] <= now]
        for slot in expired:
            del self._counts[slot]
