"""A handoff nobody can answer live asks how the team can reach the visitor, and the lead
goes out with that answer: the contact, or marked "no contact, visitor declined" — through
the real graph (local engine, real SQLite), delivered to loopback Slack and webhook
receivers and the CRM table."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.store.models import Handoff, Lead, OutboxItem
from tests.support.loopback import HttpReceiver

pytestmark = pytest.mark.integration

VISITOR = VisitorContext()
# Saturday 5 December 2026, 21:00 in Berlin: the demo site's team is off until Monday.
SATURDAY_NIGHT = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)
ASKS_EMAIL = "How can our team reach you? Please leave your e-mail address"


def site_file(http: HttpReceiver, tmp_path: Path, **handoff: Any) -> Path:
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    raw["handoff"].update(
        slack_webhook_url=http.url("/slack"),
        webhooks=[{"url": http.url("/hook"), "secret": "s3cret"}],
        retry_delays_s=[0.01, 0.01, 0.01],
        **handoff,
    )
    sites = tmp_path / "sites"
    sites.mkdir(exist_ok=True)
    (sites / "demo.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return sites


@pytest.fixture
def http() -> Iterator[HttpReceiver]:
    with HttpReceiver(slow_s=1.0) as receiver:
        yield receiver


@pytest.fixture
async def chat(
    request: pytest.FixtureRequest, ingested_demo: Settings, tmp_path: Path, http: HttpReceiver
) -> AsyncIterator[ChatService]:
    """The demo site on a Saturday night, Slack and a webhook on loopback; the fixture's
    parameter, if any, is the site's `handoff` options."""
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    sites = site_file(http, tmp_path, **getattr(request, "param", {}))
    service = ChatService(build_runtime(Settings(data_dir=data, sites_dir=sites)))
    service.clock = lambda: SATURDAY_NIGHT
    yield service
    await service.close()
    service.runtime.close()


async def say(chat: ChatService, session: str, text: str) -> TurnResult:
    return await chat.ask(chat.runtime.site("demo"), session, text, VISITOR)


async def deliver(chat: ChatService, *, later_s: float = 0.0) -> None:
    """Deliver what is due now (or `later_s` seconds from now)."""
    dispatcher = Dispatcher(
        chat.runtime, clock=lambda: datetime.now(UTC) + timedelta(seconds=later_s)
    )
    try:
        for _ in range(20):
            await dispatcher.run_once()
    finally:
        await dispatcher.aclose()


def handoffs(chat: ChatService, session: str) -> list[Handoff]:
    with chat.runtime.sessions() as db:
        return list(
            db.scalars(
                select(Handoff).where(Handoff.session_id == session).order_by(Handoff.created_at)
            )
        )


def leads(chat: ChatService, session: str) -> list[Lead]:
    with chat.runtime.sessions() as db:
        return list(db.scalars(select(Lead).where(Lead.session_id == session)))


def outbox(chat: ChatService, session: str) -> list[OutboxItem]:
    with chat.runtime.sessions() as db:
        return list(
            db.scalars(
                select(OutboxItem)
                .where(OutboxItem.idempotency_key.like(f"demo:{session}:%"))
                .order_by(OutboxItem.id)
            )
        )


def hooks_of(http: HttpReceiver, session: str) -> list[dict[str, Any]]:
    found = [r.json()["data"] for r in http.received_on("/hook")]
    return [data for data in found if data.get("session_id") == session]


def new_session() -> str:
    return str(uuid.uuid4())


async def test_outside_hours_the_visitor_is_asked_and_the_lead_goes_once_with_the_email(
    chat: ChatService, http: HttpReceiver
) -> None:
    session = new_session()
    asked = await say(chat, session, "I want to talk to a person")
    assert asked.route == "HANDOFF" and asked.handoff is not None
    assert ASKS_EMAIL in asked.answer
    assert "If you share your email" not in asked.answer  # one question, not two
    (held,) = handoffs(chat, session)
    assert held.status == "awaiting_contact"
    assert held.packet["visitor_contact"]["status"] == "asked"
    await deliver(chat)  # nothing goes while the visitor may still answer
    assert http.received_on("/slack") == [] and leads(chat, session) == []

    given = await say(chat, session, "my email is x@y.example")
    assert given.route == "HANDOFF" and "x@y.example" in given.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)  # the same handoff, now with the contact
    assert handoff.status == "complete"
    assert handoff.packet["visitor_contact"] == {
        "status": "provided",
        "asked_for": "email",
        "email": "x@y.example",
        "phone": None,
        "note": "The visitor left a way to reach them.",
    }
    assert len(outbox(chat, session)) == 3  # crm, slack, webhook: each once
    (hook,) = hooks_of(http, session)
    assert hook["packet"]["visitor"]["email"] == "x@y.example"
    assert len(http.received_on("/slack")) == 1
    (lead,) = leads(chat, session)
    assert lead.email == "x@y.example"
    assert lead.details["lead"]["contact_status"] == "provided"
