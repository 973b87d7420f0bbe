"""`WritePace`: how a background writer (a sync, a re-embed) shares the database with
visitors' turns."""

from __future__ import annotations

import time
from collections.abc import Callable

PACED_REST_MIN_S = 0.01


class WritePace:
    """Spaces a background writer's writes: after each, it rests as long as the write
    took, and at least `PACED_REST_MIN_S`, so it holds the database at most half the time.

    SQLite lets one connection write at a time, and one that finds the database locked
    retries after growing sleeps (1, 2, 5, 10, 15, 20, 25 ms…), with no queue: against a
    sync writing its pages back to back, a visitor's turn found the lock taken again at
    each retry and waited tens of milliseconds to save its conversation. PostgreSQL lets
    both write at once, but there the sync's session keeps the search indexes up to date
    (an HNSW insert per passage) at the database server's normal priority, beside the
    turns' queries; resting halves what it can take."""

    def __init__(
        self,
        min_rest_s: float = PACED_REST_MIN_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.min_rest_s = min_rest_s
        self._sleep = sleep

    def rest_after(self, write_s: float) -> None:
        self._sleep(max(self.min_rest_s, write_s))
