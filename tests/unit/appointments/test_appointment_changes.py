"""What a visitor with a booked appointment asks about it, in the eight widget languages
(pure): cancel, move, how to, or nothing about the appointment at all."""

from __future__ import annotations

import pytest

from frontdesk.appointments.changes import appointment_change

pytestmark = pytest.mark.unit

# The site's own names of its appointment type (site file), as in the chat tests.
KINDS = ["Inspection", "Inspektion", "Révision", "Revisión", "Revisione", "Revisão", "Техосмотр"]

CANCEL = {
    "en": [
        "Please cancel my appointment",
        "I need to cancel my appointment",
        "cancel it",
        "I cannot come, please cancel my appointment",
    ],
    "de": ["Bitte stornieren Sie meinen Termin", "Bitte sagen Sie meinen Termin ab"],
    "fr": ["Veuillez annuler mon rendez-vous", "Annulez la révision, s'il vous plaît"],
    "es": ["Por favor, cancele mi cita", "Anule la reserva"],
    "it": ["Per favore, annulli il mio appuntamento", "Vorrei disdire l'appuntamento"],
    "pt": ["Por favor, cancele a minha marcação", "Cancele a marcação, como combinado"],
    "nl": ["Annuleer alstublieft mijn afspraak", "Zeg mijn afspraak af"],
    "ru": ["Пожалуйста, отмените мою запись", "Отмените, пожалуйста"],
}
MOVE = {
    "en": ["Can we move my appointment?", "Please reschedule the Saturday one"],
    "de": ["Können wir den Termin verschieben?", "Bitte die Inspektion verschieben"],
    "fr": ["Pouvons-nous déplacer mon rendez-vous ?", "Je voudrais reporter le rendez-vous"],
    "es": ["¿Podemos cambiar mi cita?", "Quisiera aplazar la cita"],
    "it": ["Possiamo spostare il mio appuntamento?", "Vorrei rimandare la revisione"],
    "pt": ["Podemos mudar a minha marcação?", "Quero remarcar a consulta"],
    "nl": ["Kunnen we mijn afspraak verzetten?", "Kunt u de afspraak verplaatsen?"],
    "ru": ["Можно перенести мою запись?", "Перенесите, пожалуйста, техосмотр"],
}
HOW = {
    "en": "How do I cancel my appointment?",
    "de": "Wie kann ich den Termin absagen?",
    "fr": "Comment annuler mon rendez-vous ?",
    "es": "¿Cómo cancelo mi cita?",
    "it": "Come posso spostare l'appuntamento?",
    "pt": "Como posso cancelar a marcação?",
    "nl": "Hoe kan ik mijn afspraak annuleren?",
    "ru": "Как отменить запись?",
}
# Cancelling something else: never the appointment.
ELSEWHERE = {
    "en": ["How do I cancel my subscription?", "Cancel my order please"],
    "de": ["Ich möchte mein Abo stornieren", "Bitte löschen Sie mein Konto"],
    "fr": ["Comment annuler mon abonnement ?", "Annulez ma commande"],
    "es": ["¿Cómo cancelo mi suscripción?", "Cancele mi pedido, por favor"],
    "it": ["Come annullo il mio abbonamento?", "Annulli il mio ordine"],
    "pt": ["Como cancelo a minha assinatura?", "Cancele a minha encomenda"],
    "nl": ["Hoe annuleer ik mijn abonnement?", "Annuleer mijn bestelling"],
    "ru": ["Как отменить подписку?", "Отмените заказ, пожалуйста"],
}


@pytest.mark.parametrize("language", list(CANCEL))
def test_a_request_to_cancel_in_every_language(language: str) -> None:
    for text in CANCEL[language]:
        assert appointment_change(text, KINDS) == "cancel", text


@pytest.mark.parametrize("language", list(MOVE))
def test_a_request_to_move_in_every_language(language: str) -> None:
    for text in MOVE[language]:
        assert appointment_change(text, KINDS) == "move", text


@pytest.mark.parametrize("language", list(HOW))
def test_asking_how_is_answered_not_carried_out(language: str) -> None:
    assert appointment_change(HOW[language], KINDS) == "ask"


@pytest.mark.parametrize("language", list(ELSEWHERE))
def test_cancelling_something_else_is_not_about_the_appointment(language: str) -> None:
    for text in ELSEWHERE[language]:
        assert appointment_change(text, KINDS) is None, text


def test_messages_without_a_change() -> None:
    for text in (
        "Thanks, see you!",
        "What should I bring?",
        "I changed my mind about the colour",
        "Sagen Sie mir, ab wann der Termin frei ist?",
        "I would like to report a problem with the appointment booking page",
    ):
        assert appointment_change(text, KINDS) is None, text
