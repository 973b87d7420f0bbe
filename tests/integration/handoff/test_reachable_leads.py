"""A handoff nobody can answer live asks how the team can reach the visitor, and the lead
goes out with that answer: the contact, or marked "no contact, visitor declined" — through
the real graph (local engine, real SQLite), delivered to loopback Slack and webhook
receivers and the CRM table."""

from __future__ import annotations

import asyncio
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
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.events import Operator
from tests.support.loopback import HttpReceiver, SmtpReceiver

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
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
async def chat(
    request: pytest.FixtureRequest,
    ingested_demo: Settings,
    tmp_path: Path,
    http: HttpReceiver,
    smtp: SmtpReceiver,
) -> AsyncIterator[ChatService]:
    """The demo site on a Saturday night, Slack, a webhook and the fallback inbox on
    loopback; the fixture's parameter, if any, is the site's `handoff` options."""
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    sites = site_file(http, tmp_path, **getattr(request, "param", {}))
    settings = Settings(
        data_dir=data,
        sites_dir=sites,
        smtp_host="127.0.0.1",
        smtp_port=smtp.port,
        smtp_from="frontdesk@tessellate.test",
        smtp_timeout_s=5,
        handoff_http_timeout_s=0.3,
    )
    service = ChatService(build_runtime(settings))
    service.clock = lambda: SATURDAY_NIGHT
    yield service
    await service.close()
    service.runtime.close()


async def say(chat: ChatService, session: str, text: str) -> TurnResult:
    return await chat.ask(chat.runtime.site("demo"), session, text, VISITOR)


async def deliver(chat: ChatService, *, later_s: float = 0.0) -> None:
    """Deliver what is due now (or `later_s` seconds from now), retries included; what
    still waits for the visitor's answer stays."""
    shift = timedelta(seconds=later_s)
    dispatcher = Dispatcher(chat.runtime, clock=lambda: datetime.now(UTC) + shift)
    try:
        for _ in range(200):
            await dispatcher.run_once()
            horizon = datetime.now(UTC) + shift + timedelta(seconds=1)
            with chat.runtime.sessions() as db:
                due = db.scalar(
                    select(OutboxItem.id).where(
                        OutboxItem.status == "pending", OutboxItem.next_attempt_at <= horizon
                    )
                )
            if due is None:
                return
            await asyncio.sleep(0.02)
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


async def operator_online(chat: ChatService) -> None:
    """Tuesday 8 December 2026, 10:00 in Berlin, for the turns and the live desk alike,
    with an operator's console open."""
    tuesday = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)
    chat.clock = lambda: tuesday
    chat.live = TakeoverDesk(chat.runtime.sessions, clock=lambda: tuesday)
    await chat.live.heartbeat("demo", Operator("op-1", "Dana"))


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


async def test_a_visitor_who_declines_is_handed_off_marked_no_contact(
    chat: ChatService, http: HttpReceiver
) -> None:
    session = new_session()
    await say(chat, session, "I want to talk to a person")
    declined = await say(chat, session, "No thanks, I'd rather not")
    assert declined.route == "HANDOFF" and "won't ask again" in declined.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    assert handoff.status == "complete"
    contact = handoff.packet["visitor_contact"]
    assert (contact["status"], contact["email"], contact["phone"]) == ("declined", None, None)
    (hook,) = hooks_of(http, session)
    assert hook["visitor_contact"]["note"].startswith("No contact, visitor declined")
    (slack,) = http.received_on("/slack")
    blocks = slack.json()["blocks"]
    # Under the header: the plain-words summary (the contact first), then the warning.
    declined_words = "No contact: the visitor was asked how to be reached and chose not to say."
    assert blocks[1]["text"]["text"].startswith(declined_words)
    assert blocks[2]["text"]["text"] == f":warning: {declined_words}"
    (lead,) = leads(chat, session)
    assert lead.email is None and lead.details["lead"]["contact_status"] == "declined"
    assert lead.details["notes"]["contact"].startswith("No contact, visitor declined")
    # Declined is declined: a later message is no longer taken for an answer.
    later = await say(chat, session, "Which integrations do you support?")
    assert later.route == "ANSWER"


async def test_not_an_address_is_asked_again_then_the_address_completes_it(
    chat: ChatService,
) -> None:
    session = new_session()
    await say(chat, session, "Can I speak to a human please?")
    again = await say(chat, session, "x@y")
    assert again.route == "HANDOFF" and again.handoff is None
    assert "name@example.com" in again.answer and "rather not" in again.answer
    given = await say(chat, session, "x@y.example")
    assert "x@y.example" in given.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    assert handoff.packet["visitor_contact"]["status"] == "provided"
    (lead,) = leads(chat, session)
    assert lead.email == "x@y.example"


async def test_asked_twice_the_conversation_goes_on_and_a_late_address_still_completes_it(
    chat: ChatService,
) -> None:
    session = new_session()
    await say(chat, session, "I want to talk to a person")
    await say(chat, session, "why?")
    answered = await say(chat, session, "Which integrations do you support?")
    assert answered.route == "ANSWER"  # not asked a third time
    (held,) = handoffs(chat, session)
    assert held.status == "awaiting_contact"
    late = await say(chat, session, "ok, it's late@visitor.example")
    assert late.route == "HANDOFF" and "late@visitor.example" in late.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    assert handoff.packet["visitor_contact"]["email"] == "late@visitor.example"


async def test_another_visitor_cannot_attach_their_contact_to_this_lead(
    chat: ChatService, http: HttpReceiver
) -> None:
    waiting, other = new_session(), new_session()
    await say(chat, waiting, "I want to talk to a person")
    # Another visitor, in their own session, answers with an address.
    intruder = await say(chat, other, "my email is intruder@evil.example")
    assert intruder.handoff is None
    await deliver(chat)
    (held,) = handoffs(chat, waiting)
    assert held.status == "awaiting_contact"
    assert held.packet["visitor_contact"]["status"] == "asked"
    assert handoffs(chat, other) == []
    # The wait runs out: the lead goes marked "asked, no answer", never with their address.
    await deliver(chat, later_s=1000)
    (handoff,) = handoffs(chat, waiting)
    assert handoff.status == "complete"
    assert handoff.packet["visitor_contact"]["status"] == "asked"
    (hook,) = hooks_of(http, waiting)
    assert "intruder" not in str(hook) and "intruder" not in str(http.received_on("/slack"))
    (lead,) = leads(chat, waiting)
    assert lead.email is None and lead.details["lead"]["contact_status"] == "asked"


async def test_the_wait_for_an_answer_is_the_sites(chat: ChatService) -> None:
    session = new_session()
    await say(chat, session, "I want to talk to a person")
    await deliver(chat, later_s=800)  # within the site's 900 s
    assert leads(chat, session) == []
    await deliver(chat, later_s=1000)
    (lead,) = leads(chat, session)
    assert lead.details["lead"]["contact_status"] == "asked"


@pytest.mark.parametrize("chat", [{"contact": "phone"}], indirect=True)
async def test_a_site_that_calls_back_asks_for_a_phone_number(
    chat: ChatService, http: HttpReceiver
) -> None:
    session = new_session()
    asked = await say(chat, session, "Ich möchte mit einem Menschen sprechen")
    assert "Telefonnummer" in asked.answer and "Sie" in asked.answer  # formal, in German
    again = await say(chat, session, "mail@example.de")
    assert "+49 30 1234567" in again.answer  # an e-mail is not what this site asked for
    given = await say(chat, session, "Gern: 030 1234567")
    assert "030 1234567" in given.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    contact = handoff.packet["visitor_contact"]
    assert (contact["status"], contact["asked_for"], contact["phone"]) == (
        "provided",
        "phone",
        "030 1234567",
    )
    (lead,) = leads(chat, session)
    assert lead.details["contact"]["phone"] == "030 1234567"
    (slack,) = http.received_on("/slack")
    assert "Phone: 030 1234567" in str(slack.json()["blocks"])


@pytest.mark.parametrize("chat", [{"contact": "either"}], indirect=True)
async def test_either_contact_in_french(chat: ChatService) -> None:
    session = new_session()
    asked = await say(chat, session, "Je voudrais parler à une personne, s'il vous plaît")
    assert "adresse e-mail ou votre numéro de téléphone" in asked.answer
    given = await say(chat, session, "+33 1 23 45 67 89")
    assert "+33 1 23 45 67 89" in given.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    assert handoff.packet["visitor_contact"]["phone"] == "+33 1 23 45 67 89"


async def test_with_an_operator_online_the_handoff_goes_at_once_and_the_contact_follows(
    chat: ChatService, http: HttpReceiver
) -> None:
    await operator_online(chat)
    session = new_session()
    asked = await say(chat, session, "I want to talk to a person")
    assert ASKS_EMAIL in asked.answer  # asked all the same, in case nobody joins
    (first,) = handoffs(chat, session)
    assert first.status == "pending"  # the operators hear of it now
    await deliver(chat)
    await say(chat, session, "x@y.example")
    await deliver(chat)
    first, second = handoffs(chat, session)
    assert first.packet["visitor_contact"]["status"] == "asked"
    assert second.packet["visitor_contact"]["email"] == "x@y.example"
    (lead,) = leads(chat, session)  # one lead, completed with the address
    assert lead.email == "x@y.example"


async def test_the_fallback_email_says_the_visitor_declined(
    chat: ChatService, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    session = new_session()
    http.fail_next("/slack", "500", "500", "500", "500")  # Slack is down for good
    await say(chat, session, "I want to talk to a person")
    await say(chat, session, "lieber nicht")
    await deliver(chat)
    (mail,) = smtp.mails
    assert "Contact: No contact, visitor declined" in mail.body
    assert "declined" not in mail.subject  # the subject says what the message is


async def test_a_yes_to_the_person_rings_the_operator_and_asks_again_without_a_second_handoff(
    chat: ChatService,
) -> None:
    await operator_online(chat)
    session = new_session()
    await say(chat, session, "I want to talk to a person")
    yes = await say(chat, session, "yes")
    assert ASKS_EMAIL in yes.answer and yes.handoff is None
    events = await chat.live.session_log("demo", session, for_visitor=True)
    assert [e.kind for e in events] == ["handoff_waiting"]  # the operator is rung
    assert len(handoffs(chat, session)) == 1
