"""Explicit human requests in eight languages: requests fire, product questions and
refusals do not."""

from __future__ import annotations

import pytest

from frontdesk.engines.local.human_request import is_explicit_human_request
from frontdesk.engines.local.signals import detect_signals

pytestmark = pytest.mark.unit

HUMAN_REQUESTS = [
    ("en", "Can I speak to someone?"),
    ("en", "I want to talk to a human"),
    ("en", "I'd like to speak with a real person, please."),
    ("en", "Could we chat with your sales team?"),
    ("en", "talk to a human please"),
    ("en", "Just let me talk to an agent"),
    ("en", "I'd rather just book a call"),
    ("en", "Connect me with someone from sales"),
    ("en", "Is there someone I can talk to?"),
    ("en", "Can someone call me back? My number is in the form."),
    ("en", "human"),
    ("en", "Operator!"),
    ("en", "How do I reach a live agent?"),
    ("en", "No, I want to talk to a human."),
    ("en", "Why can't I just talk to a person?"),
    ("en", "I would like to talk to your CEO"),
    ("ru", "Позовите оператора"),
    ("ru", "Хочу поговорить с живым человеком"),
    ("ru", "Можно поговорить с менеджером?"),
    ("ru", "Соедините меня с оператором, пожалуйста"),
    ("ru", "живой человек тут есть?"),
    ("fr", "Je voudrais parler à un humain"),
    ("fr", "Puis-je parler à quelqu'un de votre équipe ?"),
    ("fr", "Mettez-moi en relation avec un conseiller"),
    ("fr", "parler à un humain svp"),
    ("de", "Ich möchte mit einem Menschen sprechen"),
    ("de", "Kann ich bitte mit einem Mitarbeiter sprechen?"),
    ("de", "Verbinden Sie mich bitte mit dem Vertrieb"),
    ("de", "mit einem echten Menschen reden bitte"),
    ("es", "Quiero hablar con una persona"),
    ("es", "¿Puedo hablar con un agente?"),
    ("es", "hablar con un humano, por favor"),
    ("es", "Prefiero agendar una llamada"),
    ("it", "Vorrei parlare con una persona"),
    ("it", "Posso parlare con un operatore?"),
    ("it", "parlare con un umano"),
    ("pt", "Quero falar com um humano"),
    ("pt", "Posso falar com um atendente?"),
    ("pt", "Gostaria de falar com alguém da equipe"),
    ("nl", "Ik wil met een mens spreken"),
    ("nl", "Kan ik met een medewerker praten?"),
    ("nl", "met een mens spreken graag"),
    ("de", "Nein, ich möchte mit einem Menschen sprechen"),
]

NOT_HUMAN_REQUESTS = [
    ("en", "Do you have human support?"),
    ("en", "Does your platform let customers talk to a human agent?"),
    ("en", "Can your chatbot hand off to a live agent?"),
    ("en", "Is there human review before a workflow runs?"),
    ("en", "Can I configure the bot so visitors speak with an operator?"),
    ("en", "How does the human-in-the-loop approval step work?"),
    ("en", "What does an agent see in the dashboard?"),
    ("en", "Do you offer 24/7 support by real people?"),
    ("en", "How do I connect Salesforce to the platform?"),
    ("ru", "Есть ли у вас поддержка живых операторов?"),
    ("ru", "Ваш бот умеет переводить диалог на оператора?"),
    ("fr", "Votre chatbot permet-il de parler à un humain ?"),
    ("fr", "Proposez-vous un support humain ?"),
    ("de", "Unterstützt euer Produkt menschlichen Support?"),
    ("de", "Kann euer Chatbot Kunden mit einem Menschen sprechen lassen?"),
    ("es", "¿Tienen soporte humano?"),
    ("es", "¿Su plataforma permite hablar con un agente humano?"),
    ("it", "Il vostro prodotto offre supporto umano?"),
    ("pt", "Vocês têm suporte humano?"),
    ("pt", "O seu chatbot permite falar com um atendente?"),
    ("nl", "Biedt jullie product menselijke ondersteuning?"),
    ("nl", "Kan jullie chatbot klanten met een medewerker laten praten?"),
    # declined, not requested
    ("en", "no, I don't want to talk to a human"),
    ("en", "Please don't connect me with anyone"),
    ("en", "I'd rather not book a call"),
    ("ru", "Я не хочу говорить с оператором"),
    ("de", "Ich möchte nicht mit einem Menschen sprechen"),
    ("it", "Non voglio parlare con un operatore"),
    ("ru", "Я хочу понять, как работает оператор в вашем API"),
]


@pytest.mark.parametrize(("language", "text"), HUMAN_REQUESTS)
def test_explicit_human_request(language: str, text: str) -> None:
    assert is_explicit_human_request(text), (language, text)
    assert detect_signals(text).explicit_human_request


@pytest.mark.parametrize(("language", "text"), NOT_HUMAN_REQUESTS)
def test_questions_about_the_product_are_not_human_requests(language: str, text: str) -> None:
    assert not is_explicit_human_request(text), (language, text)


def test_a_request_in_one_sentence_survives_a_product_question_in_another() -> None:
    assert is_explicit_human_request("Does your bot support Slack? Anyway, can I talk to a human?")
