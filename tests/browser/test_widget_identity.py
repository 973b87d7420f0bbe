"""Known visitors in Chromium: the host page passes a signed identity (HMAC-SHA256 of the
user id with the site's secret); a verified visitor's conversation follows them to another
device and their lead names them; a wrong signature is ignored and logged.

`test_real_graph_*` runs the real `ChatService` (LangGraph, local engine): the answer
after a reload continues the booking the earlier turn started (same LangGraph thread).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import Server, StartServer
from scripted_backend import ScriptedBackend
from sqlalchemy import select
from test_widget import open_and_acknowledge, widget
from test_widget_continuity import COMPLETE, ask, host_page, html_response, stored

from frontdesk.api.identity import sign_user_id
from frontdesk.store.models import Lead
from frontdesk.store.widget import WidgetSessionKey

pytestmark = pytest.mark.browser

SECRET_ENV = "FRONTDESK_TEST_IDENTITY_SECRET"
SECRET = "site-identity-secret-for-tests-0123456789"
IDENTITY = {"identity_secret_env": SECRET_ENV}


def identity_attributes(user_id: str, signature: str) -> str:
    return (
        f'user-id="{user_id}" user-email="{user_id}@example.org" user-name="Dana Visitor" '
        f'user-hash="{signature}"'
    )


def open_as(context: Any, server: Server, attributes: str, path: str = "/app") -> Any:
    context.route(f"{server.url}{path}", html_response(host_page(server, path, attributes)))
    page = context.new_page()
    page.goto(f"{server.url}{path}")
    return page


def keys_of(server: Server, session_id: str) -> list[WidgetSessionKey]:
    with server.runtime.sessions() as db:
        return list(
            db.scalars(select(WidgetSessionKey).where(WidgetSessionKey.session_id == session_id))
        )


def test_a_signed_visitor_is_known_on_every_device_and_a_wrong_signature_is_ignored(
    browser: Any,
    context: Any,
    start_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from playwright.sync_api import expect

    monkeypatch.setenv(SECRET_ENV, SECRET)
    server = start_server(ScriptedBackend(), widget=IDENTITY)
    signed = identity_attributes("user-42", sign_user_id(SECRET, "user-42"))
    laptop = open_as(context, server, signed)
    open_and_acknowledge(laptop)
    ask(laptop, "Where do I change my billing address?")
    session = stored(laptop)
    keys = keys_of(server, session["id"])
    assert [(k.user_id, k.email, k.name) for k in keys] == [
        ("user-42", "user-42@example.org", "Dana Visitor")
    ]

    # Another device, nothing in its storage: the verified visitor gets the conversation.
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = open_as(phone, server, signed)
        page.locator("frontdesk-chat .launcher").click()
        expect(widget(page, ".turn.user .bubble")).to_have_text(
            ["Where do I change my billing address?"]
        )
        own = stored(page)
        assert own["id"] == session["id"] and own["secret"] != session["secret"]
    finally:
        phone.close()

    # The same user id with a wrong signature: nothing restored, nothing bound, logged.
    caplog.set_level(logging.WARNING, logger="frontdesk.api.identity")
    forged = browser.new_context()
    try:
        page = open_as(forged, server, identity_attributes("user-42", "0" * 64))
        open_and_acknowledge(page)
        page.wait_for_timeout(300)
        expect(widget(page, ".turn.user")).to_have_count(0)
        ask(page, "Show me my previous questions")
        mine = stored(page)
        assert mine["id"] != session["id"]
        assert [k.user_id for k in keys_of(server, mine["id"])] == [None]
    finally:
        forged.close()
    assert any("wrong signature" in r.getMessage() for r in caplog.records)

    # The API refuses a resume by an unsigned identity outright.
    key = server.runtime.sites["demo"].config.widget.public_key
    refused = httpx.post(
        f"{server.url}/v1/sessions/resume",
        json={"identity": {"user_id": "user-42"}},
        headers={"X-Frontdesk-Key": key, "Origin": server.url},
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "identity_not_verified"


def _real_service_reason() -> str | None:
    from real_service import service_unavailable_reason

    return service_unavailable_reason()


@pytest.mark.skipif(_real_service_reason() is not None, reason=str(_real_service_reason()))
def test_real_graph_continues_after_a_reload_and_the_lead_names_the_signed_visitor(
    context: Any,
    start_server: StartServer,
    sites_dir: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect
    from real_service import ingested_data_dir

    monkeypatch.setenv(SECRET_ENV, SECRET)
    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites_dir, tmp_path / "data")
    server = start_server(None, data_dir=data, widget=IDENTITY)
    key = server.runtime.sites["demo"].config.widget.public_key
    warm = httpx.post(  # load the models before the widget's first-token timeout runs
        f"{server.url}/v1/ask",
        json={"message": "Hello"},
        headers={"X-Frontdesk-Key": key, "Origin": server.url},
        timeout=180,
    )
    assert warm.status_code == 200, warm.text

    signed = identity_attributes("user-77", sign_user_id(SECRET, "user-77"))
    page = open_as(context, server, signed + ' stream-timeout-ms="60000"')
    open_and_acknowledge(page)
    first = ask(page, "I would like to book a demo, please.")
    expect(first).to_contain_text("email")
    page.reload()
    expect(widget(page, ".turn.user")).to_have_count(1)
    # The next answer uses the earlier turn: the graph remembers it asked for an email.
    confirmed = ask(page, "dana@acme-industries.com")
    expect(confirmed).to_contain_text("dana@acme-industries.com")
    assert widget(page, COMPLETE).count() == 2
    session = stored(page)["id"]
    with server.runtime.sessions() as db:
        lead = db.scalars(select(Lead).where(Lead.session_id == session)).one()
    assert lead.email == "dana@acme-industries.com"
    assert lead.name == "Dana Visitor"
    assert lead.details["identity"] == {
        "user_id": "user-77",
        "email": "user-77@example.org",
        "name": "Dana Visitor",
        "verified": True,
    }
