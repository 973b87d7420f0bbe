"""Two `frontdesk serve` replicas sharing PostgreSQL and Redis: any turn on any replica."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import httpx
import pytest
from replicas import HEADERS, Replica, ingest_for_replicas
from sqlalchemy import func, select

from frontdesk.settings import Settings
from frontdesk.store.db import make_engine
from frontdesk.store.models import Conversation, Message
from tests.conftest import private_copy

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.integration]


@pytest.fixture(scope="module")
def pg_url(module_pg_url: str) -> str:
    return module_pg_url


@pytest.fixture(scope="module")
def replicas(
    ingested_demo: Settings,
    module_pg_url: str,
    module_redis_prefix: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[list[Replica]]:
    pg_url, redis_prefix = module_pg_url, module_redis_prefix
    tmp_path = tmp_path_factory.mktemp("replicas")
    knowledge = private_copy(ingested_demo.data_dir, tmp_path / "knowledge")
    env = {
        "FRONTDESK_DATABASE_URL": pg_url,
        "FRONTDESK_REDIS_URL": "redis://127.0.0.1:6379/0",
        "FRONTDESK_REDIS_PREFIX": redis_prefix,
        "FRONTDESK_SITES_DIR": str(ingested_demo.sites_dir),
        "FRONTDESK_DATA_DIR": str(tmp_path / "data"),
        # Without pgvector the replicas read the ingested SQLite index; with it the
        # knowledge lives in PostgreSQL, ingested below.
        "FRONTDESK_KNOWLEDGE_URL": f"sqlite:///{knowledge / 'frontdesk.db'}",
        "FRONTDESK_DISPATCH_IN_PROCESS": "false",
    }
    ingest_for_replicas(env)
    started = [Replica(env, tmp_path, f"replica{i}") for i in (1, 2)]
    try:
        for replica in started:
            replica.wait_ready()
        yield started
    finally:
        for replica in started:
            replica.stop()


def _turns(pg_url: str, session: str) -> int:
    engine = make_engine(pg_url)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count(Message.id))
                    .join(Conversation)
                    .where(Conversation.session_id == session, Message.role == "user")
                ).scalar_one()
            )
    finally:
        engine.dispose()


SECRETS: dict[str, str] = {}
"""Each session's secret, from the response that started it (as the widget keeps it)."""


async def _ask(
    client: httpx.AsyncClient, replica: Replica, session: str, text: str
) -> httpx.Response:
    body = {"message": text, "session_id": session, "session_secret": SECRETS.get(session)}
    response = await client.post(f"{replica.url}/v1/ask", json=body, headers=HEADERS, timeout=60)
    if "X-Frontdesk-Session-Secret" in response.headers:
        SECRETS[session] = response.headers["X-Frontdesk-Session-Secret"]
    return response


async def test_one_conversation_alternates_replicas(replicas: list[Replica], pg_url: str) -> None:
    session = str(uuid.uuid4())
    script = [
        "I'd like to book a demo",
        "sure, it's maria@example.org",
        "What is your uptime SLA?",
        "Does it integrate with Snowflake?",
    ]
    async with httpx.AsyncClient() as client:
        results = []
        for i, text in enumerate(script):
            response = await _ask(client, replicas[i % 2], session, text)
            assert response.status_code == 200, response.text
            results.append(response.json())
    # Turn 2 on the other replica continues the booking started on the first one.
    assert results[1]["route"] == "BOOKING" and "maria@example.org" in results[1]["answer"]
    assert [r["turn"] for r in results] == [1, 2, 3, 4]
    assert results[3]["lead"] == results[2]["lead"]  # qualification carried along
    assert _turns(pg_url, session) == 4


async def test_concurrent_requests_for_one_session_admit_exactly_one(
    replicas: list[Replica], pg_url: str
) -> None:
    session = str(uuid.uuid4())
    async with httpx.AsyncClient() as client:
        first = await _ask(client, replicas[0], session, "Hello!")
        assert first.status_code == 200
        responses = await asyncio.gather(
            *(_ask(client, replicas[i % 2], session, "What is your uptime SLA?") for i in range(6))
        )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 429, 429, 429, 429, 429], [r.text for r in responses]
    busy = [r.json()["error"]["code"] for r in responses if r.status_code == 429]
    assert set(busy) == {"session_busy"}
    assert _turns(pg_url, session) == 2  # the admitted turn is stored, none is lost
