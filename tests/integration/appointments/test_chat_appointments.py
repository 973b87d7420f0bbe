"""Appointments booked in the chat against a real Radicale server: a booking wish in each
of the eight languages gets free slots as buttons; a click, a name and an e-mail book it
(invitation on a loopback SMTP receiver); cancel and move in the chat; two visitors on
one slot; a calendar that is down (the visitor is told, the wish stays as a lead)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest

from frontdesk.conversation.service import ChatService
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


@pytest.mark.parametrize("language", list(WISHES))
async def test_a_booking_wish_in_every_language_gets_free_slots(
    chat: ChatService, language: str
) -> None:
    result = await say(chat, str(uuid.uuid4()), WISHES[language])
    assert result.route == "BOOKING", result.answer
    assert 3 <= len(result.suggested_answers) <= 6
    for label in result.suggested_answers:
        assert label in result.answer
    # Saturday 12 Dec, 10:00-14:00: the wish's day, in the visitor's language (CLDR).
    assert any("12" in label for label in result.suggested_answers)


async def test_book_by_button_get_the_invitation_and_cancel_in_the_chat(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    session = str(uuid.uuid4())
    offer = await say(chat, session, WISHES["de"])
    assert offer.suggested_answers[:2] == ["Sa 12.12. 10:00", "Sa 12.12. 11:00"]
    assert "Für Inspektion sind diese Termine frei" in offer.answer
    asked = await say(chat, session, "Sa 12.12. 10:00")
    assert "Namen und Ihre E-Mail-Adresse" in asked.answer
    booked = await say(chat, session, "Ada Lovelace, ada@example.org")
    assert "Ihr Termin ist gebucht: Inspektion am Sa 12.12. 10:00" in booked.answer
    assert "ada@example.org" in booked.answer
    (stored,) = await events(radicale)
    appointment = (await state(chat, session))["booking"]["appointment"]
    assert appointment["phase"] == "booked" and appointment["name"] == "Ada Lovelace"
    assert stored.uid == appointment["uid"] and stored.session_id == session
    assert (stored.name, stored.email) == ("Ada Lovelace", "ada@example.org")
    assert stored.start == datetime(2026, 12, 12, 9, 0, tzinfo=UTC)

    (mail,) = smtp.mails
    assert mail.recipients == ("ada@example.org",)
    assert mail.subject == "Inspektion bei Radwerk: Sa 12.12. 10:00"
    parts = {part.get_content_type(): part for part in mail.message.walk()}
    invitation = content(parts["text/calendar"])
    assert "METHOD:REQUEST" in invitation and appointment["uid"] in invitation
    body = content(parts["text/plain"])
    assert f"http://127.0.0.1:8000/v1/appointments/werkstatt/{appointment['uid']}?token=" in body

    (lead,) = leads(chat, session)
    assert lead.email == "ada@example.org" and lead.capture_context == "appointment"
    assert lead.details["appointment"]["label"] == "Sa 12.12. 10:00"

    cancelled = await say(chat, session, "Ich möchte den Termin absagen")
    assert "Ihr Termin am Sa 12.12. 10:00 ist abgesagt" in cancelled.answer
    assert await events(radicale) == []
    cancel = smtp.mails[-1]
    assert cancel.subject == "Abgesagt: Inspektion bei Radwerk, Sa 12.12. 10:00"
    (ical,) = [p for p in cancel.message.walk() if p.get_content_type() == "text/calendar"]
    assert "METHOD:CANCEL" in content(ical)


@pytest.mark.parametrize("tone", ["informal"])
async def test_an_informal_site_books_writes_and_shows_the_link_page_informally(
    chat: ChatService, smtp: SmtpReceiver
) -> None:
    from fastapi.testclient import TestClient

    from frontdesk.api.app import create_app

    session = str(uuid.uuid4())
    offer = await say(chat, session, WISHES["de"])
    assert "Bitte wähle einen aus" in offer.answer
    asked = await say(chat, session, offer.suggested_answers[0])
    assert "deinen Namen und deine E-Mail-Adresse" in asked.answer
    booked = await say(chat, session, "Ada Lovelace, ada@example.org")
    assert "Dein Termin ist gebucht" in booked.answer
    assert "kannst du den Termin absagen" in booked.answer
    (mail,) = smtp.mails
    body = next(p for p in mail.message.walk() if p.get_content_type() == "text/plain")
    text = content(body)
    assert text.startswith("Hallo Ada Lovelace") and "dein Termin" in text
    path = next(w for w in text.split() if "/v1/appointments/" in w)

    def open_link() -> str:
        with TestClient(create_app(chat.runtime.settings, chat.runtime)) as client:
            return client.get(path.removeprefix("http://127.0.0.1:8000")).text

    page = await asyncio.to_thread(open_link)
    assert "Dein Termin ist gebucht" in page and "Oder wähle einen anderen Termin" in page


async def test_move_in_the_chat(chat: ChatService, radicale: RadicaleServer) -> None:
    session = str(uuid.uuid4())
    await say(chat, session, WISHES["en"])
    await say(chat, session, "Sat 12/12 10:00 AM")
    await say(chat, session, "Ada Lovelace ada@example.org")
    uid = (await state(chat, session))["booking"]["appointment"]["uid"]
    offer = await say(chat, session, "Could we do Tuesday afternoon instead")
    assert offer.suggested_answers and all("12/15" in s for s in offer.suggested_answers), (
        offer.answer
    )
    moved = await say(chat, session, offer.suggested_answers[0])
    assert f"Your appointment is moved to {offer.suggested_answers[0]}" in moved.answer
    appointment = (await state(chat, session))["booking"]["appointment"]
    assert appointment["uid"] == uid and appointment["label"] == offer.suggested_answers[0]
    assert len(await events(radicale)) == 1


async def test_two_visitors_on_one_slot_one_gets_it_the_other_the_next_ones(
    chat: ChatService, radicale: RadicaleServer
) -> None:
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    for session in (first, second):
        await say(chat, session, WISHES["de"])
        await say(chat, session, "Sa 12.12. 10:00")
    results = await asyncio.gather(
        say(chat, first, "Ada Lovelace, ada@example.org"),
        say(chat, second, "Bob Builder, bob@example.org"),
    )
    winners = [r for r in results if "Ihr Termin ist gebucht" in r.answer]
    losers = [r for r in results if "anderweitig vergeben" in r.answer]
    assert len(winners) == 1 and len(losers) == 1, [r.answer for r in results]
    assert losers[0].suggested_answers and "Sa 12.12. 10:00" not in losers[0].suggested_answers
    assert len(await events(radicale)) == 1


async def test_a_calendar_that_is_down_keeps_the_wish_as_a_lead(
    chat: ChatService, radicale: RadicaleServer
) -> None:
    session = str(uuid.uuid4())
    radicale.stop()
    told = await say(chat, session, WISHES["de"])
    assert "Kalender ist gerade nicht erreichbar" in told.answer
    assert WISHES["de"] in told.answer
    (lead,) = leads(chat, session)
    assert lead.details["appointment"]["requested"] == WISHES["de"]
    confirmed = await say(chat, session, "ada@example.org")
    assert "ada@example.org" in confirmed.answer
    assert {lead.email for lead in leads(chat, session)} >= {"ada@example.org"}
    assert datetime.now(UTC)  # the booking flow took the e-mail: nothing was lost


async def test_the_invitation_link_cancels(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    from fastapi.testclient import TestClient

    from frontdesk.api.app import create_app

    session = str(uuid.uuid4())
    await say(chat, session, WISHES["fr"])
    offer = await say(chat, session, "samedi matin")
    await say(chat, session, offer.suggested_answers[0])
    await say(chat, session, "Marie Curie, marie@example.org")
    (mail,) = smtp.mails
    body = next(p for p in mail.message.walk() if p.get_content_type() == "text/plain")
    link = next(w for w in content(body).split() if "/v1/appointments/" in w)
    path = link.removeprefix("http://127.0.0.1:8000")
    uid = path.split("/")[-1].split("?")[0]
    token = path.split("token=")[1]

    def use_link() -> None:
        with TestClient(create_app(chat.runtime.settings, chat.runtime)) as client:
            page = client.get(path)
            assert page.status_code == 200
            assert "Annuler le rendez-vous" in page.text and "Révision" in page.text
            wrong = client.get(path.replace(token, "0" * 32))
            assert wrong.status_code == 404
            done = client.post(path.split("?")[0], data={"token": token, "action": "cancel"})
            assert done.status_code == 200 and "est annulé" in done.text
            again = client.get(path)
            assert "gibt es nicht mehr" in again.text  # the site's language: nothing is left

    await asyncio.to_thread(use_link)
    assert await events(radicale) == []
    assert smtp.mails[-1].subject.startswith("Annulé : Révision chez Radwerk")
    assert uid


async def test_the_console_lists_bookings_per_day_with_the_conversation(
    chat: ChatService, radicale: RadicaleServer
) -> None:
    import re

    from fastapi.testclient import TestClient

    from frontdesk.api.app import create_app
    from frontdesk.console.passwords import hash_password
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    session = str(uuid.uuid4())
    await say(chat, session, WISHES["de"])
    await say(chat, session, "Sa 12.12. 11:00")
    await say(chat, session, "Ada Lovelace, ada@example.org")
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
            page = client.get("/console/sites/werkstatt/appointments?start=2026-12-09")
            assert page.status_code == 200, page.text[:300]
            return page.text

    text = await asyncio.to_thread(console)
    assert "Saturday 2026-12-12" in text and "11:00–12:00" in text
    assert "Ada Lovelace" in text and "Inspektion" in text
    assert f"/console/sites/werkstatt/conversations/{session}" in text
