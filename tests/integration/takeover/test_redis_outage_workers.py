"""Redis unreachable under two workers sharing PostgreSQL: chats are answered, takeover
goes on, rate limits still hold, nothing answers 500, and Redis is used again once back.

The workers reach Redis through the production stack's proxy (tests/support/stacks.py),
which the test cuts (connections reset, new ones refused) or stalls (connections open,
nothing answered); the shared Redis server itself is never touched. What degrades:
limits and "one turn per session" count per worker instead of across workers, and a
takeover message reaches a visitor streaming from the other worker on the stream's
periodic re-read (`live_poll_s`) instead of at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import yaml
from api_support import ADMIN_KEY
from live_support import (
    Replica,
    add_operator,
    http,
    new_session,
    sign_in,
    visitor_stream,
    widget_headers,
    write_sites,
)

from frontdesk.settings import Settings
from tests.support.stacks import RoundRobinProxy, Stack
from tests.support.windows import wait_for_a_fresh_minute

pytestmark = [pytest.mark.integration, pytest.mark.postgres, pytest.mark.redis]

LIVE = "/console/sites/demo/live"
PER_SESSION = 3  # turns a session may take per minute, per worker while Redis is down
POLL_S = 1.0  # how often live streams re-read the event log without a wake-up
BOUND_S = 3.0  # a request may wait for Redis about 2 × 0.3 s, then goes on without it
WEBSITE = "https://tessellate.example/"  # the demo site's web source, never crawled here


class Workers:
    """Two workers behind a balancer that alternates connections between them."""

    def __init__(self, stack: Stack, settings: Settings) -> None:
        self.stack = stack
        self.replicas = [Replica(s).start() for s in stack.worker_settings(settings)]
        self.balancer = RoundRobinProxy([r.port for r in self.replicas]).start()
        self.url = self.balancer.url
        add_operator(self.replicas[0].runtime, "anna.berg@example.com", {"demo": "agent"})
        add_operator(self.replicas[0].runtime, "otto@example.com", {"demo": "owner"})

    @property
    def proxy(self) -> Any:
        assert self.stack.redis is not None
        return self.stack.redis

    def stop(self) -> None:
        self.balancer.stop()
        for replica in self.replicas:
            replica.stop()

    def redis_keys(self, kind: str) -> list[str]:
        client = redis.Redis(port=6379, decode_responses=True)
        try:
            return list(client.scan_iter(f"{self.stack.options['redis_prefix']}{kind}*"))
        finally:
            client.close()


@pytest.fixture
def workers(stack: Stack, tmp_path: Path, sites_dir: Path) -> Iterator[Workers]:
    write_sites(
        sites_dir,
        {"per_session_per_minute": PER_SESSION, "per_ip_per_minute": 500, "per_site_per_day": 500},
    )
    demo = yaml.safe_load((sites_dir / "demo.yaml").read_text(encoding="utf-8"))
    demo["knowledge"]["sources"].append({"url": WEBSITE})  # never crawled here
    (sites_dir / "demo.yaml").write_text(yaml.safe_dump(demo), encoding="utf-8")
    settings = Settings(
        data_dir=tmp_path / "data",
        sites_dir=sites_dir,
        live_poll_s=POLL_S,
        redis_timeout_s=0.3,
        redis_retry_s=0.5,
        admin_api_key_hash=hashlib.sha256(ADMIN_KEY.encode()).hexdigest(),
    )
    started = Workers(stack, settings)
    yield started
    started.stop()


def ask(base: str, session: str, secret: str, text: str = "What is Tessellate Flow?") -> Any:
    started = time.monotonic()
    response = httpx.post(
        f"{base}/v1/ask",
        json={"message": text, "session_id": session},
        headers=widget_headers(secret),
        timeout=30,
    )
    return response, time.monotonic() - started


def ready(base: str) -> list[dict[str, Any]]:
    """/readyz of both workers (two connections: one to each)."""
    answers = [httpx.get(f"{base}/readyz", timeout=10) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    return [a.json() for a in answers]


async def refused_syncs(base: str) -> None:
    """A sync started from the API or the console while Redis, where its lease (one sync
    per site across workers) lives, is unreachable: a clear, retryable 503, never a 500."""
    crawl = await http(
        "POST",
        f"{base}/v1/admin/sites/acme/crawls",
        json={"url": "https://acme.example/"},
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert crawl.status_code == 503, crawl.text
    assert crawl.json()["error"]["code"] == "sync_unavailable"
    assert "try again" in crawl.json()["error"]["message"]
    assert int(crawl.headers["Retry-After"]) > 0
    otto = sign_in(base, "otto@example.com")
    async with httpx.AsyncClient(base_url=base, cookies=otto.cookies, timeout=30) as owner:
        resync = await owner.post(
            "/console/sites/demo/knowledge/web/resync",
            data={"url": WEBSITE},
            headers=otto.headers(),
        )
    assert resync.status_code == 503, resync.text[:300]
    assert "Not started" in resync.text and "try again" in resync.text


@pytest.mark.parametrize("stack", ["production"], indirect=True)
@pytest.mark.parametrize("outage", ["cut", "stall"])
async def test_two_workers_keep_chats_takeover_and_limits_through_a_redis_outage(
    workers: Workers, outage: str
) -> None:
    base = workers.url
    # Redis up: a session's turn budget is shared by both workers.
    wait_for_a_fresh_minute()
    session, secret = new_session(base)
    codes = [ask(base, session, secret)[0].status_code for _ in range(PER_SESSION + 1)]
    assert codes == [200] * PER_SESSION + [429]
    assert workers.redis_keys("rl:"), "counters live in Redis while it is up"
    assert all(r["status"] == "ready" for r in ready(base))

    workers.proxy.cut() if outage == "cut" else workers.proxy.stall()
    try:
        # Chats are answered on both workers, each within a bounded wait.
        wait_for_a_fresh_minute(needed_s=8 * BOUND_S)
        session, secret = new_session(base)
        results = [ask(base, session, secret) for _ in range(2 * PER_SESSION + 2)]
        codes = [response.status_code for response, _ in results]
        # Limits hold per worker: PER_SESSION turns on each, then 429 (never a 500).
        assert codes == [200] * (2 * PER_SESSION) + [429, 429], [r.text for r, _ in results]
        assert max(seconds for _, seconds in results) < BOUND_S
        health = ready(base)
        assert [h["status"] for h in health] == ["degraded", "degraded"], health
        assert all(h["checks"]["redis"].startswith("down") for h in health)

        # Takeover: an operator on one worker reaches a visitor streaming from the other
        # (the bus is down: on the stream's re-read), and hands the chat back to the bot.
        session, secret = new_session(base)
        anna = sign_in(base, "anna.berg@example.com")  # the console signs in, too
        stream = await visitor_stream(base, session, secret).start()
        try:
            started = time.monotonic()
            joined = await anna.post(base, f"{LIVE}/{session}/join", {"name": "Anna"})
            assert joined.status_code == 200, joined.text
            sent = await anna.post(base, f"{LIVE}/{session}/reply", {"text": "Anna here."})
            assert sent.status_code == 200, sent.text
            # Each waited at most a bounded time for the bus, then went on without it.
            assert time.monotonic() - started < 2 * BOUND_S
            await stream.wait_for(lambda events: bool(stream.of("operator_message")), 10)
            assert stream.of("operator_message")[0].data["text"] == "Anna here."
            typed = await http(
                "POST",
                f"{base}/v1/sessions/{session}/typing",
                json={"active": True},
                headers=widget_headers(secret),
            )
            assert typed.status_code == 202, typed.text
            released = await anna.post(base, f"{LIVE}/{session}/release")
            assert released.status_code == 200, released.text
            await stream.wait_for(lambda events: bool(stream.of("released")), 10)
            log = (await anna.get(base, f"{LIVE}/{session}")).json()["events"]
            kinds = [e["type"] for e in log if e["type"] != "typing"]
            assert kinds == ["operator_joined", "operator_message", "released"]
        finally:
            await stream.close()

        if outage == "cut":  # stalled, the lease's client waits out its 5 s timeouts first
            await refused_syncs(base)
    finally:
        workers.proxy.restore()

    # Redis is back: after the breaker's pause, counters and readiness use it again.
    await asyncio.sleep(0.6)
    before = set(workers.redis_keys("rl:"))
    wait_for_a_fresh_minute()
    session, secret = new_session(base)
    codes = [ask(base, session, secret)[0].status_code for _ in range(PER_SESSION + 1)]
    assert codes == [200] * PER_SESSION + [429], "one budget across workers again"
    assert set(workers.redis_keys("rl:")) - before
    assert all(r["status"] == "ready" for r in ready(base))
