"""Admin authentication, security headers, /metrics and the demo page.

Each test names what the old code let through: unlimited wrong admin keys, one
process-wide key only, no security headers, an open /metrics, the Host header in the page.
/metrics is closed unless a token is set or the operator opts in.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path

import pytest
from api_support import ACME_KEY, ADMIN_KEY, Api, MakeApi, acme_headers, admin_headers
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from frontdesk.cli import app as cli_app
from frontdesk.guard.admin_lockout import AdminLockout
from frontdesk.settings import get_settings
from frontdesk.store.models import AdminToken

pytestmark = pytest.mark.integration

LEADS = "/v1/admin/sites/demo/leads"


def wrong(n: int) -> dict[str, str]:
    return {"Authorization": f"Bearer wrong-key-{n}"}


# --- throttling and lockout --------------------------------------------------------


def test_failed_admin_keys_lock_the_address_out_then_let_it_back(make_api: MakeApi) -> None:
    api = make_api()
    now = [1000.0]
    api.app.state.admin_lockout = AdminLockout(
        api.app.state.guard.limiter, max_failures=10, lockout_s=120, clock=lambda: now[0]
    )
    for n in range(10):
        response = api.client.get(LEADS, headers=wrong(n))
        assert response.status_code == 401, (n, response.text)
    locked = api.client.get(LEADS, headers=wrong(10))
    assert locked.status_code == 429
    assert locked.json()["error"]["code"] == "admin_locked_out"
    assert locked.headers["Retry-After"] == "120"
    # Locked out: even the right key is not checked, so guessing teaches nothing more.
    now[0] += 100
    still = api.client.get(LEADS, headers=admin_headers())
    assert still.status_code == 429 and still.headers["Retry-After"] == "20"

    # Another address is not affected (counts are per client IP).
    other = TestClient(api.app, client=("198.51.100.7", 40000), raise_server_exceptions=False)
    assert other.get(LEADS, headers=admin_headers()).status_code == 200

    # When the lockout ends the address may authenticate again.
    now[0] += 21
    assert api.client.get(LEADS, headers=admin_headers()).status_code == 200


def test_missing_bearer_is_401_and_not_counted(make_api: MakeApi) -> None:
    api = make_api(settings_options={"admin_auth_max_failures": 2})
    for _ in range(5):
        response = api.client.get(LEADS)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "missing_admin_key"
    assert api.client.get(LEADS, headers=admin_headers()).status_code == 200


@pytest.mark.redis
def test_failures_are_counted_across_replicas_in_redis(
    make_api: MakeApi, tmp_path: Path, sites_dir: Path
) -> None:
    import socket

    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        pytest.skip("Redis is not reachable on 127.0.0.1:6379")
    prefix = f"fd-test-{uuid.uuid4().hex[:8]}:"
    options = {
        "redis_url": "redis://127.0.0.1:6379/0",
        "redis_prefix": prefix,
        "admin_auth_max_failures": 3,
    }
    first = make_api(settings_options=options)
    # A second process's app on the same store and Redis (another replica).
    from frontdesk.api.app import create_app

    second = TestClient(create_app(first.runtime.settings, first.runtime, first.backend))
    with second:
        for n in range(3):
            assert first.client.get(LEADS, headers=wrong(n)).status_code == 401
        # The fourth failure happens on the other replica: the shared count is over.
        assert second.get(LEADS, headers=wrong(3)).status_code == 429
        assert second.get(LEADS, headers=admin_headers()).status_code == 429
        assert first.client.get(LEADS, headers=admin_headers()).status_code == 200
    import redis

    client = redis.Redis.from_url("redis://127.0.0.1:6379/0")
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)


# --- per-site admin tokens ---------------------------------------------------------


def cli_token(api: Api, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    settings = api.runtime.settings
    monkeypatch.setenv("FRONTDESK_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("FRONTDESK_SITES_DIR", str(settings.sites_dir))
    get_settings.cache_clear()
    result = CliRunner().invoke(cli_app, ["sites", "token", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


@pytest.mark.parametrize("process_key", [True, False])
def test_a_site_token_opens_that_site_only_and_is_stored_hashed(
    make_api: MakeApi, monkeypatch: pytest.MonkeyPatch, process_key: bool
) -> None:
    api = make_api(admin=process_key)
    token = cli_token(api, monkeypatch, "create", "demo", "--label", "crm sync")
    assert token.startswith("fdt_") and len(token) > 40
    bearer = {"Authorization": f"Bearer {token}"}

    assert api.client.get(LEADS, headers=bearer).status_code == 200
    for path in ("handoffs", "stats", f"traces/{uuid.uuid4()}"):
        assert api.client.get(f"/v1/admin/sites/demo/{path}", headers=bearer).status_code == 200
    elsewhere = api.client.get("/v1/admin/sites/acme/leads", headers=bearer)
    assert elsewhere.status_code == 403
    assert elsewhere.json()["error"]["code"] == "token_wrong_site"

    with api.runtime.sessions() as db:
        (row,) = db.scalars(select(AdminToken)).all()
        assert row.site_id == "demo" and row.label == "crm sync"
        assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
        stored = " ".join(str(v) for v in (row.id, row.label, row.token_hash, row.site_id))
        assert token not in stored

    listed = cli_token(api, monkeypatch, "list", "demo")
    assert row.id in listed and token not in listed
    cli_token(api, monkeypatch, "revoke", "demo", row.id)
    revoked = api.client.get(LEADS, headers=bearer)
    # Revoked: an invalid key; with no process key and no live token, no admin at all.
    expected = (401, "invalid_admin_key") if process_key else (403, "admin_disabled")
    assert (revoked.status_code, revoked.json()["error"]["code"]) == expected


def test_a_token_cannot_be_created_for_an_unknown_site(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTDESK_DATA_DIR", str(api.runtime.settings.data_dir))
    monkeypatch.setenv("FRONTDESK_SITES_DIR", str(api.runtime.settings.sites_dir))
    get_settings.cache_clear()
    result = CliRunner().invoke(cli_app, ["sites", "token", "create", "nope"])
    assert result.exit_code == 1
    with api.runtime.sessions() as db:
        assert db.scalars(select(AdminToken)).all() == []


# --- security headers --------------------------------------------------------------


def test_the_demo_page_has_a_csp_and_cannot_be_framed(api: Api) -> None:
    page = api.client.get("/", headers={"Host": "evil.example"})
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp.split("style-src")[0]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    # The Host header never reaches the page: the widget talks to the page's own origin.
    assert "evil.example" not in page.text
    assert 'api-url="/"' in page.text
    # What the policy allows is all the page needs: no inline script, no inline handlers
    # (tests/browser/test_demo_csp.py runs the widget under it in Chromium).
    assert re.findall(r"<script\b[^>]*>", page.text) == ['<script src="/widget.js" defer>']
    assert not re.search(r"\son[a-z]+\s*=", page.text)


def test_the_demo_page_uses_the_configured_public_url(make_api: MakeApi) -> None:
    api = make_api(settings_options={"public_url": "https://chat.example.com/"})
    page = api.client.get("/", headers={"Host": "evil.example"})
    assert 'api-url="https://chat.example.com"' in page.text
    assert "evil.example" not in page.text
    assert "connect-src 'self' https://chat.example.com" in page.headers["content-security-policy"]


def test_json_with_personal_data_is_never_cached_and_never_sniffed(api: Api) -> None:
    session = uuid.uuid4()
    responses = {
        "ask": api.client.post("/v1/ask", json={"message": "hi"}, headers=acme_headers()),
        "export": api.client.get(f"/v1/sessions/{session}/export", headers=acme_headers()),
        "history": api.client.get(f"/v1/sessions/{session}", headers=acme_headers()),
        "leads": api.client.get(LEADS, headers=admin_headers()),
        "handoffs": api.client.get("/v1/admin/sites/demo/handoffs", headers=admin_headers()),
        "traces": api.client.get(f"/v1/admin/sites/demo/traces/{session}", headers=admin_headers()),
        "unauthorised": api.client.get(LEADS),
        "too large": api.client.post(
            "/v1/ask", content=b"x" * 70_000, headers={"X-Frontdesk-Key": ACME_KEY}
        ),
    }
    for name, response in responses.items():
        assert response.headers["cache-control"] == "no-store", name
        assert response.headers["x-content-type-options"] == "nosniff", name
    assert responses["too large"].status_code == 413
    # Everything else gets nosniff too; the public widget script keeps its own caching.
    for path in ("/healthz", "/openapi.json", "/widget.js"):
        assert api.client.get(path).headers["x-content-type-options"] == "nosniff", path
    assert api.client.get("/widget.js").headers["cache-control"] == "public, max-age=300"
    docs = api.client.get("/docs")
    assert "cdn.jsdelivr.net" in docs.headers["content-security-policy"]
    assert docs.headers["x-frame-options"] == "DENY"


# --- /metrics ----------------------------------------------------------------------


def test_metrics_need_the_token_when_one_is_set(make_api: MakeApi) -> None:
    api = make_api(settings_options={"metrics_token": "scrape-me-0123456789"})
    assert api.client.get("/metrics").status_code == 401
    bad = api.client.get("/metrics", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "invalid_metrics_token"
    good = api.client.get("/metrics", headers={"Authorization": "Bearer scrape-me-0123456789"})
    assert good.status_code == 200 and "frontdesk_http_requests_total" in good.text
    assert good.headers["cache-control"] == "no-store"


def test_metrics_are_closed_by_default_and_say_how_to_open_them(api: Api) -> None:
    # Must not: a stranger reading every site's name and traffic from a default install
    # (the route answered 200 to anyone). Must survive: a message saying how to enable it.
    asked = api.client.post("/v1/ask", json={"message": "hi"}, headers=acme_headers())
    assert asked.status_code == 200
    for headers in ({}, {"Authorization": "Bearer anything"}):
        response = api.client.get("/metrics", headers=headers)
        assert response.status_code == 403
        error = response.json()["error"]
        assert error["code"] == "metrics_disabled"
        assert "FRONTDESK_METRICS_TOKEN" in error["message"]
        assert "FRONTDESK_METRICS_OPEN=true" in error["message"]
        assert "acme" not in response.text and "frontdesk_" not in response.text
        assert response.headers["cache-control"] == "no-store"


def test_metrics_are_served_without_a_token_only_when_the_operator_opts_in(
    make_api: MakeApi,
) -> None:
    opened = make_api(settings_options={"metrics_open": True})
    response = opened.client.get("/metrics")
    assert response.status_code == 200 and "frontdesk_http_requests_total" in response.text
    # A token, when one is set, is required whatever the opt-in says.
    both = make_api(settings_options={"metrics_open": True, "metrics_token": "scrape-0123456789"})
    assert both.client.get("/metrics").status_code == 401


def test_the_admin_key_still_opens_every_site(api: Api) -> None:
    assert ADMIN_KEY
    for site in ("demo", "acme"):
        response = api.client.get(f"/v1/admin/sites/{site}/leads", headers=admin_headers())
        assert response.status_code == 200, site
