import pytest

from frontdesk.guard.limits import InMemoryRateLimiter, LimitCheck, LimitDecision, LimitRule

pytestmark = pytest.mark.unit

RULE = LimitRule(name="session", limit=2, window_s=60)


@pytest.mark.parametrize(
    ("count", "now", "allowed", "remaining", "reset_s"),
    [
        (1, 120.0, True, 1, 60),
        (2, 150.2, True, 0, 30),
        (3, 179.9, False, 0, 1),  # never 0 s: a client told to retry at once would spin
    ],
)
def test_a_counted_hit_says_what_is_left_and_when_the_window_ends(
    count: int, now: float, allowed: bool, remaining: int, reset_s: int
) -> None:
    decision = LimitDecision.counted(RULE, count, window_start=120, now=now)
    assert decision == LimitDecision(
        allowed=allowed, rule="session", limit=2, remaining=remaining, reset_s=reset_s
    )


async def test_the_in_memory_limiter_refuses_the_hit_past_the_limit_until_the_next_window() -> None:
    now = [130.0]
    limiter = InMemoryRateLimiter(clock=lambda: now[0])
    checks = [LimitCheck(key="s1", rule=RULE)]
    assert [(await limiter.hit(checks)).allowed for _ in range(3)] == [True, True, False]
    refused = await limiter.hit(checks)
    assert (refused.remaining, refused.reset_s, refused.headers()["Retry-After"]) == (0, 50, "50")
    now[0] = 180.0
    assert (await limiter.hit(checks)).allowed
