"""Real services for production-mode tests: PostgreSQL (with pgvector) and Redis.

Each test gets its own database (unique name, dropped afterwards) or its own Redis key
prefix (deleted afterwards); a service that is not running skips the test with a reason,
and so does a PostgreSQL without a working pgvector, except under CI, where that fails.
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from collections.abc import Iterator

import pytest

PG_HOST, PG_PORT = "127.0.0.1", 5432
REDIS_URL = "redis://127.0.0.1:6379/0"
PG_ADMIN = f"postgresql://postgres@{PG_HOST}:{PG_PORT}/postgres"


def _database_url(name: str) -> str:
    return f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{name}"


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
        yield _database_url(name)
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
def pgvector_admin() -> str:
    """Admin URL of the local PostgreSQL once pgvector is known to work there."""
    return require_pgvector()


def require_pgvector() -> str:
    """The admin URL, or skip, or fail under CI.

    `make pgvector` (a step of `make test`) builds pgvector once per machine and installs it
    into the local server. Without it the pgvector tests skip, except under CI (`CI` set),
    where the production search path must not pass unexercised."""
    reason = _pgvector_unusable()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI: the PostgreSQL + pgvector tests must run)", pytrace=False)
        pytest.skip(reason)
    return PG_ADMIN


def _pgvector_unusable() -> str | None:
    """Why the pgvector tests cannot run on the local server, or None. The probe builds an
    HNSW index and searches it: a pgvector compiled for another CPU loads fine and dies with
    SIGILL (illegal instruction) only there."""
    import psycopg

    if not _reachable(PG_HOST, PG_PORT):
        return f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        available = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
    if available is None:
        return (
            f"pgvector is not installed in the PostgreSQL on {PG_HOST}:{PG_PORT}: "
            "run `make pgvector` (builds it once per machine; needs root)"
        )
    name = _create_database(PG_ADMIN)
    try:
        with psycopg.connect(_database_url(name), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
            conn.execute("CREATE TABLE probe (v vector(3))")
            conn.execute("CREATE INDEX ON probe USING hnsw (v vector_cosine_ops)")
            conn.execute("INSERT INTO probe VALUES ('[1,2,3]'), ('[3,2,1]')")
            conn.execute("SELECT v <=> '[1,1,1]' FROM probe ORDER BY v <=> '[1,1,1]'").fetchall()
    except psycopg.OperationalError as exc:
        return (
            "pgvector crashed in the local PostgreSQL (see its log for 'Illegal instruction': "
            f"a build for another CPU; rebuild it with `make pgvector`): {exc}"
        )
    finally:
        with contextlib.suppress(psycopg.OperationalError):
            _drop_database(PG_ADMIN, name)
    return None


@pytest.fixture
def pgvector_url(pgvector_admin: str) -> Iterator[str]:
    """A fresh database on the local PostgreSQL with pgvector (dropped afterwards); the
    store's migrations create the extension in it."""
    yield from fresh_pg_database()


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
