"""Whether the app store can take writes now (`/readyz`).

Three cheap signals, any of which makes the store "not writable":

1. a write probe: one transaction that takes the write lock and rewrites one row of
   `sites` (SQLite `BEGIN IMMEDIATE`; PostgreSQL refuses it on a read-only server);
2. on SQLite, the space left on the database's volume (a full disk fails inserts while a
   one-row rewrite may still fit in the write-ahead log);
3. a turn's write that failed within the last `RECENT_FAILURE_S` seconds (a failing
   PostgreSQL disk, a constraint the probe cannot see). It decays on its own, so a
   replica taken out of rotation comes back once the probe passes again.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

RECENT_FAILURE_S = 30.0
MIN_FREE_BYTES = 8 * 1024 * 1024


class StoreWrites:
    """The last failed and the last successful write by this process (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.failed_at = 0.0
        self.ok_at = 0.0
        self.error = ""

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            self.failed_at = time.monotonic()
            self.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]

    def ok(self) -> None:
        with self._lock:
            self.ok_at = time.monotonic()

    def recent_failure(self, within_s: float = RECENT_FAILURE_S) -> str | None:
        """The error of a failed write in the last `within_s` seconds with no successful
        write after it, else None."""
        with self._lock:
            recent = time.monotonic() - self.failed_at < within_s
            if self.failed_at and self.failed_at > self.ok_at and recent:
                return self.error
        return None


store_writes = StoreWrites()
"""This process's record of store writes (turn writes report here)."""


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged process may still write on `path`'s volume."""
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def write_probe(engine: Engine, min_free_bytes: int = MIN_FREE_BYTES) -> str | None:
    """None when the store takes writes, else why not (one short transaction)."""
    url = make_url(str(engine.url))
    sqlite = url.get_backend_name() == "sqlite"
    if sqlite and url.database and url.database != ":memory:":
        folder = Path(url.database).parent
        left = free_bytes(folder)
        if left < min_free_bytes:
            return f"disk full: {left // 1024} KiB left on {folder}"
    with engine.connect() as connection:
        if sqlite:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.begin()
        connection.execute(
            text("UPDATE sites SET updated_at = updated_at WHERE id = (SELECT MIN(id) FROM sites)")
        )
        connection.commit()
    return store_writes.recent_failure()
