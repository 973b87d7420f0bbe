"""`POST /v1/chat` (SSE) and `POST /v1/ask`: the turn contract, with a scripted backend.

The scripted backend stands in for the conversation graph: these tests check the HTTP
layer (auth, validation, SSE framing, errors, limits), not what the graph answers.
"""

from __future__ import annotations

import asyncio
import threading
import uuid

import httpx
import pytest
from api_support import (
    ACME_KEY,
    ACME_ORIGIN,
    DEMO_KEY,
    DEMO_ORIGIN,
    Api,
    MakeApi,
    demo_headers,
    keep_secrets,
    new_session,
    parse_sse,
)
from live_server import LiveServer
from scripted_backend import DEMO_ANSWER, Reply, ScriptedBackend
from sqlalchemy import select

from frontdesk.conversation.payload import CallToAction, ErrorEvent, HandoffInfo, TurnResult
from frontdesk.store.widget import WidgetSessionKey
from tests.support.stacks import async_client

pytestmark = pytest.mark.integration
# On SQLite and on the production stack (two workers, PostgreSQL + pgvector, Redis).
ON_EVERY_STACK = pytest.mark.usefixtures("stack")

TURN_FIELDS = {
    "answer",
    "routing",
    "route",
    "intent",
    "language",
    "citations",
    "sources",
    "suggested_follow_ups",
    "suggested_answers",
    "cta",
    "lead",
    "handoff",
    "low_confidence",
    "session_id",
    "turn",
}


def chat(api: Api, message: str = "What is Tessellate Flow?", **body: object) -> httpx.Response:
    headers = body.pop("headers", None) or demo_headers()
    assert isinstance(headers, dict)
    return api.client.post("/v1/chat", json={"message": message, **body}, headers=headers)


SESSION_SECRET_HEADER = "X-Frontdesk-Session-Secret"


def _session_keys(api: Api) -> list[WidgetSessionKey]:
    with api.runtime.sessions() as db:
        return list(db.scalars(select(WidgetSessionKey)).all())


# ---- the event stream ----------------------------------------------------------------------


@ON_EVERY_STACK
def test_chat_streams_tokens_then_one_complete_event(api: Api) -> None:
    response = chat(api)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names[-1] == "complete"
    assert names.count("complete") == 1
    assert set(names[:-1]) == {"token"}
    assert len(names) > 3, "the answer arrives in several token events"
    for name, data in events:
        assert data["type"] == name
    assert "".join(data["content"] for name, data in events if name == "token") == DEMO_ANSWER
    metadata = events[-1][1]["metadata"]
    assert set(metadata) == TURN_FIELDS
    TurnResult.model_validate(metadata)
    assert metadata["citations"][0]["index"] == 1
    assert metadata["turn"] == 1


@ON_EVERY_STACK
def test_server_issues_a_uuid4_session_and_keeps_a_client_one(api: Api) -> None:
    first = chat(api)
    issued = first.headers["X-Frontdesk-Session"]
    assert uuid.UUID(issued).version == 4
    assert parse_sse(first.text)[-1][1]["metadata"]["session_id"] == issued

    second = chat(api, "And the integrations?", session_id=issued)
    assert second.headers["X-Frontdesk-Session"] == issued
    assert parse_sse(second.text)[-1][1]["metadata"]["turn"] == 2


def test_visitor_context_carries_a_hashed_ip_never_the_raw_one(api: Api) -> None:
    chat(api, page_url="https://tessellate.example/pricing")
    _, _, _, visitor = api.backend.calls[-1]
    assert len(visitor.ip_hash) == 64
    assert "testclient" not in visitor.ip_hash
    assert visitor.page_url == "https://tessellate.example/pricing"


def test_error_event_ends_the_stream(make_api: MakeApi) -> None:
    api = make_api(ScriptedBackend([Reply(error=ErrorEvent("llm_failure", "model down"))]))
    events = parse_sse(chat(api).text)
    assert events[-1] == (
        "error",
        {"type": "error", "code": "llm_failure", "message": "model down"},
    )
    assert "complete" not in [name for name, _ in events]


def test_backend_exception_becomes_an_error_event_without_a_trace(make_api: MakeApi) -> None:
    api = make_api(ScriptedBackend([Reply(raise_after_tokens=RuntimeError("secret detail"))]))
    response = chat(api)
    assert response.status_code == 200
    name, data = parse_sse(response.text)[-1]
    assert (name, data["code"]) == ("error", "internal_error")
    assert "secret detail" not in response.text
    assert "Traceback" not in response.text


def test_a_stream_without_a_result_ends_with_an_error(make_api: MakeApi) -> None:
    api = make_api(ScriptedBackend([Reply(end_silently=True)]))
    name, data = parse_sse(chat(api).text)[-1]
    assert (name, data["code"]) == ("error", "incomplete_turn")


def test_heartbeats_on_a_long_turn(make_api: MakeApi) -> None:
    slow = Reply(tokens=["Thinking", " done."], answer="Thinking done.", delay_before_s=0.35)
    api = make_api(ScriptedBackend([slow]), sse_ping_s=0.05)
    response = chat(api)
    assert ": ping" in response.text
    assert parse_sse(response.text)[-1][0] == "complete"


def test_routing_metadata_passes_through(make_api: MakeApi) -> None:
    reply = Reply(
        routing="partially_answered",
        low_confidence=True,
        cta=CallToAction(label="Book a demo", url="https://tessellate.example/book"),
        handoff=HandoffInfo(reason="hot_lead"),
        lead_level="hot",
    )
    api = make_api(ScriptedBackend([reply]))
    metadata = parse_sse(chat(api).text)[-1][1]["metadata"]
    assert metadata["routing"] == "partially_answered"
    assert metadata["low_confidence"] is True
    assert metadata["cta"] == {"label": "Book a demo", "url": "https://tessellate.example/book"}
    assert metadata["handoff"] == {"reason": "hot_lead", "status": "proposed"}
    assert metadata["lead"] == {"level": "hot"}


# ---- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize("message", ["", "   ", "\n\t"])
def test_blank_messages_are_refused(api: Api, message: str) -> None:
    response = chat(api, message)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
    assert api.backend.calls == []


@pytest.mark.parametrize(
    "body",
    [
        {"message": "hi", "session_id": "not-a-uuid"},
        {"message": "hi", "session_id": "123"},
        {"message": 42},
        {},
        {"message": "hi", "unexpected": True},
    ],
)
def test_invalid_bodies_are_422(api: Api, body: dict[str, object]) -> None:
    for path in ("/v1/chat", "/v1/ask"):
        response = api.client.post(path, json=body, headers=demo_headers())
        assert response.status_code == 422, (path, body)
        assert set(response.json()["error"]) == {"code", "message"}


def test_malformed_json_is_422(api: Api) -> None:
    response = api.client.post(
        "/v1/chat",
        content=b"{not json",
        headers={**demo_headers(), "Content-Type": "application/json"},
    )
    assert response.status_code == 422


def test_long_messages_reach_the_abuse_gate_not_a_422(api: Api) -> None:
    response = chat(api, "x" * 20_000)
    assert response.status_code == 200
    assert api.backend.calls[-1][2] == "x" * 20_000


def test_body_over_the_limit_is_413(make_api: MakeApi) -> None:
    api = make_api(max_request_bytes=2_000)
    response = chat(api, "x" * 5_000)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"

    def chunked() -> object:
        yield b'{"message": "'
        yield b"y" * 5_000
        yield b'"}'

    streamed = api.client.post(
        "/v1/chat",
        content=chunked(),  # type: ignore[arg-type]
        headers={**demo_headers(), "Content-Type": "application/json"},
    )
    assert streamed.status_code == 413
    assert api.backend.calls == []


# ---- auth and tenancy -------------------------------------------------------------------------


def test_site_key_in_body_is_accepted(api: Api) -> None:
    response = chat(api, site_key=DEMO_KEY, headers={"Origin": DEMO_ORIGIN})
    assert response.status_code == 200
    assert api.backend.calls[-1][0] == "demo"


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Origin": DEMO_ORIGIN}, 401, "missing_site_key"),
        (
            {"X-Frontdesk-Key": "pk_nope_0000000000000", "Origin": DEMO_ORIGIN},
            401,
            "unknown_site_key",
        ),
        (
            {"X-Frontdesk-Key": DEMO_KEY, "Origin": "https://evil.example"},
            403,
            "origin_not_allowed",
        ),
        ({"X-Frontdesk-Key": DEMO_KEY}, 403, "origin_not_allowed"),
        ({"X-Frontdesk-Key": DEMO_KEY, "Origin": ACME_ORIGIN}, 403, "origin_not_allowed"),
        ({"X-Frontdesk-Key": ACME_KEY, "Origin": DEMO_ORIGIN}, 403, "origin_not_allowed"),
    ],
)
def test_key_and_origin_are_checked(
    api: Api, headers: dict[str, str], status: int, code: str
) -> None:
    for path in ("/v1/chat", "/v1/ask"):
        response = api.client.post(path, json={"message": "hello"}, headers=headers)
        assert response.status_code == status, path
        assert response.json()["error"]["code"] == code
    assert api.backend.calls == []


def test_referer_stands_in_for_a_missing_origin(api: Api) -> None:
    headers = {"X-Frontdesk-Key": DEMO_KEY, "Referer": f"{DEMO_ORIGIN}/pricing?x=1"}
    assert chat(api, headers=headers).status_code == 200


def test_the_key_alone_picks_the_site(api: Api) -> None:
    response = chat(api, headers={"X-Frontdesk-Key": ACME_KEY, "Origin": ACME_ORIGIN})
    assert response.status_code == 200
    assert api.backend.calls[-1][0] == "acme"


# ---- /v1/ask -----------------------------------------------------------------------------------


@ON_EVERY_STACK
def test_ask_returns_the_same_result_as_json(api: Api) -> None:
    response = api.client.post(
        "/v1/ask", json={"message": "What is Tessellate Flow?"}, headers=demo_headers()
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == TURN_FIELDS
    assert body["answer"] == DEMO_ANSWER
    assert body["session_id"] == response.headers["X-Frontdesk-Session"]
    assert "X-RateLimit-Remaining" in response.headers


def test_ask_failure_is_a_json_500_without_details(make_api: MakeApi) -> None:
    api = make_api(ScriptedBackend([Reply(raise_after_tokens=RuntimeError("db password=x"))]))
    body = {"message": "hi", "session_id": str(uuid.uuid4())}
    response = api.client.post("/v1/ask", json=body, headers=demo_headers())
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal_error", "message": "Something went wrong on our side."}
    }
    # The slot was released: the session can go on.
    assert api.client.post("/v1/ask", json=body, headers=demo_headers()).status_code == 200


def test_no_backend_is_a_503(make_api: MakeApi, monkeypatch: pytest.MonkeyPatch) -> None:
    api = make_api()
    monkeypatch.setattr(api.app.state, "chat", None)
    response = api.client.post("/v1/ask", json={"message": "hi"}, headers=demo_headers())
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "chat_unavailable"


# ---- concurrency guard --------------------------------------------------------------------------


async def _lifespan_client(api: Api) -> httpx.AsyncClient:
    """Concurrent requests, each on its worker's event loop (in turn between workers)."""
    return async_client(api.client)


@ON_EVERY_STACK
async def test_two_concurrent_turns_on_one_session_get_exactly_one_429(make_api: MakeApi) -> None:
    hold = threading.Event()
    backend = ScriptedBackend([Reply(hold=hold)])
    api = make_api(backend)
    session, secret = new_session(api.client)
    body = {"message": "first", "session_id": session, "session_secret": secret}
    async with await _lifespan_client(api) as client:
        first = asyncio.create_task(client.post("/v1/chat", json=body, headers=demo_headers()))
        assert await asyncio.to_thread(backend.started.wait, 10)
        results = await asyncio.gather(
            client.post("/v1/chat", json=body, headers=demo_headers()),
            client.post("/v1/ask", json=body, headers=demo_headers()),
            client.delete(
                f"/v1/sessions/{session}",
                headers=demo_headers(**{"X-Frontdesk-Session-Secret": secret}),
            ),
        )
        hold.set()
        done = await first
        assert done.status_code == 200
        assert parse_sse(done.text)[-1][0] == "complete"
        for refused in results:
            assert refused.status_code == 429
            assert refused.json()["error"]["code"] == "session_busy"
            assert refused.headers["Retry-After"] == "1"
        assert backend.max_in_flight == 1
        # The slot is free again once the stream has ended.
        after = await client.post("/v1/chat", json=body, headers=demo_headers())
        assert after.status_code == 200


@ON_EVERY_STACK
async def test_racing_turns_on_one_session_admit_exactly_one(make_api: MakeApi) -> None:
    backend = ScriptedBackend(default=Reply(token_delay_s=0.01))
    api = make_api(backend)
    session, secret = new_session(api.client)
    body = {"message": "hello", "session_id": session, "session_secret": secret}
    async with await _lifespan_client(api) as client:
        responses = await asyncio.gather(
            *(client.post("/v1/chat", json=body, headers=demo_headers()) for _ in range(2))
        )
    assert sorted(r.status_code for r in responses) == [200, 429]


def test_the_slot_is_released_after_errors(make_api: MakeApi) -> None:
    backend = ScriptedBackend(
        [
            Reply(raise_after_tokens=RuntimeError("boom")),
            Reply(error=ErrorEvent("llm_failure", "down")),
            Reply(end_silently=True),
        ]
    )
    api = make_api(backend)
    session = str(uuid.uuid4())
    for _ in range(4):
        response = chat(api, session_id=session)
        assert response.status_code == 200
    assert parse_sse(response.text)[-1][0] == "complete"


def test_different_sessions_run_in_parallel(make_api: MakeApi) -> None:
    hold = threading.Event()
    backend = ScriptedBackend([Reply(hold=hold)])
    api = make_api(backend)
    with LiveServer(api.app) as server:
        first = threading.Thread(
            target=lambda: httpx.post(
                f"{server.url}/v1/chat", json={"message": "a"}, headers=demo_headers(), timeout=10
            )
        )
        first.start()
        assert backend.started.wait(5)
        other = httpx.post(
            f"{server.url}/v1/chat", json={"message": "b"}, headers=demo_headers(), timeout=10
        )
        hold.set()
        first.join(10)
    assert other.status_code == 200


def test_disconnect_cancels_the_turn_and_frees_the_slot(make_api: MakeApi) -> None:
    slow = Reply(tokens=[f"tok{i} " for i in range(200)], token_delay_s=0.02)
    backend = ScriptedBackend([slow])
    api = make_api(backend)
    session = str(uuid.uuid4())
    body = {"message": "long one", "session_id": session}
    with (
        LiveServer(api.app) as server,
        keep_secrets(httpx.Client(base_url=server.url, timeout=10)) as client,
    ):
        with client.stream("POST", "/v1/chat", json=body, headers=demo_headers()) as response:
            assert response.status_code == 200
            for line in response.iter_lines():
                if line.startswith("data:"):
                    break
        # Closing the response closed the connection mid-stream.
        deadline = 50
        while backend.cancelled == 0 and deadline:
            threading.Event().wait(0.1)
            deadline -= 1
        assert backend.cancelled == 1
        assert backend.completed == 0
        after = client.post("/v1/chat", json=body, headers=demo_headers())
        assert after.status_code == 200
        assert parse_sse(after.text)[-1][0] == "complete"


# ---- rate limits ----------------------------------------------------------------------


@ON_EVERY_STACK
def test_rate_limit_headers_and_429(make_api: MakeApi) -> None:
    api = make_api(
        rate_limits={"per_session_per_minute": 2, "per_ip_per_minute": 50, "per_site_per_day": 100}
    )
    session = str(uuid.uuid4())
    first = chat(api, session_id=session)
    assert first.headers["X-RateLimit-Limit"] == "2"
    assert first.headers["X-RateLimit-Remaining"] == "1"
    assert first.headers["X-RateLimit-Policy"] == "per_session_per_minute"
    assert int(first.headers["X-RateLimit-Reset"]) >= 1
    assert chat(api, session_id=session).status_code == 200
    refused = chat(api, session_id=session)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    # Another session is not affected by this session's budget.
    assert chat(api).status_code == 200


@ON_EVERY_STACK
def test_per_ip_limit(make_api: MakeApi) -> None:
    api = make_api(
        rate_limits={"per_session_per_minute": 20, "per_ip_per_minute": 3, "per_site_per_day": 100}
    )
    codes = [chat(api).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


@ON_EVERY_STACK
def test_requests_over_the_ip_and_site_limits_write_no_session(make_api: MakeApi) -> None:
    # A flood from one address: each refused request used to leave a session key row
    # behind (300 requests -> 60 answered, 300 rows). Refused means nothing written.
    api = make_api(
        rate_limits={"per_session_per_minute": 20, "per_ip_per_minute": 5, "per_site_per_day": 100}
    )
    codes = [chat(api).status_code for _ in range(12)]
    assert codes == [200] * 5 + [429] * 7
    assert len(_session_keys(api)) == 5


def test_a_request_over_the_session_limit_writes_nothing(make_api: MakeApi) -> None:
    api = make_api(
        rate_limits={"per_session_per_minute": 2, "per_ip_per_minute": 50, "per_site_per_day": 100}
    )
    session, secret = new_session(api.client)
    body = {"session_id": session, "session_secret": secret}
    assert [chat(api, **body).status_code for _ in range(2)] == [200, 200]
    (seen,) = [key.last_seen_at for key in _session_keys(api)]
    assert chat(api, **body).status_code == 429
    assert [key.last_seen_at for key in _session_keys(api)] == [seen], "refused, yet touched"


@ON_EVERY_STACK
async def test_first_turns_racing_on_one_new_session_issue_one_key(make_api: MakeApi) -> None:
    # Six visitors race to open the same (new) session id: one gets it; the others are
    # refused as busy (429) or, once the winner's key exists, as visitors without its
    # secret (403). Only one secret exists for the session.
    backend = ScriptedBackend(default=Reply(token_delay_s=0.01))
    api = make_api(backend)
    async with await _lifespan_client(api) as client:
        for race in range(8):  # a race is timing: several rounds, each a fresh session id
            body = {"message": "hello", "session_id": str(uuid.uuid4())}
            responses = await asyncio.gather(
                *(client.post("/v1/chat", json=body, headers=demo_headers()) for _ in range(6))
            )
            codes = sorted(r.status_code for r in responses)
            assert codes[0] == 200 and set(codes[1:]) <= {403, 429}, (race, codes)
            assert sum(SESSION_SECRET_HEADER in r.headers for r in responses) == 1
            assert len(_session_keys(api)) == race + 1


@ON_EVERY_STACK
def test_per_site_daily_limit_is_per_site(make_api: MakeApi) -> None:
    api = make_api(
        rate_limits={"per_session_per_minute": 20, "per_ip_per_minute": 50, "per_site_per_day": 2}
    )
    assert [chat(api).status_code for _ in range(3)] == [200, 200, 429]
    refused = chat(api)
    assert refused.headers["X-RateLimit-Policy"] == "per_site_per_day"
    assert int(refused.headers["Retry-After"]) > 60
    # acme has its own daily budget.
    acme = chat(api, headers={"X-Frontdesk-Key": ACME_KEY, "Origin": ACME_ORIGIN})
    assert acme.status_code == 200
