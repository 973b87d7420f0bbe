"""Two replicas sharing one PostgreSQL store: what an operator does on replica A reaches
the visitor streaming from replica B, through Redis pub/sub and through PostgreSQL
LISTEN/NOTIFY; a stream dropped on A resumes on B without loss or repeats; presence is
shared. `live_poll_s` is 30 s: deliveries within the test came through the bus."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_support import (
    Replica,
    add_operator,
    http,
    new_session,
    operator_stream,
    sign_in,
    visitor_stream,
    widget_headers,
)

from frontdesk.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.postgres]

LIVE = "/console/sites/demo/live"


@pytest.fixture(params=["redis", "postgres"])
def replicas(
    request: pytest.FixtureRequest, live_settings: Settings, pg_url: str, tmp_path: Path
) -> Iterator[tuple[Replica, Replica]]:
    bus = request.param
    options: dict[str, object] = {"database_url": pg_url, "live_bus": bus}
    if bus == "redis":
        prefix = request.getfixturevalue("redis_prefix")
        options.update(redis_url="redis://127.0.0.1:6379/0", redis_prefix=prefix)
    first = live_settings.model_copy(update={**options, "data_dir": tmp_path / "a"})
    second = live_settings.model_copy(update={**options, "data_dir": tmp_path / "b"})
    a = Replica(first).start()
    b = Replica(second).start()
    assert a.desk.bus.kind == bus and b.desk.bus.kind == bus
    add_operator(a.runtime, "anna.berg@example.com", {"demo": "agent"})
    yield a, b
    a.stop()
    b.stop()


async def test_operator_on_a_reaches_the_visitor_on_b(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    session_id, secret = new_session(a.url)
    anna = sign_in(a.url, "anna.berg@example.com")  # the console session works on both
    visitor = await visitor_stream(b.url, session_id, secret).start()
    operator_on_b = await operator_stream(b.url, anna, f"{LIVE}/{session_id}/events").start()
    try:
        assert (
            await anna.post(a.url, f"{LIVE}/{session_id}/join", {"name": "Anna"})
        ).status_code == 200
        sent = await anna.post(a.url, f"{LIVE}/{session_id}/reply", {"text": "from replica A"})
        assert sent.status_code == 200, sent.text
        await visitor.wait_for(lambda events: len(visitor.of("operator_message")) == 1, 10)
        assert visitor.of("operator_message")[0].data["text"] == "from replica A"
        assert [e.event for e in visitor.events if e.id] == ["operator_joined", "operator_message"]

        # The visitor types on A; the operator's stream on B sees it.
        typed = await http(
            "POST",
            f"{a.url}/v1/sessions/{session_id}/typing",
            json={"active": True},
            headers=widget_headers(secret),
        )
        assert typed.status_code == 202, typed.text
        await operator_on_b.wait_for(
            lambda events: any(e.data.get("who") == "visitor" for e in events), 10
        )
        # The other operator tab (on B) saw Anna's own message too.
        assert [e.data["text"] for e in operator_on_b.of("operator_message")] == ["from replica A"]
    finally:
        await visitor.close()
        await operator_on_b.close()


async def test_a_stream_dropped_on_a_resumes_on_b(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    session_id, secret = new_session(a.url)
    anna = sign_in(b.url, "anna.berg@example.com")
    assert (await anna.post(b.url, f"{LIVE}/{session_id}/join")).status_code == 200
    on_a = await visitor_stream(a.url, session_id, secret).start()
    assert (
        await anna.post(b.url, f"{LIVE}/{session_id}/reply", {"text": "one"})
    ).status_code == 200
    await on_a.wait_for(lambda events: len(on_a.of("operator_message")) == 1, 10)
    await on_a.close()
    assert (
        await anna.post(b.url, f"{LIVE}/{session_id}/reply", {"text": "two"})
    ).status_code == 200
    on_b = await visitor_stream(b.url, session_id, secret, last_id=on_a.last_id()).start()
    try:
        assert (
            await anna.post(a.url, f"{LIVE}/{session_id}/reply", {"text": "three"})
        ).status_code == 200
        await on_b.wait_for(lambda events: len(on_b.of("operator_message")) == 2, 10)
        texts = [e.data["text"] for e in on_a.of("operator_message") + on_b.of("operator_message")]
        assert texts == ["one", "two", "three"]
    finally:
        await on_b.close()


async def test_presence_is_shared_by_replicas(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    anna = sign_in(a.url, "anna.berg@example.com")
    site_stream = await operator_stream(a.url, anna, f"{LIVE}/events").start()
    try:
        await site_stream.wait_for(lambda events: bool(site_stream.of("presence")), 10)
        online_on_b = (await anna.get(b.url, LIVE)).json()["online"]
        assert [op["name"] for op in online_on_b] == ["Anna Berg"]
    finally:
        await site_stream.close()
