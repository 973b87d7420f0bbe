"""A visitor whose appointment stands cancels or moves it in the chat, in each of the eight
widget languages, whatever label the intent model gives the request; a question about
cancelling something else leaves the appointment alone (real Radicale calendar)."""

from __future__ import annotations

import uuid

import pytest

from frontdesk.conversation.service import ChatService
from tests.integration.appointments.chat_support import book, content, events, say, state
from tests.support.loopback import SmtpReceiver
from tests.support.radicale_server import RadicaleServer

pytestmark = pytest.mark.integration

CANCEL = {
    "en": "Please cancel my appointment",
    "de": "Bitte stornieren Sie meinen Termin",
    "fr": "Veuillez annuler mon rendez-vous",
    "es": "Por favor, cancele mi cita",
    "it": "Per favore, annulli il mio appuntamento",
    "pt": "Por favor, cancele a minha marcação",
    "nl": "Annuleer alstublieft mijn afspraak",
    "ru": "Пожалуйста, отмените мою запись",
}
CANCELLED = {
    "en": "is cancelled",
    "de": "ist abgesagt",
    "fr": "est annulé",
    "es": "está cancelada",
    "it": "è annullato",
    "pt": "está cancelada",
    "nl": "is geannuleerd",
    "ru": "отменена",
}
MOVE = {
    "en": "Can we move my appointment?",
    "de": "Können wir den Termin verschieben?",
    "fr": "Pouvons-nous déplacer mon rendez-vous ?",
    "es": "¿Podemos cambiar mi cita?",
    "it": "Possiamo spostare il mio appuntamento?",
    "pt": "Podemos mudar a minha marcação?",
    "nl": "Kunnen we mijn afspraak verzetten?",
    "ru": "Можно перенести мою запись?",
}


@pytest.mark.parametrize("language", list(CANCEL))
async def test_please_cancel_my_appointment_in_every_language(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver, language: str
) -> None:
    session = str(uuid.uuid4())
    await book(chat, session, language)
    assert len(await events(radicale)) == 1
    result = await say(chat, session, CANCEL[language])
    assert result.route == "BOOKING", result.answer
    assert CANCELLED[language] in result.answer, result.answer
    assert await events(radicale) == []
    parts = [p for p in smtp.mails[-1].message.walk() if p.get_content_type() == "text/calendar"]
    assert "METHOD:CANCEL" in content(parts[0])


@pytest.mark.parametrize("language", list(MOVE))
async def test_can_we_move_my_appointment_offers_times_and_a_click_moves_it(
    chat: ChatService, radicale: RadicaleServer, language: str
) -> None:
    session = str(uuid.uuid4())
    await book(chat, session, language)
    (before,) = await events(radicale)
    offer = await say(chat, session, MOVE[language])
    assert offer.route == "BOOKING" and offer.suggested_answers, offer.answer
    assert len(await events(radicale)) == 1  # asking to move cancels nothing
    await say(chat, session, offer.suggested_answers[0])
    (after,) = await events(radicale)
    assert after.uid == before.uid and after.start != before.start
    appointment = (await state(chat, session))["booking"]["appointment"]
    assert appointment["label"] == offer.suggested_answers[0]


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "How do I cancel my subscription?"),
        ("en", "Cancel my order please"),
        ("de", "Ich möchte mein Abo stornieren"),
        ("fr", "Comment annuler mon abonnement ?"),
        ("ru", "Как отменить подписку?"),
    ],
)
async def test_cancelling_something_else_leaves_the_appointment(
    chat: ChatService, radicale: RadicaleServer, language: str, question: str
) -> None:
    session = str(uuid.uuid4())
    await book(chat, session, language)
    result = await say(chat, session, question)
    assert len(await events(radicale)) == 1, result.answer
    assert (await state(chat, session))["booking"]["appointment"]["phase"] == "booked"


async def test_asking_how_to_cancel_shows_the_appointment_and_keeps_it(
    chat: ChatService, radicale: RadicaleServer
) -> None:
    session = str(uuid.uuid4())
    await book(chat, session, "en")
    result = await say(chat, session, "How do I cancel my appointment?")
    assert result.answer.startswith("Your appointment: Inspection on Sat 12/12 10:00")
    assert "to cancel it, just tell me" in result.answer
    assert len(await events(radicale)) == 1


async def test_a_decline_without_a_word_of_cancelling_keeps_the_appointment(
    chat: ChatService, radicale: RadicaleServer
) -> None:
    # "Forget it" is STOP_BOOKING to the intent model; it names neither the appointment
    # nor a cancellation, so the visitor is shown the appointment and how to cancel it.
    session = str(uuid.uuid4())
    await book(chat, session, "en")
    result = await say(chat, session, "Forget it")
    assert "to cancel it, just tell me" in result.answer, result.answer
    assert len(await events(radicale)) == 1
