"""Bad characters at the API boundary, on real SQLite and PostgreSQL.

A lone surrogate (`\\udc80`, what a browser sends when a string is cut inside an emoji)
gave a 500 on both stores, and NUL on PostgreSQL lost the turn and the handoff request
it carried. Every request string is now normalised before anything else sees it: NUL is
removed, each lone surrogate becomes U+FFFD, the rest of the message is kept. What must
survive: the visitor's message (readable, in the store), the turn's answer, and the
handoff row with its outbox entries when the message asks for a human.
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import demo_headers, keep_secrets, parse_sse, write_sites
from fastapi.testclient import TestClient
from real_service import service_unavailable_reason
from sqlalchemy import select

from frontdesk.api.app import create_app
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.models import Conversation, Handoff, Message, OutboxItem

REASON = service_unavailable_reason()
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(REASON is not None, reason=REASON or ""),
]

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"

# Raw JSON, as a browser would send it: the escapes reach the server as written.
HUMAN_REQUEST = (
    '{"message": "Can I speak to someone? \\udc80 My email is maria@example.org\\u0000",'
    ' "reveal": {"company": "Acme \\ud800 GmbH\\u0000"}, "page_url": "https://x.example/\\udfff"}'
)


def _pg_available() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    if not _pg_available():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    import psycopg

    name = f"fd_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def client_and_settings(
    tmp_path: Path, sites_dir: Path, database_url: str
) -> Iterator[tuple[TestClient, Settings]]:
    write_sites(sites_dir)
    settings = Settings(
        data_dir=tmp_path / "data",
        sites_dir=sites_dir,
        database_url=database_url,
        knowledge_url=f"sqlite:///{tmp_path / 'knowledge.db'}",
        dispatch_in_process=False,  # the outbox rows stay pending for the assertions
    )
    runtime = build_runtime(settings)
    try:
        app = create_app(settings, runtime)  # the real ChatService: real store writes
        with keep_secrets(TestClient(app, raise_server_exceptions=False)) as client:
            yield client, settings
    finally:
        runtime.close()


def _post(client: TestClient, path: str, raw: str, session: str) -> tuple[int, str]:
    body = json.loads(raw)
    body["session_id"] = session
    response = client.post(
        path,
        content=json.dumps(body),  # ensure_ascii: the lone surrogates stay \\u escapes
        headers=demo_headers(**{"Content-Type": "application/json"}),
    )
    return response.status_code, response.text


def test_lone_surrogates_and_nul_keep_the_turn_and_the_handoff(
    client_and_settings: tuple[TestClient, Settings],
) -> None:
    client, _ = client_and_settings
    session = str(uuid.uuid4())
    status, text = _post(client, "/v1/ask", HUMAN_REQUEST, session)
    assert status == 200, text
    result = json.loads(text)
    assert result["route"] == "HANDOFF" and result["handoff"] is not None, result

    app_runtime = client.app.state.runtime  # type: ignore[attr-defined]
    with app_runtime.sessions() as db:
        stored = db.scalars(
            select(Message.content)
            .join(Conversation)
            .where(Conversation.session_id == session, Message.role == "user")
        ).all()
        handoffs = db.scalars(select(Handoff).where(Handoff.session_id == session)).all()
        outbox = db.scalars(
            select(OutboxItem).where(OutboxItem.idempotency_key.like(f"demo:{session}:%"))
        ).all()
    # The message is kept, cleaned: the broken character is visible as U+FFFD, NUL is gone.
    assert stored == ["Can I speak to someone? \ufffd My email is maria@example.org"]
    assert len(handoffs) == 1 and outbox, "the handoff request survived with its deliveries"
    assert "maria@example.org" in json.dumps(handoffs[0].packet)

    # The streamed route takes the same message on a new session: 200, one `complete`.
    stream_session = str(uuid.uuid4())
    status, text = _post(client, "/v1/chat", HUMAN_REQUEST, stream_session)
    assert status == 200, text
    events = parse_sse(text)
    assert events[-1][0] == "complete", events[-1]
    assert events[-1][1]["metadata"]["handoff"] is not None

    history = client.get(f"/v1/sessions/{session}", headers=demo_headers())
    assert history.status_code == 200
    assert "\ufffd" in history.json()["messages"][0]["content"]


def test_a_message_of_nothing_but_nul_is_a_clear_422(
    client_and_settings: tuple[TestClient, Settings],
) -> None:
    client, _ = client_and_settings
    session = str(uuid.uuid4())
    status, text = _post(client, "/v1/ask", '{"message": "\\u0000\\u0000 "}', session)
    assert status == 422, text
    assert json.loads(text)["error"]["code"] == "invalid_request"
    assert "must not be empty" in json.loads(text)["error"]["message"]
    # Nothing half-written: the session does not exist.
    assert client.get(f"/v1/sessions/{session}", headers=demo_headers()).status_code == 404
