"""Session routes: history, GDPR erase, export — and that no key reads another site's data."""

from __future__ import annotations

import uuid

import pytest
from api_support import (
    ACME_KEY,
    ACME_ORIGIN,
    DEMO_KEY,
    DEMO_ORIGIN,
    Api,
    acme_headers,
    demo_headers,
)

pytestmark = pytest.mark.integration


def start_session(api: Api) -> str:
    response = api.client.post(
        "/v1/ask", json={"message": "What is Tessellate Flow?"}, headers=demo_headers()
    )
    assert response.status_code == 200
    return str(response.json()["session_id"])


def test_history_lists_the_turns(api: Api) -> None:
    session = start_session(api)
    response = api.client.get(f"/v1/sessions/{session}", headers=demo_headers())
    assert response.status_code == 200
    body = response.json()
    assert body["session_id"] == session
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"]
    assert body["messages"][0]["content"] == "What is Tessellate Flow?"


def test_unknown_session_is_404(api: Api) -> None:
    response = api.client.get(f"/v1/sessions/{uuid.uuid4()}", headers=demo_headers())
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "session_not_found"
    export = api.client.get(f"/v1/sessions/{uuid.uuid4()}/export", headers=demo_headers())
    assert export.status_code == 404


@pytest.mark.parametrize("bad", ["nope", "1234", "../../etc/passwd", "%00"])
def test_session_ids_must_be_uuids(api: Api, bad: str) -> None:
    for method in ("GET", "DELETE"):
        response = api.client.request(method, f"/v1/sessions/{bad}", headers=demo_headers())
        assert response.status_code in (404, 422), (method, bad)
        assert "error" in response.json()


@pytest.mark.usefixtures("stack")  # SQLite and the production stack's two workers
def test_erase_then_history_is_gone(api: Api) -> None:
    session = start_session(api)
    erased = api.client.delete(f"/v1/sessions/{session}", headers=demo_headers())
    assert erased.status_code == 200
    assert erased.json() == {"session_id": session, "erased": True}
    assert api.client.get(f"/v1/sessions/{session}", headers=demo_headers()).status_code == 404
    # Its secret went with it: nothing is left to erase.
    again = api.client.delete(f"/v1/sessions/{session}", headers=demo_headers())
    assert again.status_code == 404


def test_export_returns_everything_stored(api: Api) -> None:
    session = start_session(api)
    response = api.client.get(f"/v1/sessions/{session}/export", headers=demo_headers())
    assert response.status_code == 200
    body = response.json()
    assert body["session_id"] == session
    assert len(body["messages"]) == 2


@pytest.mark.usefixtures("stack")  # SQLite and the production stack's two workers
def test_another_sites_key_never_sees_the_session(api: Api) -> None:
    session = start_session(api)
    # acme's own key from acme's own page: the session does not exist for acme.
    for path in (f"/v1/sessions/{session}", f"/v1/sessions/{session}/export"):
        response = api.client.get(path, headers=acme_headers())
        assert response.status_code == 404
        assert "Tessellate" not in response.text
    erase = api.client.delete(f"/v1/sessions/{session}", headers=acme_headers())
    assert erase.status_code == 404
    # acme's key from the demo page, or the demo key from acme's page: refused.
    mixed = [
        {"X-Frontdesk-Key": ACME_KEY, "Origin": DEMO_ORIGIN},
        {"X-Frontdesk-Key": DEMO_KEY, "Origin": ACME_ORIGIN},
    ]
    for headers in mixed:
        response = api.client.get(f"/v1/sessions/{session}", headers=headers)
        assert response.status_code == 403
        assert set(response.json()) == {"error"}
    for headers in ({"Origin": DEMO_ORIGIN}, {"X-Frontdesk-Key": "pk_x", "Origin": DEMO_ORIGIN}):
        response = api.client.get(f"/v1/sessions/{session}", headers=headers)
        assert response.status_code == 401
        assert set(response.json()) == {"error"}
    # The demo site's data survived all of it.
    assert api.client.get(f"/v1/sessions/{session}", headers=demo_headers()).status_code == 200


# ---- CORS --------------------------------------------------------------------------------------


def test_preflight_for_an_allowed_origin(api: Api) -> None:
    response = api.client.options(
        "/v1/chat",
        headers={
            "Origin": DEMO_ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-frontdesk-key",
        },
    )
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    assert "X-Frontdesk-Key" in response.headers["Access-Control-Allow-Headers"]
    assert "POST" in response.headers["Access-Control-Allow-Methods"]


def test_preflight_for_an_unknown_origin_is_refused(api: Api) -> None:
    response = api.client.options(
        "/v1/chat",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response.headers
    assert response.json()["error"]["code"] == "origin_not_allowed"


def test_cors_headers_only_for_the_keys_own_origin(api: Api) -> None:
    ok = api.client.post("/v1/ask", json={"message": "hi"}, headers=demo_headers())
    assert ok.headers["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    assert "X-Frontdesk-Session" in ok.headers["Access-Control-Expose-Headers"]
    assert "Origin" in ok.headers["Vary"]
    wrong = api.client.post(
        "/v1/ask",
        json={"message": "hi"},
        headers={"X-Frontdesk-Key": DEMO_KEY, "Origin": ACME_ORIGIN},
    )
    # Errors stay readable from origins some site allows (the widget names the problem
    # to the site owner); they carry nothing but the error.
    assert wrong.status_code == 403
    assert wrong.headers["Access-Control-Allow-Origin"] == ACME_ORIGIN
    assert set(wrong.json()) == {"error"}
    unknown = api.client.post(
        "/v1/ask",
        json={"message": "hi"},
        headers={"X-Frontdesk-Key": "pk_x", "Origin": DEMO_ORIGIN},
    )
    assert unknown.status_code == 401
    assert unknown.headers["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    assert unknown.json()["error"]["code"] == "unknown_site_key"
    # An origin no site allows reads nothing, not even errors.
    evil = api.client.post(
        "/v1/ask",
        json={"message": "hi"},
        headers={"X-Frontdesk-Key": DEMO_KEY, "Origin": "https://evil.example"},
    )
    assert evil.status_code == 403
    assert "Access-Control-Allow-Origin" not in evil.headers


def test_rate_limited_responses_stay_readable_cross_origin(make_api: object) -> None:
    from api_support import MakeApi

    assert callable(make_api)
    maker: MakeApi = make_api
    api = maker(
        rate_limits={"per_session_per_minute": 1, "per_ip_per_minute": 50, "per_site_per_day": 99}
    )
    body = {"message": "hi", "session_id": str(uuid.uuid4())}
    api.client.post("/v1/ask", json=body, headers=demo_headers())
    refused = api.client.post("/v1/ask", json=body, headers=demo_headers())
    assert refused.status_code == 429
    assert refused.headers["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    assert "Retry-After" in refused.headers["Access-Control-Expose-Headers"]


def test_admin_routes_get_no_cors(api: Api) -> None:
    response = api.client.options(
        "/v1/admin/sites/demo/leads",
        headers={"Origin": DEMO_ORIGIN, "Access-Control-Request-Method": "GET"},
    )
    assert "Access-Control-Allow-Origin" not in response.headers
