"""The chat on a site with a real Radicale calendar: the site file, the visitor's words in
the eight languages, and helpers to read the conversation, the calendar and the leads."""

from __future__ import annotations

import asyncio
from datetime import datetime
from email.message import EmailMessage, Message
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from frontdesk.appointments.calendar import TeamCalendar
from frontdesk.appointments.invite import Appointment
from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.sites.calendar import CalendarConfig
from frontdesk.store.models import Lead
from tests.support.radicale_server import PASSWORD, USER, RadicaleServer

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 9, 10, 0, tzinfo=BERLIN)  # a Wednesday

SITE = """\
id: werkstatt
name: Radwerk
default_language: de
languages: [en, ru, fr, de, es, it, pt, nl]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_werkstatt_0001
business_hours:
  timezone: Europe/Berlin
  weekly:
    tue-fri: ["09:30-13:00", "14:00-18:30"]
    sat: ["10:00-14:00"]
  holidays: DE-SN
handoff:
  fallback_email: team@radwerk.example
calendar:
  url: {url}
  user: {user}
  password_env: WERKSTATT_CALDAV_PASSWORD
  appointment_types:
    - id: inspection
      name:
        en: Inspection
        de: Inspektion
        fr: Révision
        es: Revisión
        it: Revisione
        pt: Revisão
        nl: Onderhoudsbeurt
        ru: Техосмотр
      duration_minutes: 60
      step_minutes: 60
"""

PAGE = """# Radwerk

Radwerk repairs and services bicycles in Leipzig: inspections, brakes, gears and wheels.
"""

WISHES = {
    "en": "I would like an appointment for an inspection on Saturday",
    "de": "Ich möchte einen Termin für eine Inspektion am Samstag",
    "fr": "Je voudrais un rendez-vous pour une révision samedi",
    "es": "Quisiera una cita para una revisión el sábado",
    "it": "Vorrei un appuntamento per una revisione sabato",
    "pt": "Gostaria de marcar uma revisão no sábado",
    "nl": "Ik wil graag een afspraak voor een onderhoudsbeurt op zaterdag",
    "ru": "Я хочу записаться на техосмотр в субботу",
}


async def say(chat: ChatService, session: str, message: str) -> TurnResult:
    return await chat.ask(chat.runtime.site("werkstatt"), session, message, VisitorContext())


async def state(chat: ChatService, session: str) -> dict[str, Any]:
    graph = await chat.graph()
    config = {"configurable": {"thread_id": thread_id("werkstatt", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


async def events(radicale: RadicaleServer) -> list[Appointment]:
    """The bookings in the calendar, read by a CalDAV client of its own."""
    config = CalendarConfig.model_validate(
        {
            "url": radicale.calendar_url,
            "user": USER,
            "password_env": "WERKSTATT_CALDAV_PASSWORD",
            "appointment_types": [{"id": "x", "name": {"en": "X"}, "duration_minutes": 60}],
        }
    )
    calendar = TeamCalendar.from_config(config, BERLIN, {"WERKSTATT_CALDAV_PASSWORD": PASSWORD})
    return await asyncio.to_thread(calendar.appointments, NOW, datetime(2027, 3, 1, tzinfo=BERLIN))


def content(part: Message) -> str:
    """A received mail part's decoded text (the receiver parses with the modern policy)."""
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


def leads(chat: ChatService, session: str) -> list[Lead]:
    with chat.runtime.sessions() as db:
        return list(db.scalars(select(Lead).where(Lead.session_id == session)))


async def book(chat: ChatService, session: str, language: str, contact: str = "") -> TurnResult:
    """Book the first slot offered for the wish in `language` (name and e-mail given)."""
    offer = await say(chat, session, WISHES[language])
    await say(chat, session, offer.suggested_answers[0])
    booked = await say(chat, session, contact or "Ada Lovelace, ada@example.org")
    assert (await state(chat, session))["booking"]["appointment"]["phase"] == "booked", (
        booked.answer
    )
    return booked
