"""Live takeover: operator-to-visitor delivery latency across two replicas.

    PYTHONPATH=src:. .venv/bin/python benchmarks/takeover.py [--conversations 200]
        [--rounds 5] [--bus redis|postgres] [--store postgres|sqlite] [--json]

Two `uvicorn` processes on loopback ports share one store (a throwaway PostgreSQL
database on 127.0.0.1:5432, or a SQLite file) and wake each other through Redis pub/sub
(127.0.0.1:6379, a key prefix of its own) or PostgreSQL LISTEN/NOTIFY. An operator signed
in on replica A joins `--conversations` live conversations; each visitor streams its
session's events from replica B (`GET /v1/sessions/{id}/events`). Then every
conversation gets `--rounds` operator messages posted on A, spread evenly over time
(about `--rate` messages per second overall), and the latency of each is measured from
just before the POST on A to the moment the event is read from B's stream — so it
includes the operator's request, the store write, the bus and the SSE write. Target:
p95 <= 300 ms. The periodic re-read of streams is set to 30 s: a message that missed the
bus would show as a ~30 s outlier.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import yaml

from frontdesk.conversation.payload import TurnEvent, TurnResult, VisitorContext
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.sites.registry import LoadedSite

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"
PASSWORD = "benchmark password 123"
OPERATOR = "bench.operator@example.com"


class NoChat:
    """The replicas' chat backend: this benchmark sends no visitor turns (and so loads no
    models); only the live takeover routes are exercised."""

    def stream_turn(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> AsyncIterator[TurnEvent]:
        raise RuntimeError("no turns in this benchmark")

    async def ask(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> TurnResult:
        raise RuntimeError("no turns in this benchmark")

    async def history(self, site: LoadedSite, session_id: str) -> list[dict[str, Any]]:
        return []

    async def erase(self, site: LoadedSite, session_id: str) -> bool:
        return False

    async def export(self, site: LoadedSite, session_id: str) -> dict[str, Any]:
        return {}


def replica_app() -> Any:
    """uvicorn factory of one replica (settings from the FRONTDESK_* environment)."""
    from frontdesk.api.app import create_app
    from frontdesk.settings import get_settings

    return create_app(get_settings(), chat=NoChat(), migrate_schema=False)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


BENCH_ORIGIN = "https://takeover.example"


def prepare_sites(folder: Path) -> tuple[str, str]:
    """The demo site with rate limits out of the way; (its widget key, an allowed origin)."""
    shutil.copytree(DEMO_DIR / "sites", folder)
    demo_file = folder / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8").replace("[../kb]", "[]"))
    demo["rate_limits"] = {"per_ip_per_minute": 1_000_000, "per_session_per_minute": 100_000}
    # The visitors' page, one origin for every replica (the demo's `self` names each one's own).
    demo["widget"]["allowed_origins"] = [*demo["widget"]["allowed_origins"], BENCH_ORIGIN]
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")
    return demo["widget"]["public_key"], BENCH_ORIGIN


def create_database() -> str:
    import psycopg

    name = f"fd_bench_takeover_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(settings: Settings, conversations: int) -> list[tuple[str, str]]:
    """Migrate the store, add the operator, issue the visitors' sessions."""
    from frontdesk.api.visitor_sessions import start_session
    from frontdesk.console.passwords import hash_password
    from frontdesk.runtime import build_runtime
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    runtime = build_runtime(settings)
    try:
        with transaction(runtime.sessions) as db:
            operators = OperatorRepository(db)
            operators.grant(operators.ensure(OPERATOR, hash_password(PASSWORD)), "demo", "agent")
        site = runtime.sites["demo"].config
        sessions = []
        for _ in range(conversations):
            grant = start_session(runtime, site, None)
            assert grant.issued is not None
            sessions.append((grant.session_id, grant.issued.secret))
        return sessions
    finally:
        runtime.close()


def start_replica(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "benchmarks.takeover:replica_app",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
            # Longer than the client's idle keep-alive: no request races a server close.
            "--timeout-keep-alive",
            "60",
        ],
        env=env,
    )


def wait_until_up(url: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not start")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sign_in(base: str) -> tuple[httpx.Cookies, str]:
    with httpx.Client(base_url=base, timeout=30) as client:
        page = client.get("/console/login")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert token, "no sign-in form"
        client.post(
            "/console/login",
            data={"email": OPERATOR, "password": PASSWORD, "csrf_token": token.group(1)},
        )
        inbox = client.get("/console/sites/demo/inbox")
        csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', inbox.text)
        assert csrf, "not signed in"
        return client.cookies, csrf.group(1)


async def measure(
    a_url: str,
    b_url: str,
    sessions: list[tuple[str, str]],
    key: str,
    origin: str,
    rounds: int,
    rate: float,
) -> dict[str, Any]:
    cookies, csrf = sign_in(a_url)
    limits = httpx.Limits(max_connections=len(sessions) + 64, max_keepalive_connections=64)
    operator = httpx.AsyncClient(
        base_url=a_url, cookies=cookies, headers={"X-CSRF-Token": csrf}, timeout=60, limits=limits
    )
    visitors = httpx.AsyncClient(
        base_url=b_url, timeout=httpx.Timeout(60, read=None), limits=limits
    )
    sent_at: dict[str, float] = {}
    latencies: list[float] = []
    post_ms: list[float] = []  # the operator's POST alone (replica A's share)
    opened = 0
    all_open = asyncio.Event()
    all_sent = asyncio.Event()
    drained = asyncio.Event()
    errors: list[str] = []

    async def join(session_id: str, gate: asyncio.Semaphore) -> None:
        async with gate:
            response = await operator.post(f"/console/sites/demo/live/{session_id}/join", json={})
            if response.status_code != 200:
                errors.append(f"join {response.status_code}")

    async def listen(session_id: str, secret: str) -> None:
        nonlocal opened
        headers = {
            "X-Frontdesk-Key": key,
            "Origin": origin,
            "X-Frontdesk-Session-Secret": secret,
            "Last-Event-ID": "0",
        }
        async with visitors.stream(
            "GET", f"/v1/sessions/{session_id}/events", headers=headers
        ) as response:
            if response.status_code != 200:
                errors.append(f"stream {response.status_code}")
                return
            opened += 1
            if opened == len(sessions):
                all_open.set()
            async for line in response.aiter_lines():
                if line.startswith("data:") and '"operator_message"' in line:
                    arrived = time.perf_counter()
                    data = json.loads(line[5:])
                    started = sent_at.pop(data["text"], None)
                    if started is not None:
                        latencies.append((arrived - started) * 1000)
                    if all_sent.is_set() and not sent_at:
                        drained.set()

    async def send(session_id: str, text: str) -> None:
        sent_at[text] = posted = time.perf_counter()
        try:
            response = await operator.post(
                f"/console/sites/demo/live/{session_id}/reply", json={"text": text}
            )
            post_ms.append((time.perf_counter() - posted) * 1000)
        except httpx.HTTPError as exc:  # counted, never silently dropped
            sent_at.pop(text, None)
            errors.append(f"reply {type(exc).__name__}")
            return
        if response.status_code != 200:
            sent_at.pop(text, None)
            errors.append(f"reply {response.status_code}")

    gate = asyncio.Semaphore(20)
    await asyncio.gather(*(join(session_id, gate) for session_id, _ in sessions))
    readers = [asyncio.create_task(listen(s, secret)) for s, secret in sessions]
    await asyncio.wait_for(all_open.wait(), 120)
    await asyncio.sleep(1.0)  # the streams' initial replays are done
    started = time.perf_counter()
    pending: list[asyncio.Task[None]] = []
    interval = 1.0 / rate
    for round_no in range(rounds):
        for index, (session_id, _) in enumerate(sessions):
            text = f"r{round_no}-c{index}-{uuid.uuid4().hex[:6]}"
            pending.append(asyncio.create_task(send(session_id, text)))
            await asyncio.sleep(interval)
    await asyncio.gather(*pending)
    elapsed = time.perf_counter() - started
    all_sent.set()
    if sent_at:  # the last deliveries are still on their way (or lost: reported)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(drained.wait(), 40)
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await operator.aclose()
    await visitors.aclose()
    return {
        "conversations": len(sessions),
        "messages_sent": rounds * len(sessions),
        "messages_received": len(latencies),
        "lost": len(sent_at),
        "errors": errors[:10],
        "error_count": len(errors),
        "send_rate_per_s": round(rounds * len(sessions) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(percentile(latencies, 0.95), 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
        "max_ms": round(max(latencies), 1) if latencies else None,
        "post_p50_ms": round(statistics.median(post_ms), 1) if post_ms else None,
        "post_p95_ms": round(percentile(post_ms, 0.95), 1) if post_ms else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rate", type=float, default=100.0, help="messages per second")
    parser.add_argument("--bus", choices=["redis", "postgres"], default="redis")
    parser.add_argument("--store", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.store == "sqlite" and args.bus == "postgres":
        parser.error("the postgres bus needs the postgres store")

    folder = Path(tempfile.mkdtemp(prefix="fd-takeover-"))
    key, origin = prepare_sites(folder / "sites")
    database = create_database() if args.store == "postgres" else None
    database_url = (
        f"postgresql://postgres@127.0.0.1:5432/{database}"
        if database
        else f"sqlite:///{folder / 'data' / 'frontdesk.db'}"
    )
    prefix = f"fdbench-{uuid.uuid4().hex[:8]}:"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")},
        "PYTHONPATH": os.pathsep.join(["src", "."]),
        "FRONTDESK_DATA_DIR": str(folder / "data"),
        "FRONTDESK_SITES_DIR": str(folder / "sites"),
        "FRONTDESK_DEMO_SITE": "false",
        "FRONTDESK_DATABASE_URL": database_url,
        "FRONTDESK_LIVE_BUS": args.bus,
        "FRONTDESK_LIVE_POLL_S": "30",
        "FRONTDESK_DISPATCH_IN_PROCESS": "false",
        "FRONTDESK_LOG_LEVEL": "WARNING",
    }
    if args.bus == "redis":
        env.update(FRONTDESK_REDIS_URL=REDIS_URL, FRONTDESK_REDIS_PREFIX=prefix)
    settings = Settings(
        data_dir=folder / "data", sites_dir=folder / "sites", database_url=database_url
    )
    processes: list[subprocess.Popen[bytes]] = []
    try:
        sessions = seed(settings, args.conversations)
        ports = [free_port(), free_port()]
        processes = [start_replica(env, port) for port in ports]
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        for url in urls:
            wait_until_up(url)
        result = asyncio.run(
            measure(urls[0], urls[1], sessions, key, origin, args.rounds, args.rate)
        )
        result.update(bus=args.bus, store=args.store, target_p95_ms=300)
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"takeover delivery A→B ({args.store} store, {args.bus} bus): "
                f"{result['conversations']} live conversations, "
                f"{result['messages_received']}/{result['messages_sent']} delivered "
                f"({result['lost']} lost, {result['error_count']} errors) at "
                f"{result['send_rate_per_s']} msg/s"
            )
            print(
                f"  latency p50 {result['p50_ms']} ms · p95 {result['p95_ms']} ms · "
                f"p99 {result['p99_ms']} ms · max {result['max_ms']} ms (target p95 <= 300 ms)"
            )
            print(
                f"  of which the operator's POST on A: p50 {result['post_p50_ms']} ms · "
                f"p95 {result['post_p95_ms']} ms"
            )
    finally:
        for process in processes:
            process.send_signal(signal.SIGINT)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        if database:
            drop_database(database)
        if args.bus == "redis":
            import redis

            client = redis.Redis.from_url(REDIS_URL)
            for stored in client.scan_iter(f"{prefix}*"):
                client.delete(stored)
            client.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
