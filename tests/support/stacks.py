"""The stacks behavioural tests run on: `sqlite` (one process, the embedded default) and
`production` (two app workers sharing PostgreSQL with pgvector and Redis).

A test asks for the `stack` fixture (tests/conftest.py) and builds its app(s) with
`Stack.worker_settings`; its requests then alternate between the workers
(`alternating_client`, or `RoundRobinProxy` for servers on loopback ports), so a turn,
a takeover or a sign-in started on one worker continues on the other.

The production workers are two apps in the test process, each with its own runtime
(engine, sites), Redis clients, per-process fallbacks, live bus and event loop: what
they share is only what two `frontdesk serve` workers share. Each test gets its own
database (a copy of a migrated template, dropped afterwards) and its own Redis key
prefix; Redis is reached through a `RedisProxy` the test can cut, never by stopping the
shared server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from frontdesk.settings import Settings
from tests.support.failover_proxy import FailoverProxy
from tests.support.ports import free_port

PG_HOST, PG_PORT = "127.0.0.1", 5432
PG_ADMIN = f"postgresql://postgres@{PG_HOST}:{PG_PORT}/postgres"
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379

STACKS = ("sqlite", "production")


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def database_url(name: str) -> str:
    return f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{name}"


def unavailable(reason: str) -> None:
    """Skip, except under CI, where the production stack must not pass unexercised."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI: the production-stack tests must run)", pytrace=False)
    pytest.skip(reason)


def migrated_template() -> str:
    """A database with every migration applied (pgvector included), to copy per test:
    `CREATE DATABASE … TEMPLATE` copies files, far faster than migrating each time."""
    import psycopg

    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    for host, port, what in ((PG_HOST, PG_PORT, "PostgreSQL"), (REDIS_HOST, REDIS_PORT, "Redis")):
        if not reachable(host, port):
            unavailable(f"{what} is not reachable on {host}:{port}")
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        vector = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
    if vector is None:
        unavailable(f"pgvector is not installed in the PostgreSQL on {PG_HOST}:{PG_PORT}")
    name = f"fd_stack_tmpl_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    engine = make_engine(database_url(name))
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    return name


def copy_database(template: str) -> str:
    import psycopg

    name = f"fd_stack_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return name


def drop_database(name: str) -> None:
    import psycopg

    with (
        contextlib.suppress(psycopg.Error),
        psycopg.connect(PG_ADMIN, autocommit=True) as conn,
    ):
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def delete_redis_keys(prefix: str) -> None:
    import redis

    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT)
    try:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class RedisProxy:
    """A TCP proxy on loopback in front of the shared Redis, on a thread of its own.
    `cut()` closes every connection through it and refuses new ones (Redis unreachable,
    for this test's workers only); `restore()` listens again on the same port."""

    def __init__(self, upstream: tuple[str, int] = (REDIS_HOST, REDIS_PORT)) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.connections = 0
        self.cuts = 0
        self.stalled = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    @property
    def up(self) -> bool:
        return self._server is not None

    def start(self) -> RedisProxy:
        self._thread.start()
        self._run(self._listen())
        return self

    def stall(self) -> None:
        """Connections stay open (and new ones are accepted) but nothing is answered."""
        self.cuts += 1
        self.stalled = True

    def cut(self) -> None:
        self.cuts += 1
        self._run(self._close())

    def restore(self) -> None:
        if self.stalled:  # what was sent meanwhile was dropped: those connections are broken
            self._run(self._close())
            self.stalled = False
        self._run(self._listen())

    def stop(self) -> None:
        self._run(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def _run(self, work: Any) -> None:
        asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout=10)

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for writer in list(self._writers):
            writer.transport.abort()  # a reset, as when Redis or its host goes away
        self._writers.clear()
        if server is not None:
            await server.wait_closed()

    async def _shutdown(self) -> None:
        await self._close()
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    async def _handle(self, client: asyncio.StreamReader, to_client: asyncio.StreamWriter) -> None:
        if self._server is None:
            to_client.transport.abort()
            return
        try:
            upstream, to_upstream = await asyncio.open_connection(*self.upstream)
        except OSError:
            to_client.transport.abort()
            return
        if self._server is None:  # cut while this connection was being made
            to_client.transport.abort()
            to_upstream.transport.abort()
            return
        self.connections += 1
        self._writers.update((to_client, to_upstream))
        try:
            await asyncio.gather(self._pipe(client, to_upstream), self._pipe(upstream, to_client))
        except asyncio.CancelledError:
            # Stopped with the proxy: the connection task ends here (asyncio would log a
            # cancelled connection callback as an error).
            to_client.transport.abort()
            to_upstream.transport.abort()
        finally:
            self._writers.difference_update((to_client, to_upstream))

    async def _pipe(self, source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                if self.stalled:
                    continue  # swallowed: a Redis that stopped answering
                target.write(data)
                await target.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                target.close()


class RoundRobinProxy(FailoverProxy):
    """A balancer on loopback for workers served on ports: each new connection goes to
    the next worker (the one after that if it refuses)."""

    def __init__(self, upstream_ports: Sequence[int]) -> None:
        super().__init__(upstream_ports)
        self._turn = 0

    async def _handle(self, client: asyncio.StreamReader, to_client: asyncio.StreamWriter) -> None:
        ports = self.upstream_ports
        first, self._turn = self._turn, (self._turn + 1) % len(ports)
        for port in [*ports[first:], *ports[:first]]:
            try:
                upstream, to_upstream = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue  # refused: that worker is down, try the next
            self.connections[port] += 1
            break
        else:
            to_client.close()
            return
        await asyncio.gather(self._pipe(client, to_upstream), self._pipe(upstream, to_client))


class AlternatingTransport(httpx.BaseTransport):
    """Each request to the next worker's transport, in turn."""

    def __init__(self, transports: Sequence[httpx.BaseTransport]) -> None:
        self.transports = list(transports)
        self.sent = [0] * len(self.transports)
        self._turn = 0
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            turn, self._turn = self._turn, (self._turn + 1) % len(self.transports)
            self.sent[turn] += 1
        return self.transports[turn].handle_request(request)


class ThreadedAsyncTransport(httpx.AsyncBaseTransport):
    """Async requests (concurrent ones too) sent through a TestClient's transport from
    threads: each runs on its worker's own event loop, beside that worker's lifespan and
    Redis connections, not on the test's loop."""

    def __init__(self, transport: httpx.BaseTransport) -> None:
        self.transport = transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        def send() -> httpx.Response:
            response = self.transport.handle_request(request)
            response.read()
            return response

        response = await asyncio.to_thread(send)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            content=response.content,
            request=request,
        )


def async_client(client: TestClient) -> httpx.AsyncClient:
    """An async client for concurrent requests to the worker(s) behind `client`."""
    transport = ThreadedAsyncTransport(client._transport)
    return httpx.AsyncClient(transport=transport, base_url="http://frontdesk.test")


def alternating_client(
    apps: Sequence[Any], running: Sequence[TestClient] = (), **options: Any
) -> TestClient:
    """One client (one cookie jar, one set of event hooks) whose requests alternate
    between `apps`. `running`: clients already inside `with` (their lifespan ran); the
    new client's requests run on their event loops, as a worker's requests run on its."""
    clients = [TestClient(app, raise_server_exceptions=False, **options) for app in apps]
    for client, live in zip(clients, running, strict=False):
        client.portal = live.portal
    if len(clients) > 1:
        clients[0]._transport = AlternatingTransport([c._transport for c in clients])
        clients[0]._workers = clients  # type: ignore[attr-defined]  # keeps them alive
    return clients[0]


@dataclass
class Stack:
    """What a test's app(s) run on. `options` are the settings every worker shares."""

    name: str
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    redis: RedisProxy | None = None
    database: str = ""
    defaults: dict[str, Any] = field(default_factory=dict)

    @property
    def production(self) -> bool:
        return self.name == "production"

    def worker_settings(self, settings: Settings) -> list[Settings]:
        """One `Settings` per worker: the shared store and Redis, a data folder each."""
        workers = []
        for index in range(self.workers):
            data_dir = settings.data_dir
            if index:
                data_dir = data_dir.with_name(f"{data_dir.name}-worker{index}")
            # Defaults a test may override: the Redis proxy runs in the test process, so
            # a busy test process (two workers, the test, other xdist work on two cores)
            # can delay a Redis round trip past the product's 0.5 s and trip the outage
            # breaker; the outage tests set their own short timeouts.
            defaults = {
                name: value
                for name, value in self.defaults.items()
                if name not in settings.model_fields_set
            }
            update = {**defaults, **self.options, "data_dir": data_dir}
            workers.append(settings.model_copy(update=update))
        return workers


def production_stack(template: str) -> Iterator[Stack]:
    name = copy_database(template)
    prefix = f"fdstack:{uuid.uuid4().hex[:10]}:"
    proxy = RedisProxy().start()
    try:
        yield Stack(
            name="production",
            workers=2,
            options={
                "database_url": database_url(name),
                "redis_url": proxy.url(),
                "redis_prefix": prefix,
                "live_bus": "redis",
            },
            redis=proxy,
            database=name,
            defaults={"redis_timeout_s": 2.0},
        )
    finally:
        proxy.stop()
        drop_database(name)
        delete_redis_keys(prefix)
