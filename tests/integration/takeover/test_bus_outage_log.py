"""A live bus whose Redis goes away logs the outage once and the recovery once.

The bus retries its subscription every second; each retry used to log a warning, so an
hour of Redis outage wrote 3,600 lines. A private `redis-server` (never the shared one)
is killed for ~3 s of retries and started again on the same port.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from frontdesk.takeover.bus import RedisBus
from tests.support.redis_server import PrivateRedis, redis_server_available

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not redis_server_available(), reason="redis-server is not installed"),
]


def _lines(caplog: pytest.LogCaptureFixture, words: str) -> int:
    return sum(words in record.getMessage() for record in caplog.records)


async def test_a_redis_outage_is_logged_once_and_its_end_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = PrivateRedis(tmp_path / "redis").start()
    bus = RedisBus(server.url, "bus-outage-test:", timeout_s=0.3)
    caplog.set_level(logging.INFO, logger="frontdesk.takeover.bus")
    try:
        await bus.start()
        server.stop()
        await asyncio.sleep(3.5)  # three or four reconnects against a closed port
        await bus.publish(["s:demo:1"])  # a publish during the outage: the same outage
        assert _lines(caplog, "Redis subscription lost") == 1, [
            r.getMessage() for r in caplog.records
        ]
        server.start()
        for _ in range(40):
            if _lines(caplog, "Redis subscription recovered"):
                break
            await asyncio.sleep(0.1)
        await bus.publish(["s:demo:1"])
        assert _lines(caplog, "Redis subscription recovered") == 1
        assert _lines(caplog, "Redis subscription lost") == 1
    finally:
        await bus.aclose()
        server.close()
