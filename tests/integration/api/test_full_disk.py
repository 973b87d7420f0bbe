"""A lead survives a store that cannot write: a really full disk, a read-only PostgreSQL.

The real API and `ChatService` (local engine). The SQLite store lives on a small tmpfs
the test mounts and fills with ballast; PostgreSQL is switched to read-only
(`default_transaction_read_only`, existing connections terminated). Reads work in both,
writes fail — the session key of a new visitor first. What must survive:

- the visitor's turn: answered (200), its lead in the spool (another volume) or mailed
  to the fallback address (the spool on the same full disk), and the answer says so;
- the session: its secret is issued and checked while the store is down; another
  visitor who knows the session id cannot continue, read or take it over, before or
  after the replay;
- the replay, once the store writes again: the lead stored exactly once (run twice).
"""

from __future__ import annotations

import contextlib
import subprocess
import uuid
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from api_support import demo_headers, parse_sse, write_sites
from fastapi.testclient import TestClient
from real_service import ingested_data_dir, service_unavailable_reason
from sqlalchemy import Engine, func, select

from frontdesk.api.app import create_app
from frontdesk.conversation.replay import replay_spool
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.health import store_writes
from frontdesk.store.models import Handoff
from frontdesk.store.widget import WidgetSessionKey
from tests.support.loopback import SmtpReceiver

REASON = service_unavailable_reason()

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(REASON is not None, reason=REASON or ""),
]

EMAIL = "jane.doe@example.com"
HUMAN = f"I want to talk to a person, my email is {EMAIL}"
SECRET = "X-Frontdesk-Session-Secret"
NOTE = "your request is noted"  # store.lead_kept (en)
QUIET: dict[str, Any] = {"spool_replay_s": 3600.0}  # the test runs the replay itself


@pytest.fixture(autouse=True)
def _fresh_store_health() -> Iterator[None]:
    store_writes.failed_at = store_writes.ok_at = 0.0
    yield
    store_writes.failed_at = store_writes.ok_at = 0.0


class SmallDisk:
    """A tmpfs mounted by the test, filled with ballast until writes fail."""

    def __init__(self, mount: Path) -> None:
        self.mount = mount
        self.ballast = mount / "ballast"

    def fill(self, store: Engine | None = None) -> None:
        if store is not None:
            # Empty the write-ahead log first: a write that still fits in its old pages
            # would succeed on a full disk, and which one does is a matter of timing.
            with store.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        # The error may come at the last write or at closing the file (its buffer still
        # holds what did not fit): both mean the disk is full.
        with contextlib.suppress(OSError), self.ballast.open("ab") as ballast:
            while True:
                ballast.write(b"\0" * 65536)
                ballast.flush()

    def free(self) -> None:
        self.ballast.unlink()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    mount = tmp_path / "small-disk"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {made.stderr.decode().strip()}")
    try:
        yield SmallDisk(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _turn(
    client: TestClient, message: str, headers: dict[str, str] | None = None, **body: Any
) -> tuple[httpx.Response, str, dict[str, Any]]:
    response = client.post(
        "/v1/chat", json={"message": message, **body}, headers={**demo_headers(), **(headers or {})}
    )
    assert response.status_code == 200, response.text
    name, data = parse_sse(response.text)[-1]
    return response, name, data


def _handoffs(runtime: Runtime, session: str) -> list[Handoff]:
    with runtime.sessions() as db:
        return list(db.scalars(select(Handoff).where(Handoff.session_id == session)).all())


def _keys(runtime: Runtime, session: str) -> int:
    with runtime.sessions() as db:
        query = select(func.count()).where(WidgetSessionKey.session_id == session)
        return int(db.scalar(query) or 0)


def _spooled_text(folder: Path) -> str:
    return "".join(path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.jsonl")))


def _outage_then_recovery(
    client: TestClient, runtime: Runtime, spool: Path, break_writes: Any, restore_writes: Any
) -> None:
    """The visitor's story, the attacker's tries, the replay: shared by both stores."""
    warm, name, _ = _turn(client, "What is Tessellate Flow?")  # the server ran before
    assert name == "complete"
    break_writes()

    response, name, done = _turn(client, HUMAN)
    assert name == "complete", done  # answered, not 503 / store_unavailable
    session, secret = response.headers["X-Frontdesk-Session"], response.headers[SECRET]
    assert done["metadata"]["handoff"], "the visitor asked for a person"
    answer = done["metadata"]["answer"]
    assert NOTE in answer and EMAIL in answer, answer  # the truth, not "all good"
    assert _keys(runtime, session) == 0 and not _handoffs(runtime, session)
    assert EMAIL in _spooled_text(spool), "the lead waits in the spool"

    # Another visitor who learnt the session id: no secret, a wrong one, a fresh one.
    for stranger in ({}, {SECRET: "guessed"}, {SECRET: warm.headers[SECRET]}):
        refused = client.post(
            "/v1/chat",
            json={"message": "what did I say?", "session_id": session},
            headers={**demo_headers(), **stranger},
        )
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "session_secret_invalid"
    # The visitor goes on with their secret while the store is still down.
    again, name, _ = _turn(client, "Thanks!", {SECRET: secret}, session_id=session)
    assert name == "complete" and again.headers["X-Frontdesk-Session"] == session

    restore_writes()
    assert replay_spool(runtime) >= 2
    assert replay_spool(runtime) == 0, "replayed twice, written once"
    (handoff,) = _handoffs(runtime, session)
    assert EMAIL in str(handoff.packet)
    assert _keys(runtime, session) == 1, "the spooled key, and no other"
    history = client.get(f"/v1/sessions/{session}", headers={**demo_headers(), SECRET: secret})
    assert history.status_code == 200, history.text
    said = [m["content"] for m in history.json()["messages"] if m["role"] == "user"]
    assert said == [HUMAN, "Thanks!"]
    replies = [m["content"] for m in history.json()["messages"] if m["role"] == "assistant"]
    assert replies[0] == answer, "the transcript holds what the visitor read"
    stolen = client.get(f"/v1/sessions/{session}", headers={**demo_headers(), SECRET: "guessed"})
    assert stolen.status_code == 403


def test_a_full_disk_keeps_the_lead_in_a_spool_on_another_volume(
    small_disk: SmallDisk, tmp_path: Path, sites_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    write_sites(sites_dir)
    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites_dir, small_disk.mount / "data")
    spool = tmp_path / "spool-volume"
    settings = Settings(data_dir=data, sites_dir=sites_dir, spool_dir=spool, **QUIET)
    runtime = build_runtime(settings)
    try:
        with TestClient(create_app(settings, runtime)) as client:
            fill = partial(small_disk.fill, runtime.engine)
            _outage_then_recovery(client, runtime, spool, fill, small_disk.free)
    finally:
        runtime.close()


def test_a_full_disk_under_store_and_spool_mails_the_lead(
    small_disk: SmallDisk, sites_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    write_sites(sites_dir)
    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites_dir, small_disk.mount / "data")
    with SmtpReceiver() as mailbox:
        settings = Settings(
            data_dir=data,  # the spool too: `<data_dir>/spool`, on the full disk
            sites_dir=sites_dir,
            smtp_host="127.0.0.1",
            smtp_port=mailbox.port,
            smtp_starttls=False,
            fallback_email="sales@example.com",
            **QUIET,
        )
        runtime = build_runtime(settings)
        try:
            with TestClient(create_app(settings, runtime)) as client:
                assert _turn(client, "What is Tessellate Flow?")[1] == "complete"
                small_disk.fill(runtime.engine)
                response, name, done = _turn(client, HUMAN)
                assert name == "complete", done
                answer = done["metadata"]["answer"]
                assert NOTE in answer and EMAIL in answer, answer
                assert response.headers[SECRET]
                session = response.headers["X-Frontdesk-Session"]
                (mail,) = mailbox.mails
                assert EMAIL in mail.body and session in mail.body
                assert "store" in mail.body  # says why it came by e-mail
                # A question without a lead is not acknowledged unkept: a clear error.
                _, name, failed = _turn(client, "What integrations are there?")
                assert name == "error" and failed["code"] == "store_unavailable", failed
        finally:
            runtime.close()


@pytest.fixture
def read_only_pg() -> Iterator[tuple[str, Any, Any]]:
    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    try:
        psycopg.connect(admin, connect_timeout=2).close()
    except psycopg.OperationalError:
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    name = f"fd_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def switch(read_only: bool) -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            setting = "on" if read_only else "off"
            conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = {setting}')
            # Open connections keep their setting: end them, the pools reconnect.
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )

    try:
        yield (
            f"postgresql://postgres@127.0.0.1:5432/{name}",
            lambda: switch(True),
            lambda: switch(False),
        )
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_read_only_postgresql_keeps_the_lead_in_the_spool(
    read_only_pg: tuple[str, Any, Any], tmp_path: Path, sites_dir: Path
) -> None:
    url, break_writes, restore_writes = read_only_pg
    write_sites(sites_dir)
    spool = tmp_path / "spool"
    settings = Settings(
        data_dir=tmp_path / "data", sites_dir=sites_dir, database_url=url, spool_dir=spool, **QUIET
    )
    runtime = build_runtime(settings)
    try:
        with TestClient(create_app(settings, runtime)) as client:
            _outage_then_recovery(client, runtime, spool, break_writes, restore_writes)
            break_writes()  # other writes: a clear 503 to retry, never a 500
            started = client.post("/v1/sessions", json={}, headers=demo_headers())
            assert started.status_code == 503, started.text
            assert started.json()["error"]["code"] == "store_unavailable"
            assert started.headers["Retry-After"] == "5"
    finally:
        runtime.close()
