"""Live takeover tests: the demo site (plus `acme`) served by loopback replicas."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_support import Replica, add_operator, write_sites

from frontdesk.settings import Settings
from tests.conftest import stack_of
from tests.support.stacks import RoundRobinProxy


@pytest.fixture
def live_settings(tmp_path: Path, sites_dir: Path) -> Settings:
    write_sites(sites_dir)
    return Settings(data_dir=tmp_path / "data", sites_dir=sites_dir, live_poll_s=30.0)


@pytest.fixture
def replica(request: pytest.FixtureRequest, live_settings: Settings) -> Iterator[Replica]:
    """The app on a loopback port; on the production `stack` (tests/conftest.py) two
    workers behind a balancer that sends each new connection to the next one, so an
    operator's post and the visitor's stream usually meet on different workers."""
    servers = [
        Replica(worker).start() for worker in stack_of(request).worker_settings(live_settings)
    ]
    server = servers[0]
    add_operator(server.runtime, "anna.berg@example.com", {"demo": "agent", "acme": "viewer"})
    add_operator(server.runtime, "vic@example.com", {"demo": "viewer"})
    add_operator(server.runtime, "otto@example.com", {"acme": "owner"})
    balancer = None
    if len(servers) > 1:
        balancer = RoundRobinProxy([s.port for s in servers]).start()
        server.url = balancer.url
    yield server
    if balancer is not None:
        balancer.stop()
        assert all(balancer.connections.values()), "every worker served the test"
    for each in servers:
        each.stop()


PG_HOST, PG_PORT = "127.0.0.1", 5432
PG_ADMIN = f"postgresql://postgres@{PG_HOST}:{PG_PORT}/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


def _reachable(host: str, port: int) -> bool:
    import socket

    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database on 127.0.0.1:5432, dropped afterwards."""
    import uuid

    if not _reachable(PG_HOST, PG_PORT):
        pytest.skip(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}")
    psycopg = pytest.importorskip("psycopg")
    name = f"fd_live_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of its own on the shared Redis (its keys deleted afterwards)."""
    import uuid

    if not _reachable("127.0.0.1", 6379):
        pytest.skip("Redis is not reachable on 127.0.0.1:6379")
    redis = pytest.importorskip("redis")
    prefix = f"fdlive-{uuid.uuid4().hex[:8]}:"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)
    client.close()
