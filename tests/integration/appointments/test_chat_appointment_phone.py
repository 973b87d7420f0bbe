"""A site that asks for a phone number (`calendar.ask_phone`): the booking asks for it
besides the name and the e-mail address, asks again in the visitor's language when the
reply is not a phone number, and the number is on the event in the team's calendar, in
the invitation, on the lead and in the console (real Radicale, loopback SMTP)."""

from __future__ import annotations

import asyncio
import re
import uuid

import pytest

from frontdesk.conversation.service import ChatService
from frontdesk.conversation.texts import say as text_of
from tests.integration.appointments.chat_support import (
    WISHES,
    content,
    events,
    leads,
    say,
    state,
)
from tests.support.loopback import SmtpReceiver
from tests.support.radicale_server import RadicaleServer

pytestmark = pytest.mark.integration


@pytest.fixture
def calendar_extra() -> str:
    return "  ask_phone: true\n"


async def pick_first_slot(chat: ChatService, session: str, language: str) -> str:
    offer = await say(chat, session, WISHES[language])
    picked = await say(chat, session, offer.suggested_answers[0])
    return picked.answer


async def test_the_phone_is_asked_for_checked_and_kept_with_the_appointment(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    session = str(uuid.uuid4())
    asked = await pick_first_slot(chat, session, "de")
    assert "Ihren Namen, Ihre E-Mail-Adresse und Ihre Telefonnummer" in asked
    only_two = await say(chat, session, "Ada Lovelace, ada@example.org")
    assert only_two.answer == "Danke. Und Ihre Telefonnummer mit Vorwahl, bitte?"
    assert await events(radicale) == []  # nothing booked without the number
    wrong = await say(chat, session, "12345")
    assert wrong.answer.startswith("Das sieht nicht nach einer Telefonnummer aus.")
    booked = await say(chat, session, "+49 30 1234567")
    assert "Ihr Termin ist gebucht: Inspektion am Sa 12.12. 10:00" in booked.answer

    (stored,) = await events(radicale)
    assert (stored.name, stored.email, stored.phone) == (
        "Ada Lovelace",
        "ada@example.org",
        "+49 30 1234567",
    )
    assert (await state(chat, session))["booking"]["appointment"]["phone"] == "+49 30 1234567"
    (mail,) = smtp.mails
    body = next(p for p in mail.message.walk() if p.get_content_type() == "text/plain")
    assert "Ihre Telefonnummer: +49 30 1234567" in content(body)
    (lead,) = leads(chat, session)
    assert lead.details["appointment"]["phone"] == "+49 30 1234567"

    from fastapi.testclient import TestClient

    from frontdesk.api.app import create_app
    from frontdesk.console.passwords import hash_password
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    with transaction(chat.runtime.sessions) as db:
        operators = OperatorRepository(db)
        operators.grant(
            operators.ensure("team@radwerk.example", hash_password("pw-radwerk-1")),
            "werkstatt",
            "agent",
        )

    def console() -> str:
        with TestClient(create_app(chat.runtime.settings, chat.runtime)) as client:
            login = client.get("/console/login").text
            csrf = re.search(r'name="csrf_token" value="([^"]+)"', login)
            assert csrf
            client.post(
                "/console/login",
                data={
                    "email": "team@radwerk.example",
                    "password": "pw-radwerk-1",
                    "csrf_token": csrf.group(1),
                },
            )
            return client.get("/console/sites/werkstatt/appointments?start=2026-12-09").text

    page = await asyncio.to_thread(console)
    assert "Ada Lovelace" in page and "+49 30 1234567" in page


async def test_name_email_and_phone_in_one_reply_book_at_once(
    chat: ChatService, radicale: RadicaleServer
) -> None:
    session = str(uuid.uuid4())
    asked = await pick_first_slot(chat, session, "en")
    assert "your name, your e-mail address and your phone number" in asked
    booked = await say(chat, session, "Ada Lovelace, ada@example.org, +44 20 7946 0958")
    assert "Your appointment is booked" in booked.answer, booked.answer
    (stored,) = await events(radicale)
    assert (stored.name, stored.phone) == ("Ada Lovelace", "+44 20 7946 0958")


@pytest.mark.parametrize("language", list(WISHES))
async def test_not_a_phone_number_is_asked_again_in_the_visitors_language(
    chat: ChatService, radicale: RadicaleServer, language: str
) -> None:
    session = str(uuid.uuid4())
    await pick_first_slot(chat, session, language)
    again = await say(chat, session, "Ada Lovelace, ada@example.org, 12345")
    assert again.answer == text_of("appointment.phone_invalid", language)
    assert await events(radicale) == []


@pytest.mark.parametrize("tone", ["informal"])
async def test_an_informal_site_asks_for_the_phone_informally(chat: ChatService) -> None:
    session = str(uuid.uuid4())
    asked = await pick_first_slot(chat, session, "de")
    assert "deinen Namen, deine E-Mail-Adresse und deine Telefonnummer" in asked
    again = await say(chat, session, "Ada Lovelace, ada@example.org, 0171-12")
    assert again.answer.startswith("Das sieht nicht nach einer Telefonnummer aus. Gib sie")
