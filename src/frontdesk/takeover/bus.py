"""Wake-ups for live streams, shared by every replica.

The bus carries only channel names, never messages: a subscriber that is woken re-reads
the event log (`store/live.py`) for ids above the last one it sent. A lost or repeated
wake-up therefore costs a read, never a message; streams also re-read every `poll_s`
seconds, so even a bus outage only delays delivery.

- `RedisBus`: PUBLISH on one Redis channel; one SUBSCRIBE connection per process.
- `PostgresBus`: NOTIFY inside the writing transaction (PostgreSQL delivers it at commit,
  and only then); one LISTEN connection per process.
- `ProcessBus`: one process (SQLite, a single replica, tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, Literal

from sqlalchemy import Connection, text

log = logging.getLogger(__name__)

NOTIFY_CHANNEL = "frontdesk_live"
RETRY_S = 1.0

BusKind = Literal["redis", "postgres", "process"]


def session_channel(site_id: str, session_id: str) -> str:
    return f"s:{site_id}:{session_id}"


def site_channel(site_id: str) -> str:
    return f"site:{site_id}"


class LocalWaiters:
    """This process's subscribers, by channel: each holds an event the bus sets."""

    def __init__(self) -> None:
        self._by_channel: dict[str, set[asyncio.Event]] = {}

    @contextlib.contextmanager
    def waiter(self, channel: str) -> Iterator[asyncio.Event]:
        event = asyncio.Event()
        self._by_channel.setdefault(channel, set()).add(event)
        try:
            yield event
        finally:
            waiters = self._by_channel.get(channel)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._by_channel[channel]

    def wake(self, channel: str) -> None:
        for event in self._by_channel.get(channel, ()):
            event.set()

    def wake_all(self) -> None:
        for waiters in self._by_channel.values():
            for event in waiters:
                event.set()

    def count(self) -> int:
        return sum(len(waiters) for waiters in self._by_channel.values())


class OutageLog:
    """One warning when a bus connection is lost and one line when it is back, however
    often a reconnect or a publish fails in between (a retry every second would
    otherwise log every second of an outage)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.down = False

    def lost(self, exc: BaseException) -> None:
        if not self.down:
            self.down = True
            log.warning("live bus: %s lost (%s); retrying every %g s", self.what, exc, RETRY_S)

    def recovered(self) -> None:
        if self.down:
            self.down = False
            log.warning("live bus: %s recovered", self.what)


class LiveBus:
    """In-process bus (one replica); the base of the shared ones."""

    kind: BusKind = "process"

    def __init__(self) -> None:
        self.waiters = LocalWaiters()

    async def start(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    def in_transaction(self, connection: Connection, channels: Iterable[str]) -> None:
        """Called inside the writing transaction (only PostgreSQL's NOTIFY uses it)."""
        return None

    async def publish(self, channels: Iterable[str]) -> None:
        """Called after the commit."""
        for channel in channels:
            self.waiters.wake(channel)


class ListeningBus(LiveBus):
    """A bus shared by replicas: one connection per process listens for the channels to
    wake, and is opened again `RETRY_S` after a failure."""

    def __init__(self, what: str, task_name: str) -> None:
        super().__init__()
        self.outage = OutageLog(what)
        self._task_name = task_name
        self._listener: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self) -> None:
        self._listener = asyncio.create_task(self._listen(), name=self._task_name)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), 5.0)

    async def _listen(self) -> None:
        while True:
            try:
                async for channel in self._subscription():
                    self.waiters.wake(channel)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.outage.lost(exc)
                await asyncio.sleep(RETRY_S)

    def _subscription(self) -> AsyncIterator[str]:
        """The channels to wake, from one connection; `_subscribed()` once it listens."""
        raise NotImplementedError

    def _subscribed(self) -> None:
        self.outage.recovered()
        self._ready.set()
        self.waiters.wake_all()  # anything published while we were away is re-read

    async def aclose(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener


class RedisBus(ListeningBus):
    """PUBLISH and SUBSCRIBE on one Redis channel. Publishing is bounded: it runs inside
    an operator's or a visitor's request, so a Redis that is down or stalled costs that
    request at most `publish_timeout_s` once per `pause_s` (publishes in between skip
    Redis); this process's streams are woken directly and the other processes' streams
    re-read on their `poll_s` timer."""

    kind: BusKind = "redis"

    def __init__(
        self,
        url: str,
        prefix: str,
        *,
        timeout_s: float = 2.0,
        publish_timeout_s: float = 0.5,
        pause_s: float = 5.0,
    ) -> None:
        super().__init__("Redis subscription", "frontdesk-live-redis")
        from redis.asyncio import Redis

        from frontdesk.guard.redis import redis_client

        self.channel = f"{prefix}live"
        # The subscription waits for messages without a read timeout; publishing has one.
        self.redis: Any = Redis.from_url(url, socket_connect_timeout=timeout_s)
        self.publisher: Any = redis_client(url, timeout_s=publish_timeout_s)
        self.publish_timeout_s = publish_timeout_s
        self.pause_s = pause_s
        self._skip_until = 0.0
        # Subscribing and publishing share one outage (`self.outage`): Redis is down for both.

    async def _subscription(self) -> AsyncIterator[str]:
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self.channel)
            self._subscribed()
            async for message in pubsub.listen():
                data = message.get("data")
                if isinstance(data, bytes):
                    yield data.decode()
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def publish(self, channels: Iterable[str]) -> None:
        channels = list(channels)
        if time.monotonic() >= self._skip_until:
            try:
                await asyncio.wait_for(self._publish(channels), 2 * self.publish_timeout_s)
                self.outage.recovered()
                return
            except Exception as exc:  # the stream's periodic re-read still delivers
                self._skip_until = time.monotonic() + self.pause_s
                self.outage.lost(exc)
                with contextlib.suppress(Exception):  # stale after a restart or a stall
                    await self.publisher.connection_pool.disconnect()
        for channel in channels:
            self.waiters.wake(channel)

    async def _publish(self, channels: list[str]) -> None:
        for channel in channels:
            await self.publisher.publish(self.channel, channel)

    async def aclose(self) -> None:
        await super().aclose()
        await self.redis.aclose()
        await self.publisher.aclose()


class PostgresBus(ListeningBus):
    kind: BusKind = "postgres"

    def __init__(self, conninfo: str) -> None:
        super().__init__("PostgreSQL LISTEN", "frontdesk-live-pg")
        self.conninfo = conninfo

    async def _subscription(self) -> AsyncIterator[str]:
        import psycopg

        async with await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True) as conn:
            await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
            self._subscribed()
            async for notice in conn.notifies():
                yield notice.payload

    def in_transaction(self, connection: Connection, channels: Iterable[str]) -> None:
        # Transactional: listeners hear it at commit, never for a rolled-back write.
        for channel in channels:
            connection.execute(
                text("SELECT pg_notify(:name, :channel)"),
                {"name": NOTIFY_CHANNEL, "channel": channel},
            )

    async def publish(self, channels: Iterable[str]) -> None:
        return None  # sent by the transaction itself


async def wake_ups(waiter: asyncio.Event, poll_s: float) -> AsyncIterator[None]:
    """Yield once now, then after every wake-up (or `poll_s` without one)."""
    while True:
        waiter.clear()
        yield None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter.wait(), poll_s)
