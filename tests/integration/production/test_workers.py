"""`frontdesk serve --workers N`: N uvicorn workers on one port, SQLite store, Redis guards."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from replicas import FRONTDESK, HEADERS, Replica, free_port

from frontdesk.settings import DEMO_DIR

pytestmark = pytest.mark.integration
REDIS_URL = "redis://127.0.0.1:6379/0"
WARMED_UP = "frontdesk.api.app: models loaded"  # one line per worker


@pytest.fixture(scope="module")
def server(module_redis_prefix: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replica]:
    tmp_path = tmp_path_factory.mktemp("workers")
    sites = tmp_path / "sites"
    shutil.copytree(DEMO_DIR / "sites", sites)  # no knowledge ingested: none is needed here
    env = {
        "FRONTDESK_REDIS_URL": REDIS_URL,
        "FRONTDESK_REDIS_PREFIX": module_redis_prefix,
        "FRONTDESK_DATA_DIR": str(tmp_path / "data"),  # a fresh SQLite store: migrated once
    }
    # --sites-dir is a command-line setting: the workers must get it from their parent.
    replica = Replica(env, tmp_path, "workers", ["--workers", "2", "--sites-dir", str(sites)])
    try:
        replica.wait_ready()
        # /readyz is green once one worker is; let the other finish loading too, so that
        # either may take the requests below.
        deadline = time.monotonic() + 120
        while replica.log.read_text().count(WARMED_UP) < 2:
            assert time.monotonic() < deadline, replica.log.read_text()[-3000:]
            time.sleep(0.5)
        yield replica
    finally:
        replica.stop()


SECRETS: dict[str, str] = {}
"""Each session's secret, from the response that started it (as the widget keeps it)."""


async def _ask(server: Replica, session: str, text: str) -> httpx.Response:
    # A client (connection) per request, so that any worker may accept it.
    async with httpx.AsyncClient() as client:
        body = {"message": text, "session_id": session, "session_secret": SECRETS.get(session)}
        response = await client.post(f"{server.url}/v1/ask", json=body, headers=HEADERS, timeout=60)
    if "X-Frontdesk-Session-Secret" in response.headers:
        SECRETS[session] = response.headers["X-Frontdesk-Session-Secret"]
    return response


@pytest.mark.redis
def test_two_workers_serve_one_port(server: Replica) -> None:
    assert len(server.worker_pids()) == 2
    assert httpx.get(f"{server.url}/readyz", timeout=5).status_code == 200
    log = server.log.read_text()
    assert "with 2 workers" in log
    assert log.count(WARMED_UP) == 2  # each worker warmed up


@pytest.mark.redis
async def test_a_conversation_keeps_its_memory_across_workers(server: Replica) -> None:
    session = str(uuid.uuid4())
    script = ["I'd like to book a demo", "sure, it's maria@example.org", "Hello!"]
    results = []
    for text in script:
        response = await _ask(server, session, text)
        assert response.status_code == 200, response.text
        results.append(response.json())
    assert [r["turn"] for r in results] == [1, 2, 3]
    # Turn 2 continues the booking that turn 1 started, whichever worker ran turn 1.
    assert results[1]["route"] == "BOOKING" and "maria@example.org" in results[1]["answer"]


@pytest.mark.redis
async def test_concurrent_requests_for_one_session_admit_exactly_one(server: Replica) -> None:
    session = str(uuid.uuid4())
    assert (await _ask(server, session, "Hello!")).status_code == 200
    responses = await asyncio.gather(
        *(_ask(server, session, "What is your uptime SLA?") for _ in range(6))
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 429, 429, 429, 429, 429], [r.text for r in responses]
    busy = {r.json()["error"]["code"] for r in responses if r.status_code == 429}
    assert busy == {"session_busy"}


@pytest.mark.parametrize("how", ["option", "setting"])
def test_several_workers_without_redis_refuse_to_start(how: str, tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")}
    env |= {"FRONTDESK_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    command = [FRONTDESK, "serve", "--host", "127.0.0.1", "--port", str(port)]
    if how == "option":
        command += ["--workers", "2"]
    else:
        env["FRONTDESK_WORKERS"] = "2"
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # one line, no traceback
    assert "FRONTDESK_REDIS_URL" in lines[0] and "--workers 1" in lines[0]
    assert "Frontdesk on" not in done.stdout
    assert not (tmp_path / "data").exists()  # nothing migrated
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
