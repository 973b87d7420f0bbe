"""The per-session concurrency guard (the first layer).

One turn per session at a time: a second request while one is in flight is refused at
once (the API answers 429), never queued. A slot is held by an owner token, so only the
request that took it can free it, and it expires after `ttl_s` so a crashed worker can
never lock a session forever. `InMemorySessionLocks` serves one process; `guard/redis.py`
backs the same protocol with Redis (`SET key token NX PX ttl`, compare-and-delete).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Protocol

Clock = Callable[[], float]

DEFAULT_TTL_S = 300.0


class SessionLocks(Protocol):
    async def acquire(self, key: str, ttl_s: float = DEFAULT_TTL_S) -> str | None:
        """Take the slot; the owner token, or None when the session is busy."""
        ...

    async def release(self, key: str, token: str) -> bool:
        """Free the slot if `token` still owns it; True when it was freed now."""
        ...


class InMemorySessionLocks:
    """A dict of key → (token, expiry), guarded by a thread lock (never awaited under it)."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._held: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    async def acquire(self, key: str, ttl_s: float = DEFAULT_TTL_S) -> str | None:
        now = self._clock()
        with self._lock:
            held = self._held.get(key)
            if held is not None and held[1] > now:
                return None
            token = secrets.token_hex(8)
            self._held[key] = (token, now + ttl_s)
            return token

    async def release(self, key: str, token: str) -> bool:
        with self._lock:
            held = self._held.get(key)
            if held is None or held[0] != token:
                return False
            del self._held[key]
            return True

    def busy(self, key: str) -> bool:
        with self._lock:
            held = self._held.get(key)
            return held is not None and held[1] > self._clock()
