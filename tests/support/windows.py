"""Tests that count requests against per-minute limits start in a fresh window.

The limiters count in fixed windows aligned to the clock (epoch minutes), so a burst
that straddles a minute's end is counted in two windows and more requests pass than
the test expects. A test that needs `needed_s` of one window waits for the next
window when less than that is left of the current one.
"""

from __future__ import annotations

import time

MINUTE_S = 60


def wait_for_a_fresh_minute(needed_s: float = 20.0) -> None:
    """Sleep to the next minute's start if fewer than `needed_s` seconds are left."""
    left = MINUTE_S - time.time() % MINUTE_S
    if left < needed_s:
        time.sleep(left + 0.05)
