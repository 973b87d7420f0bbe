"""The API process delivers the outbox itself, and the admin API shows how each channel fared."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from handoff_support import MakeHandoff

from frontdesk.api.app import create_app
from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.runtime import Runtime
from frontdesk.settings import Settings
from frontdesk.sites.registry import LoadedSite
from tests.support.loopback import HttpReceiver

pytestmark = pytest.mark.integration

ADMIN_KEY = "fd-admin-handoff-key-0123456789"


class NoChat:
    """No conversation backend: this test only needs the admin routes and the lifespan."""


def test_in_process_dispatcher_and_admin_view_of_attempts(
    acme: Runtime, acme_settings: Settings, make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    settings = acme_settings.model_copy(
        update={"admin_api_key_hash": hashlib.sha256(ADMIN_KEY.encode()).hexdigest()}
    )
    acme.settings = settings
    http.fail_next("/slack", "500")
    handoff_id = make_handoff()
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    with TestClient(create_app(settings, acme, chat=NoChat())) as client:  # type: ignore[arg-type]
        deadline = time.monotonic() + 20
        while True:
            (handoff,) = client.get("/v1/admin/sites/acme/handoffs", headers=headers).json()
            if handoff["status"] != "pending" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        leads = client.get("/v1/admin/sites/acme/leads", headers=headers).json()
    assert handoff["id"] == handoff_id and handoff["status"] == "complete"
    assert handoff["completed_at"] is not None
    channels = {c["channel"]: c for c in handoff["channels"]}
    assert {c: v["status"] for c, v in channels.items()} == {
        "crm": "delivered",
        "slack": "delivered",
        "webhook:0": "delivered",
    }
    assert channels["slack"]["attempts"] == 2
    slack_attempts = [a for a in handoff["attempts"] if a["channel"] == "slack"]
    assert [(a["attempt"], a["status"]) for a in slack_attempts] == [
        (1, "failed"),
        (2, "delivered"),
    ]
    assert slack_attempts[0]["error"].startswith("HTTP 500")
    assert [lead["reason"] for lead in leads] == ["hot_lead"]


class CapturingChat(NoChat):
    def __init__(self) -> None:
        self.visitors: list[VisitorContext] = []

    async def ask(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> TurnResult:
        self.visitors.append(visitor)
        return TurnResult(
            answer="ok",
            routing="answered",
            route="ANSWER",
            intent="LEARN",
            language="en",
            session_id=session_id,
            turn=1,
        )


def test_the_page_can_pass_reveal_data_for_enrichment(tmp_path: Path) -> None:
    sites = tmp_path / "reveal-sites"
    sites.mkdir()
    (sites / "acme.yaml").write_text(
        "id: acme\nname: Acme\nbusiness_hours: {timezone: Europe/Madrid}\n"
        "widget: {public_key: pk_acme_000000000001, allowed_origins: ['https://acme.test']}\n",
        encoding="utf-8",
    )
    settings = Settings(data_dir=tmp_path / "reveal-data", sites_dir=sites)
    chat = CapturingChat()
    with TestClient(create_app(settings, chat=chat)) as client:  # type: ignore[arg-type]
        response = client.post(
            "/v1/ask",
            json={"message": "hi", "reveal": {"company": "Initech", "domain": "initech.test"}},
            headers={"X-Frontdesk-Key": "pk_acme_000000000001", "Origin": "https://acme.test"},
        )
        too_long = client.post(
            "/v1/ask",
            json={"message": "hi", "reveal": {"company": "x" * 301}},
            headers={"X-Frontdesk-Key": "pk_acme_000000000001", "Origin": "https://acme.test"},
        )
    assert response.status_code == 200, response.text
    assert chat.visitors[0].reveal == {"company": "Initech", "domain": "initech.test"}
    assert chat.visitors[0].ip_hash and "testclient" not in chat.visitors[0].ip_hash
    assert too_long.status_code == 422
