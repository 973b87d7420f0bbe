"""Who may see and change what in the console (and the admin API through it).

Each test says what must hold: no page or admin JSON without a session or token, another
site's URLs answer 404 (never 403, which would reveal the site), a POST without the
session's CSRF token changes nothing, and guessing passwords gets throttled.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from console_support import (
    PASSWORD,
    Console,
    login_csrf,
    page_csrf,
    seed_conversation,
    seed_failed_handoff,
    seed_lead,
    sign_in,
)
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from frontdesk.store.models import Lead, Operator, OutboxItem

pytestmark = pytest.mark.integration
# On SQLite and on the production stack (two workers, PostgreSQL + pgvector, Redis).
ON_EVERY_STACK = pytest.mark.usefixtures("stack")


def site_urls(site: str, session_id: str, handoff_id: str) -> list[str]:
    base = f"/console/sites/{site}"
    return [
        f"{base}/inbox",
        f"{base}/inbox?rows=1",
        f"{base}/conversations/{session_id}",
        f"{base}/conversations/{session_id}/export.json",
        f"{base}/conversations/{session_id}/export.md",
        f"{base}/leads",
        f"{base}/handoffs/{handoff_id}",
        f"{base}/knowledge",
        f"{base}/knowledge/search?q=hello",
        f"{base}/analytics",
        f"{base}/settings",
    ]


def site_posts(site: str, lead_id: str, outbox_id: int) -> list[tuple[str, dict[str, str]]]:
    base = f"/console/sites/{site}"
    return [
        (f"{base}/leads/{lead_id}/status", {"status": "won"}),
        (f"{base}/deliveries/{outbox_id}/retry", {}),
        (f"{base}/knowledge/resync", {}),
        (f"{base}/knowledge/documents/remove", {"doc_id": "x"}),
        (f"{base}/settings/validate", {"text": "id: x"}),
        (f"{base}/settings/reload", {}),
        (f"{base}/settings/invite", {"role": "owner"}),
        (f"{base}/settings/tokens", {"label": "x"}),
    ]


def seeded(console_app: Console, site: str = "demo") -> dict[str, Any]:
    session_id = seed_conversation(console_app.runtime, site)
    handoff_id, outbox_id = seed_failed_handoff(console_app.runtime, site, session_id)
    lead_id = seed_lead(console_app.runtime, site, session_id)
    return {"session": session_id, "handoff": handoff_id, "outbox": outbox_id, "lead": lead_id}


@ON_EVERY_STACK
def test_no_page_and_no_admin_json_without_a_session(console_app: Console, team: Any) -> None:
    data = seeded(console_app)
    client = console_app.client()
    for url in ["/console", *site_urls("demo", data["session"], data["handoff"])]:
        response = client.get(url, follow_redirects=False)
        assert response.status_code == 303, url
        assert response.headers["location"].startswith("/console/login"), url
        assert "Open Settings" not in response.text
    htmx = client.get("/console/sites/demo/inbox?rows=1", headers={"HX-Request": "true"})
    assert htmx.status_code == 401 and htmx.headers["HX-Redirect"].startswith("/console/login")
    admin = client.get("/v1/admin/sites/demo/leads")
    assert admin.status_code in (401, 403) and "ada@example.test" not in admin.text
    # An invented or expired cookie is no session either.
    client.cookies.set("fd_console", "made-up")
    assert client.get("/console/sites/demo/inbox", follow_redirects=False).status_code == 303
    assert client.get("/v1/admin/sites/demo/leads").status_code == 401


@ON_EVERY_STACK
def test_an_agent_of_acme_gets_404_for_every_url_of_demo(console_app: Console, team: Any) -> None:
    demo = seeded(console_app, "demo")
    acme = seeded(console_app, "acme")
    client = console_app.client()
    assert sign_in(client, team["acme_agent"]).status_code == 303
    csrf = page_csrf(client, "/console/sites/acme/inbox")
    for url in site_urls("acme", acme["session"], acme["handoff"]):
        assert client.get(url).status_code == 200, url
    for url in site_urls("demo", demo["session"], demo["handoff"]):
        response = client.get(url)
        assert response.status_code == 404, url
        assert demo["session"] not in response.text and "Tessellate" not in response.text
    # Acme's handoff through demo's URL, and the other way round: 404 as well.
    assert client.get(f"/console/sites/acme/handoffs/{demo['handoff']}").status_code == 404
    assert client.get(f"/console/sites/acme/conversations/{demo['session']}").status_code == 404
    for url, form in site_posts("demo", demo["lead"], demo["outbox"]):
        response = client.post(url, data={**form, "csrf_token": csrf}, follow_redirects=False)
        assert response.status_code == 404, url
    # Retrying demo's delivery through acme's URL finds nothing either.
    response = client.post(
        f"/console/sites/acme/deliveries/{demo['outbox']}/retry", data={"csrf_token": csrf}
    )
    assert response.status_code == 404
    # The admin JSON API with the same session: acme yes, demo 404; an agent reads
    # but does not upload knowledge (owners do).
    assert client.get("/v1/admin/sites/acme/leads").status_code == 200
    upload = client.post(
        "/v1/admin/sites/acme/documents",
        files={"files": ("a.md", b"# A\n\ntext")},
        headers={"X-CSRF-Token": csrf},
    )
    assert upload.status_code == 403 and upload.json()["error"]["code"] == "role_too_low"
    assert client.get("/v1/admin/sites/demo/leads").status_code == 404
    assert client.get(f"/v1/admin/sites/demo/traces/{demo['session']}").status_code == 404
    with console_app.runtime.sessions() as session:
        lead = session.get(Lead, demo["lead"])
        item = session.get(OutboxItem, demo["outbox"])
        assert lead is not None and lead.status == "new"
        assert item is not None and item.status == "failed"


@ON_EVERY_STACK
def test_posts_without_the_csrf_token_change_nothing(console_app: Console, team: Any) -> None:
    data = seeded(console_app)
    client = console_app.client()
    sign_in(client, team["owner"])
    csrf = page_csrf(client, "/console/sites/demo/leads")
    for url, form in site_posts("demo", data["lead"], data["outbox"]):
        for sent in ({}, {"csrf_token": "wrong"}):
            response = client.post(url, data={**form, **sent}, follow_redirects=False)
            assert response.status_code == 403, (url, sent)
    wrong_header = client.post(
        f"/console/sites/demo/leads/{data['lead']}/status",
        data={"status": "won"},
        headers={"X-CSRF-Token": "nope"},
    )
    assert wrong_header.status_code == 403
    # Sign-out without the token keeps the session.
    assert client.post("/console/logout", follow_redirects=False).status_code == 403
    assert client.get("/console/sites/demo/leads").status_code == 200
    # Admin JSON with the session cookie: a change needs the token in X-CSRF-Token.
    upload = client.post(
        "/v1/admin/sites/demo/documents", files={"files": ("a.md", b"# A\n\ntext")}
    )
    assert upload.status_code == 403 and upload.json()["error"]["code"] == "csrf_rejected"
    with console_app.runtime.sessions() as session:
        lead = session.get(Lead, data["lead"])
        item = session.get(OutboxItem, data["outbox"])
        assert lead is not None and lead.status == "new"
        assert item is not None and item.status == "failed"
    # With the token (form field, or the header htmx sends) the same POST works.
    response = client.post(
        f"/console/sites/demo/leads/{data['lead']}/status",
        data={"status": "contacted", "csrf_token": csrf},
        follow_redirects=False,
    )
    assert response.status_code == 303
    response = client.post(
        f"/console/sites/demo/leads/{data['lead']}/status",
        data={"status": "won"},
        headers={"X-CSRF-Token": csrf},
        follow_redirects=False,
    )
    assert response.status_code == 303
    with console_app.runtime.sessions() as session:
        lead = session.get(Lead, data["lead"])
        assert lead is not None and lead.status == "won"


def test_the_login_form_itself_needs_its_token(console_app: Console, team: Any) -> None:
    client = console_app.client()
    response = client.post(
        "/console/login",
        data={"email": team["owner"], "password": PASSWORD, "csrf_token": "forged"},
        follow_redirects=False,
    )
    assert response.status_code == 403 and "fd_console" not in response.cookies


def test_repeated_bad_passwords_are_throttled(console_app: Console, team: Any) -> None:
    from frontdesk.guard.admin_lockout import AdminLockout
    from frontdesk.guard.limits import InMemoryRateLimiter

    # A fixed clock: the failure counter's minute window must not roll over mid-test.
    limit = console_app.settings.admin_auth_max_failures
    console_app.app.state.admin_lockout = AdminLockout(
        InMemoryRateLimiter(clock=lambda: 1_000_000.0),
        limit,
        console_app.settings.admin_lockout_s,
        clock=lambda: 1000.0,
    )
    client = console_app.client()
    statuses = [
        sign_in(client, team["owner"], f"wrong password {n}").status_code for n in range(limit + 1)
    ]
    assert statuses[:limit] == [401] * limit
    assert statuses[limit] == 429
    # Locked out: even the right password is refused, with Retry-After.
    locked = sign_in(client, team["owner"])
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
    assert "Too many failed sign-ins" in locked.text
    assert "fd_console" not in locked.cookies


def test_failures_from_another_ip_never_lock_the_operator_out(
    console_app: Console, team: Any
) -> None:
    from frontdesk.guard.admin_lockout import AdminLockout
    from frontdesk.guard.limits import InMemoryRateLimiter

    limit = console_app.settings.admin_auth_max_failures
    console_app.app.state.admin_lockout = AdminLockout(
        InMemoryRateLimiter(clock=lambda: 1_000_000.0),
        limit,
        console_app.settings.admin_lockout_s,
        account_slowdown_s=0.3,
        clock=lambda: 1000.0,
    )
    attacker = TestClient(console_app.app, client=("203.0.113.66", 40000))
    statuses = [
        sign_in(attacker, team["owner"], f"guess {n}").status_code for n in range(limit + 1)
    ]
    assert statuses[:limit] == [401] * limit and statuses[limit] == 429
    assert sign_in(attacker, team["owner"]).status_code == 429  # the attacker's IP is locked
    # The owner, from their own address, still gets in: the account is only slowed down.
    owner = TestClient(console_app.app, client=("198.51.100.7", 40000))
    started = time.monotonic()
    signed_in = sign_in(owner, team["owner"])
    assert signed_in.status_code == 303 and "fd_console" in signed_in.cookies
    assert time.monotonic() - started >= 0.3
    # A second address of the attacker gets the same slow-down, not a free run.
    second = TestClient(console_app.app, client=("203.0.113.67", 40000))
    started = time.monotonic()
    assert sign_in(second, team["owner"], "another guess").status_code == 401
    assert time.monotonic() - started >= 0.3


@ON_EVERY_STACK
def test_session_cookie_flags_and_sign_out(console_app: Console, team: Any) -> None:
    client = console_app.client()
    response = sign_in(client, team["owner"])
    cookie = response.headers["set-cookie"]
    assert "fd_console=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain http here; https requests get Secure
    https = console_app.client()
    https.base_url = https.base_url.copy_with(scheme="https")  # type: ignore[attr-defined]
    secure = sign_in(https, team["owner"])
    assert "Secure" in secure.headers["set-cookie"]
    csrf = page_csrf(client, "/console/sites/demo/inbox")
    out = client.post("/console/logout", data={"csrf_token": csrf}, follow_redirects=False)
    assert out.status_code == 303
    assert client.get("/console/sites/demo/inbox", follow_redirects=False).status_code == 303


@ON_EVERY_STACK
def test_viewers_read_but_cannot_change(console_app: Console, team: Any) -> None:
    data = seeded(console_app)
    client = console_app.client()
    sign_in(client, "viewer@demo.test")
    csrf = page_csrf(client, "/console/sites/demo/leads")
    assert client.get("/console/sites/demo/leads").status_code == 200
    response = client.post(
        f"/console/sites/demo/deliveries/{data['outbox']}/retry", data={"csrf_token": csrf}
    )
    assert response.status_code == 403
    assert "Retry" not in client.get("/console/sites/demo/leads").text
    assert client.get("/console/sites/acme/inbox").status_code == 404


def test_first_owner_link_works_once_and_covers_every_site(console_app: Console) -> None:
    from frontdesk.cli.operators import first_owner_link

    earlier = first_owner_link(console_app.runtime)
    link = first_owner_link(console_app.runtime)
    assert earlier is not None and link is not None and link != earlier
    path = link.split("8000", 1)[1]
    client = console_app.client()
    form = client.get(path)
    assert form.status_code == 200 and "owner" in form.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    assert token
    short = client.post(
        path,
        data={
            "email": "boss@x.test",
            "password": "short",
            "confirm": "short",
            "csrf_token": token.group(1),
        },
    )
    assert short.status_code == 400 and "at least 10" in short.text
    accepted = client.post(
        path,
        data={
            "email": "boss@x.test",
            "password": PASSWORD,
            "confirm": PASSWORD,
            "csrf_token": token.group(1),
        },
        follow_redirects=False,
    )
    assert accepted.status_code == 303
    assert client.get("/console/sites/demo/settings").status_code == 200
    assert client.get("/console/sites/acme/settings").status_code == 200
    assert client.get(path).status_code == 404  # used
    assert client.get(earlier.split("8000", 1)[1]).status_code == 404  # replaced
    assert first_owner_link(console_app.runtime) is None  # someone can sign in now


def test_tokens_made_in_the_console_open_the_admin_api_of_their_site(
    console_app: Console, team: Any
) -> None:
    seeded(console_app)
    client = console_app.client()
    sign_in(client, team["owner"])
    csrf = page_csrf(client, "/console/sites/demo/settings")
    page = client.post(
        "/console/sites/demo/settings/tokens", data={"label": "crm sync", "csrf_token": csrf}
    )
    token = re.search(r'id="new-token">([^<]+)<', page.text)
    assert token
    assert token.group(1) not in client.get("/console/sites/demo/settings").text  # shown once
    bare = console_app.client()
    bearer = {"Authorization": f"Bearer {token.group(1)}"}
    assert bare.get("/v1/admin/sites/demo/leads", headers=bearer).status_code == 200
    assert bare.get("/v1/admin/sites/acme/leads", headers=bearer).status_code in (401, 403)
    # Stored hashed: the table holds the token's SHA-256, never the token.
    import hashlib

    from frontdesk.store.models import AdminToken

    with console_app.runtime.sessions() as session:
        stored = session.scalars(select(AdminToken.token_hash)).all()
    assert hashlib.sha256(token.group(1).encode()).hexdigest() in stored
    assert token.group(1) not in stored
    # The operator's session opens the admin API too (the process-wide key stays for
    # automation: tests/integration/api).
    assert client.get("/v1/admin/sites/demo/leads").status_code == 200


def test_operators_cli_add_list_remove(console_app: Console) -> None:
    from frontdesk.cli import app as cli_app

    runner = CliRunner()
    env = {
        "FRONTDESK_SITES_DIR": str(console_app.settings.sites_dir),
        "FRONTDESK_DATA_DIR": str(console_app.settings.data_dir),
    }
    added = runner.invoke(
        cli_app,
        [
            "operators",
            "add",
            "Kim@Acme.test",
            "--site",
            "acme",
            "--role",
            "agent",
            "--password",
            PASSWORD,
        ],
        env=env,
    )
    assert added.exit_code == 0, added.output
    bad = runner.invoke(
        cli_app,
        ["operators", "add", "kim@acme.test", "--site", "nope", "--role", "agent"],
        env=env,
    )
    assert bad.exit_code == 1 and "unknown site 'nope'" in bad.output
    listed = runner.invoke(cli_app, ["operators", "list"], env=env)
    assert "kim@acme.test" in listed.output and "acme:agent" in listed.output
    client = console_app.client()
    assert sign_in(client, "kim@acme.test").status_code == 303
    removed = runner.invoke(cli_app, ["operators", "remove", "kim@acme.test"], env=env)
    assert removed.exit_code == 0, removed.output
    assert client.get("/console/sites/acme/inbox", follow_redirects=False).status_code == 303
    with console_app.runtime.sessions() as session:
        assert session.scalars(select(Operator.email)).all() == []
    assert login_csrf(client)


def test_make_run_prints_the_console_address_and_a_first_owner_link(
    console_app: Console,
) -> None:
    """`make run` is `frontdesk demo`, which ends with this print (cli/main.py)."""
    import importlib

    # `frontdesk.cli.main` is also the name of the entry-point function the package exports.
    cli_main = importlib.import_module("frontdesk.cli.main")

    with cli_main.console.capture() as captured:
        cli_main._print_console_link(console_app.settings)
    printed = captured.get()
    assert "Console: http://127.0.0.1:8000/console" in printed
    link = re.search(r"http://127\.0\.0\.1:8000(/console/invite/\S+)", printed)
    assert link and "Create the first owner (one-time link):" in printed
    client = console_app.client()
    assert client.get(link.group(1)).status_code == 200  # the invitation form
    with cli_main.console.capture() as again:
        cli_main._print_console_link(console_app.settings)
    assert "/console/invite/" in again.get()  # nobody signed up yet: a fresh link
    assert client.get(link.group(1)).status_code == 404  # and the earlier one is withdrawn
