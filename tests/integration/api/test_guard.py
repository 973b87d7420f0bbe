"""The in-memory rate limiter and session locks (pure logic, a fake clock, no I/O)."""

from __future__ import annotations

import pytest

from frontdesk.guard.limits import (
    DAY,
    InMemoryRateLimiter,
    LimitCheck,
    LimitDecision,
    LimitRule,
    tightest,
    turn_checks,
)
from frontdesk.guard.locks import InMemorySessionLocks
from frontdesk.sites.schema import RateLimits

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_fixed_window_counts_and_resets() -> None:
    clock = Clock(120.0)  # the start of a minute window
    limiter = InMemoryRateLimiter(clock)
    check = [LimitCheck("demo:session:s1", LimitRule("per_session_per_minute", 2, 60))]
    first = await limiter.hit(check)
    assert (first.allowed, first.remaining, first.reset_s) == (True, 1, 60)
    clock.now += 20
    second = await limiter.hit(check)
    assert (second.allowed, second.remaining, second.reset_s) == (True, 0, 40)
    third = await limiter.hit(check)
    assert not third.allowed
    assert third.headers()["Retry-After"] == "40"
    clock.now += 40  # next window
    assert (await limiter.hit(check)).allowed


async def test_keys_are_independent() -> None:
    limiter = InMemoryRateLimiter(Clock())
    rule = LimitRule("per_ip_per_minute", 1, 60)
    assert (await limiter.hit([LimitCheck("demo:ip:a", rule)])).allowed
    assert not (await limiter.hit([LimitCheck("demo:ip:a", rule)])).allowed
    assert (await limiter.hit([LimitCheck("demo:ip:b", rule)])).allowed
    assert (await limiter.hit([LimitCheck("acme:ip:a", rule)])).allowed


async def test_turn_checks_report_the_tightest_rule() -> None:
    limits = RateLimits(per_session_per_minute=5, per_ip_per_minute=3, per_site_per_day=100)
    limiter = InMemoryRateLimiter(Clock())
    decision = await limiter.hit(turn_checks("demo", "s", "ip", limits))
    assert decision.rule == "per_ip_per_minute"
    assert decision.remaining == 2
    for _ in range(2):
        await limiter.hit(turn_checks("demo", "s", "ip", limits))
    refused = await limiter.hit(turn_checks("demo", "s", "ip", limits))
    assert not refused.allowed
    assert refused.rule == "per_ip_per_minute"


def test_tightest_prefers_the_longest_wait_among_refusals() -> None:
    minute = LimitDecision(False, "per_ip_per_minute", 3, 0, 30)
    day = LimitDecision(False, "per_site_per_day", 9, 0, DAY - 5)
    ok = LimitDecision(True, "per_session_per_minute", 20, 19, 30)
    assert tightest([ok, minute, day]) is day
    assert tightest([ok]) is ok
    assert tightest([]).allowed


async def test_locks_refuse_a_second_holder_and_free_only_for_the_owner() -> None:
    clock = Clock()
    locks = InMemorySessionLocks(clock)
    token = await locks.acquire("demo:s1", ttl_s=30)
    assert token is not None
    assert await locks.acquire("demo:s1") is None
    assert await locks.acquire("demo:s2") is not None
    assert not await locks.release("demo:s1", "someone-else")
    assert locks.busy("demo:s1")
    assert await locks.release("demo:s1", token)
    assert not await locks.release("demo:s1", token)
    assert await locks.acquire("demo:s1") is not None


async def test_locks_expire_so_a_crash_never_locks_a_session_forever() -> None:
    clock = Clock()
    locks = InMemorySessionLocks(clock)
    stale = await locks.acquire("demo:s1", ttl_s=10)
    assert stale is not None
    clock.now += 11
    fresh = await locks.acquire("demo:s1", ttl_s=10)
    assert fresh is not None
    assert not await locks.release("demo:s1", stale)
    assert locks.busy("demo:s1")
