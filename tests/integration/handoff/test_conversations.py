"""Whole conversations on the demo site that end in each handoff reason and in a booking,
then delivered by the dispatcher to loopback Slack/webhook receivers and the CRM table."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml
from sqlalchemy import select

from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.store.models import AnalyticsEvent, Handoff, Lead, OutboxItem
from tests.support.loopback import HttpReceiver

pytestmark = pytest.mark.integration

VISITOR = VisitorContext()


@pytest.fixture
async def chat(
    request: pytest.FixtureRequest, ingested_demo: Settings, tmp_path: Path, http: HttpReceiver
) -> AsyncIterator[ChatService]:
    """The demo site, its knowledge base ingested, with Slack and a webhook on loopback
    (and the stall threshold given as the fixture's parameter, default 6)."""
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    raw["qualification"]["stall_turn_threshold"] = getattr(request, "param", 6)
    raw["handoff"].update(
        slack_webhook_url=http.url("/slack"),
        webhooks=[{"url": http.url("/hook"), "secret": "s3cret"}],
        retry_delays_s=[0.01, 0.01, 0.01],
    )
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "demo.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    service = ChatService(build_runtime(Settings(data_dir=data, sites_dir=sites)))
    yield service
    await service.close()
    service.runtime.close()


async def say(chat: ChatService, session: str, text: str) -> TurnResult:
    return await chat.ask(chat.runtime.site("demo"), session, text, VISITOR)


async def deliver(chat: ChatService) -> None:
    dispatcher = Dispatcher(chat.runtime)
    try:
        await dispatcher.drain(timeout_s=30)
    finally:
        await dispatcher.aclose()


def handoffs(chat: ChatService, session: str) -> list[Handoff]:
    with chat.runtime.sessions() as db:
        return list(db.scalars(select(Handoff).where(Handoff.session_id == session)))


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


def new_session() -> str:
    return str(uuid.uuid4())


async def test_explicit_request_is_handed_off_and_delivered_everywhere(
    chat: ChatService, http: HttpReceiver
) -> None:
    session = new_session()
    first = await say(chat, session, "Which integrations do you support?")
    assert first.route == "ANSWER"
    result = await say(chat, session, "Can I speak to someone?")
    assert result.route == "HANDOFF" and result.handoff is not None
    assert result.handoff.reason == "explicit_request"
    # Nobody is online to take it over: the reply asks how the team can reach the visitor,
    # and the handoff waits for the answer.
    assert "How can our team reach you?" in result.answer
    (handoff,) = handoffs(chat, session)
    assert handoff.reason == "explicit_request" and handoff.status == "awaiting_contact"
    assert handoff.packet["packet"]["conversation"]["turn_count"] == 2
    assert [row.channel for row in outbox(chat, session)] == ["crm", "slack", "webhook:0"]

    await say(chat, session, "lena@example.org")
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    assert handoff.status == "complete"
    (lead,) = leads(chat, session)
    assert (lead.reason, lead.capture_context) == ("explicit_request", "handoff")
    assert lead.email == "lena@example.org"
    (slack,) = http.received_on("/slack")
    header = slack.json()["text"]
    assert header in (
        "❄️ Tessellate: wants to talk to a person — wrote 2 messages",
        "📬 Tessellate: wants to talk to a person — outside opening hours — wrote 2 messages",
    )
    assert header.startswith("❄️") == handoff.business_hours
    (hook,) = http.received_on("/hook")
    assert hook.json()["data"]["session_id"] == session


async def test_hot_lead_is_handed_off_with_its_qualification(
    chat: ChatService, http: HttpReceiver
) -> None:
    session = new_session()
    result = await say(
        chat,
        session,
        "I'm the Head of Operations at a 200-person logistics company and we need to "
        "automate invoice matching before the end of Q3",
    )
    assert result.route == "HANDOFF" and result.handoff is not None
    assert result.handoff.reason == "hot_lead" and result.lead.level == "hot"
    # Nobody can take it over live: the proposal asks how to reach the visitor, and the
    # handoff waits for the answer.
    assert "How can our team reach you?" in result.answer
    (handoff,) = handoffs(chat, session)
    assert handoff.status == "awaiting_contact"
    # A "yes" accepts the person, and is no way to reach them: asked again, no second
    # handoff.
    yes = await say(chat, session, "Yes, please")
    assert yes.route == "HANDOFF" and "How can our team reach you?" in yes.answer
    assert yes.handoff is None
    thanks = await say(chat, session, "ana@northwind.io")
    assert "ana@northwind.io" in thanks.answer
    assert thanks.handoff is not None
    await deliver(chat)
    (handoff,) = handoffs(chat, session)  # the one handoff, sent once with the email
    assert handoff.reason == "hot_lead" and handoff.status == "complete"
    assert handoff.packet["packet"]["visitor"]["email"] == "ana@northwind.io"
    packet = handoff.packet["packet"]
    assert packet["lead_level"] == "hot"
    assert packet["qualification"]["problem_fit"] == "confirmed"
    assert packet["qualification"]["authority_fit"] == "confirmed"
    assert "automate invoice matching" in packet["conversation_summary"]
    (lead,) = leads(chat, session)  # one lead for the conversation, now with the email
    assert lead.level == "hot" and lead.reason == "hot_lead"
    assert lead.email == "ana@northwind.io"
    assert lead.details["handoffs"] == [handoff.id]
    (slack,) = http.received_on("/slack")
    assert slack.json()["text"] in (
        "🔥 Tessellate: is very interested in buying — wrote 1 message",
        "📬 Tessellate: is very interested in buying — outside opening hours — wrote 1 message",
    )


@pytest.mark.parametrize("chat", [3], indirect=True)
async def test_a_stalled_conversation_becomes_a_lead_only_when_the_visitor_leaves_an_email(
    chat: ChatService,
) -> None:
    session = new_session()
    questions = [
        "Which integrations do you support?",
        "Does Tessellate integrate with Salesforce?",
        "Which regions can my data be stored in?",
    ]
    results = [await say(chat, session, question) for question in questions]
    assert [r.route for r in results] == ["ANSWER", "ANSWER", "ANSWER"]
    assert [r.handoff for r in results[:2]] == [None, None]
    stalled = results[-1]  # the third answer ends with the low-friction stall offer
    assert stalled.handoff is not None and stalled.handoff.reason == "stall"
    assert "leave your email" in stalled.answer
    assert handoffs(chat, session) == []  # an offer, not yet a lead (the stall path)

    accepted = await say(chat, session, "sure, dana@acme.io")
    assert accepted.route == "HANDOFF" and "dana@acme.io" in accepted.answer
    (handoff,) = handoffs(chat, session)
    assert handoff.reason == "stall"
    await deliver(chat)
    (lead,) = leads(chat, session)
    assert lead.email == "dana@acme.io" and lead.reason == "stall"


async def test_high_stakes_goes_to_a_person_after_a_normal_answer(chat: ChatService) -> None:
    session = new_session()
    await say(chat, session, "Do you support SAML single sign-on?")
    result = await say(
        chat,
        session,
        "You charged us twice this month, I want a refund or we will cancel the contract",
    )
    assert result.route == "HANDOFF" and result.routing == "high_stakes"
    assert "How can our team reach you?" in result.answer
    declined = await say(chat, session, "No thanks")
    assert declined.route == "HANDOFF" and "won't ask again" in declined.answer
    await deliver(chat)
    (handoff,) = handoffs(chat, session)
    assert handoff.reason == "high_stakes" and handoff.status == "complete"
    assert handoff.packet["visitor_contact"]["status"] == "declined"
    (lead,) = leads(chat, session)
    assert lead.reason == "high_stakes" and lead.email is None
    assert lead.details["lead"]["contact_status"] == "declined"


async def test_booking_with_email_capture_then_post_conversion(
    chat: ChatService, http: HttpReceiver
) -> None:
    session = new_session()
    asked = await say(chat, session, "I'd like to book a demo")
    assert asked.route == "BOOKING" and asked.answer.endswith("💌")
    booked = await say(chat, session, "sure, it's maria@example.org")
    assert booked.route == "BOOKING" and "maria@example.org" in booked.answer
    assert booked.cta is not None and "maria%40example.org" in booked.cta.url
    (lead,) = leads(chat, session)
    assert (lead.capture_context, lead.email, lead.reason) == (
        "in_chat_booking",
        "maria@example.org",
        "booking",
    )
    with chat.runtime.sessions() as db:
        events = db.scalars(select(AnalyticsEvent).where(AnalyticsEvent.session_id == session))
        assert [(e.name, e.properties["capture_context"]) for e in events] == [
            ("email_captured", "in_chat_booking")
        ]
    assert [row.channel for row in outbox(chat, session)] == ["webhook:0"]

    # Post-conversion: asked about the booking, the answer comes from the booking state.
    after = await say(chat, session, "When is my demo?")
    assert after.route == "BOOKING" and "maria@example.org" in after.answer
    assert "👇" not in after.answer  # not proposed again
    again = await say(chat, session, "Did you get my booking?")
    assert again.route == "BOOKING" and "maria@example.org" in again.answer
    assert len(leads(chat, session)) == 1

    await deliver(chat)
    (hook,) = http.received_on("/hook")
    assert hook.headers["x-frontdesk-event"] == "lead.captured"
    assert hook.json()["data"]["capture_context"] == "in_chat_booking"


async def test_profiling_form_is_asked_one_question_at_a_time_then_the_demo(
    chat: ChatService,
) -> None:
    session = new_session()
    await say(chat, session, "Hello")
    answered = await say(chat, session, "Do you support SAML single sign-on?")
    assert answered.route == "ANSWER"
    assert answered.answer.splitlines()[-1] == "👉 How many people work at your company?"
    assert answered.suggested_answers == []  # a free answer, no yes/no chips
    second = await say(chat, session, "About 200 people")
    assert second.answer.splitlines()[-1] == (
        "👉 Which workflows would you like to automate first?"
    )
    done = await say(chat, session, "Mostly invoice approvals")
    assert done.answer.endswith("👇") and done.cta is not None
    assert "company_size=About%20200%20people" in done.cta.url
    assert "use_case=Mostly%20invoice%20approvals" in done.cta.url


async def test_content_gating_email_becomes_a_lead(chat: ChatService) -> None:
    session = new_session()
    for question in (
        "Hello",
        "Does Tessellate integrate with Salesforce?",
        "Do you integrate with HubSpot?",
    ):
        result = await say(chat, session, question)
    assert result.answer.endswith("💌"), result.answer
    thanks = await say(chat, session, "jane@acme.com")
    assert thanks.route == "BOOKING" and "jane@acme.com" in thanks.answer
    (lead,) = leads(chat, session)
    assert (lead.capture_context, lead.email) == ("content_gating", "jane@acme.com")
