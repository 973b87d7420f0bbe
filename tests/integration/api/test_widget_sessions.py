"""Session secrets, expiry, feedback and the widget's config over HTTP (real store,
scripted graph): what a copied session id cannot do, and what must survive bad input."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from api_support import ACME_ORIGIN, DEMO_KEY, DEMO_ORIGIN, Api, demo_headers, new_session
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from frontdesk.store.models import utcnow
from frontdesk.store.widget import AnswerFeedback, WidgetSessionKey, hash_secret

pytestmark = pytest.mark.integration

SECRET = "X-Frontdesk-Session-Secret"


def bare(api: Api) -> TestClient:
    """A client that keeps no secrets: a visitor who only has the session id."""
    return TestClient(api.app, raise_server_exceptions=False)


def first_turn(api: Api) -> tuple[str, str]:
    response = api.client.post("/v1/ask", json={"message": "Hello"}, headers=demo_headers())
    assert response.status_code == 200, response.text
    return response.headers["X-Frontdesk-Session"], response.headers[SECRET]


def test_the_secret_is_issued_once_stored_hashed_and_required(api: Api) -> None:
    session, secret = first_turn(api)
    with api.runtime.sessions() as db:
        stored = db.scalars(select(WidgetSessionKey.secret_hash)).all()
    assert stored == [hash_secret(secret)] and secret not in stored
    # Later turns do not send the secret again; they extend the expiry.
    again = api.client.post(
        "/v1/ask",
        json={"message": "More", "session_id": session, "session_secret": secret},
        headers=demo_headers(),
    )
    assert again.status_code == 200
    assert SECRET not in again.headers and "X-Frontdesk-Session-Expires" in again.headers
    # One character off (never the same character: a secret ending in "A" stayed valid).
    wrong = secret[:-1] + ("B" if secret.endswith("A") else "A")
    for headers in (demo_headers(), demo_headers(**{SECRET: wrong})):
        refused = bare(api).post(
            "/v1/ask", json={"message": "Who am I?", "session_id": session}, headers=headers
        )
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "session_secret_invalid"
    assert len(api.backend.calls) == 2  # refused turns never reached the graph


def test_an_expired_session_is_refused_but_its_data_survives(api: Api) -> None:
    session, secret = first_turn(api)
    with api.runtime.sessions.begin() as db:
        db.execute(update(WidgetSessionKey).values(last_seen_at=utcnow() - timedelta(days=8)))
    headers = demo_headers(**{SECRET: secret})
    gone = api.client.get(f"/v1/sessions/{session}", headers=headers)
    assert gone.status_code == 410 and gone.json()["error"]["code"] == "session_expired"
    turn = api.client.post(
        "/v1/ask", json={"message": "Hi", "session_id": session}, headers=headers
    )
    assert turn.status_code == 410
    # Nothing was deleted by refusing: the conversation stays for retention to handle.
    assert len(api.backend._store[("demo", session)]) == 2


def test_feedback_is_validated_stored_once_per_turn_and_shown(api: Api) -> None:
    session, secret = first_turn(api)
    path = f"/v1/sessions/{session}/feedback"
    headers = demo_headers(**{SECRET: secret})
    for bad in ({"turn": 1, "rating": "meh"}, {"turn": 0, "rating": "up"}, {"rating": "up"},
                {"turn": 1, "rating": "up", "comment": "x" * 1001}):  # fmt: skip
        assert api.client.post(path, json=bad, headers=headers).status_code == 422
    missing = api.client.post(path, json={"turn": 5, "rating": "up"}, headers=headers)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "answer_not_found"
    stranger = bare(api).post(path, json={"turn": 1, "rating": "down"}, headers=demo_headers())
    assert stranger.status_code == 403
    ok = api.client.post(path, json={"turn": 1, "rating": "down", "comment": "Too vague"},
                         headers=headers)  # fmt: skip
    assert ok.json() == {"turn": 1, "rating": "down", "comment": "Too vague"}
    changed = api.client.post(path, json={"turn": 1, "rating": "up"}, headers=headers)
    assert changed.json() == {"turn": 1, "rating": "up", "comment": None}
    with api.runtime.sessions() as db:
        rows = db.scalars(select(AnswerFeedback)).all()
    assert [(r.site_id, r.session_id, r.turn, r.rating) for r in rows] == [
        ("demo", session, 1, "up")
    ]
    history = api.client.get(f"/v1/sessions/{session}", headers=headers).json()
    assert history["messages"][1]["feedback"] == {"rating": "up", "comment": None}
    assert "feedback" not in history["messages"][0]
    export = api.client.get(f"/v1/sessions/{session}/export", headers=headers).json()
    assert [v["rating"] for v in export["feedback"]] == ["up"]
    # GDPR erase takes the secrets and the votes with the conversation.
    assert api.client.delete(f"/v1/sessions/{session}", headers=headers).status_code == 200
    with api.runtime.sessions() as db:
        assert db.scalars(select(AnswerFeedback)).all() == []
        assert db.scalars(select(WidgetSessionKey)).all() == []


def posted_at_once(api: Api, path: str, headers: dict[str, str], bodies: list[Any]) -> list[int]:
    """The status of each POST of `bodies` to `path`, all sent at the same moment."""
    barrier = threading.Barrier(len(bodies))
    statuses: list[int] = []

    def post(body: Any) -> None:
        barrier.wait()
        statuses.append(api.client.post(path, json=body, headers=headers).status_code)

    threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return statuses


@pytest.mark.usefixtures("stack")  # SQLite and the production stack's two workers
def test_a_vote_and_its_comment_sent_at_once_both_land(api: Api) -> None:
    """The widget posts a 👎, then its comment. Sent at once (a quick visitor, a slow
    network), both found no row, one insert failed on the unique turn with a 500, and the
    widget lost the comment silently. What must survive: the vote and the comment."""
    for _ in range(10):
        session, secret = first_turn(api)
        headers = demo_headers(**{SECRET: secret})
        bodies = [{"turn": 1, "rating": "down"}, {"turn": 1, "rating": "down", "comment": "Vague"}]
        path = f"/v1/sessions/{session}/feedback"
        assert posted_at_once(api, path, headers, bodies) == [200, 200]
        history = api.client.get(f"/v1/sessions/{session}", headers=headers).json()
        assert history["messages"][1]["feedback"] == {"rating": "down", "comment": "Vague"}


def test_a_session_started_without_a_message_can_be_used(api: Api) -> None:
    session, secret = new_session(api.client)
    turn = api.client.post(
        "/v1/chat",
        json={"message": "Hi", "session_id": session, "session_secret": secret},
        headers=demo_headers(),
    )
    assert turn.status_code == 200 and turn.headers["X-Frontdesk-Session"] == session
    unknown = api.client.get(f"/v1/sessions/{uuid.uuid4()}", headers=demo_headers())
    assert unknown.status_code == 404


def test_config_is_a_simple_get_and_its_errors_are_readable(api: Api) -> None:
    ok = api.client.get("/v1/widget/config", params={"key": DEMO_KEY},
                        headers={"Origin": DEMO_ORIGIN})  # fmt: skip
    assert ok.status_code == 200
    body = ok.json()
    assert body["limits"]["max_message_chars"] == 15_000
    assert body["suggestions"]["en"][:1] == ["Which integrations does Tessellate support?"]
    assert ok.headers["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    unknown = api.client.get("/v1/widget/config", params={"key": "pk_nope"},
                             headers={"Origin": DEMO_ORIGIN})  # fmt: skip
    assert unknown.status_code == 401
    assert unknown.headers["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    wrong_origin = api.client.get("/v1/widget/config", params={"key": DEMO_KEY},
                                  headers={"Origin": ACME_ORIGIN})  # fmt: skip
    assert wrong_origin.status_code == 403
    assert wrong_origin.json()["error"]["code"] == "origin_not_allowed"
    assert wrong_origin.headers["Access-Control-Allow-Origin"] == ACME_ORIGIN


def test_preflight_allows_the_secret_header_and_responses_expose_it(api: Api) -> None:
    preflight = api.client.options(
        "/v1/sessions/x",
        headers={"Origin": DEMO_ORIGIN, "Access-Control-Request-Method": "GET"},
    )
    assert SECRET in preflight.headers["Access-Control-Allow-Headers"]
    response = api.client.post("/v1/ask", json={"message": "hi"}, headers=demo_headers())
    assert SECRET in response.headers["Access-Control-Expose-Headers"]
