"""A handoff in plain words, in the team's language: the site's `team_language`, the
summary every channel starts with, and which question and answer it quotes."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import ValidationError

from frontdesk.handoff.packets import HandoffRequest, handoff_packet
from frontdesk.handoff.rendering import email_body, email_subject
from frontdesk.handoff.wording import messages_words, team_texts
from frontdesk.sites.schema import SUPPORTED_LANGUAGES, SiteConfig

pytestmark = pytest.mark.unit

TRIGGERED = "2026-12-05T20:00:00+00:00"  # Saturday 21:00 in Berlin


def site(**fields: Any) -> SiteConfig:
    return SiteConfig.model_validate(
        {
            "id": "laden",
            "name": "Radladen",
            "widget": {"public_key": "pk_laden_00000000001"},
            "business_hours": {"timezone": "Europe/Berlin"},
            **fields,
        }
    )


CONVERSATION = [
    HumanMessage(content="Reparieren Sie auch\nE-Bikes?"),
    AIMessage(content="Ja, wir reparieren E-Bikes aller Marken [1]."),
    HumanMessage(content="Ich möchte mit einem Menschen sprechen"),
    AIMessage(content="Gern. Wie kann unser Team Sie erreichen?"),
]


def packet(config: SiteConfig, reason: str = "explicit_request", **values: Any) -> dict[str, Any]:
    return handoff_packet(
        HandoffRequest(
            site=config,
            session_id="sess-de",
            turn=2,
            handoff={
                "reason": reason,
                "lead_level": "cold",
                "business_hours": False,
                "triggered_at": TRIGGERED,
            },
            values={
                "messages": CONVERSATION,
                "answer": "Gern. Wie kann unser Team Sie erreichen?",
                "visitor_profile": {"email": "jana@example.org"},
                **values,
            },
            message="Ich möchte mit einem Menschen sprechen",
            language="de",
        )
    )


def test_team_language_defaults_to_the_default_language_and_is_one_of_eight() -> None:
    assert site().language_of_team == "en"
    german_site = site(default_language="de", languages=["de", "en"])
    assert german_site.language_of_team == "de"
    # A German team may run an English-only site.
    assert site(team_language="de").language_of_team == "de"
    with pytest.raises(ValidationError, match="team_language"):
        site(team_language="pl")


def test_a_german_team_reads_plain_german_with_the_contact_first() -> None:
    data = packet(site(team_language="de"))
    lines = data["summary"].split("\n")
    assert lines[0] == "Kontakt: jana@example.org"
    assert lines[1] == (
        "möchte mit einer Person sprechen — außerhalb der Öffnungszeiten — "
        "2 Nachrichten geschrieben"
    )
    # Asked for a person: the question is the one before, with the answer it got (one line).
    assert lines[2] == "Frage: „Reparieren Sie auch E-Bikes?“"
    assert (
        lines[3] == "Letzte Antwort des Assistenten: „Ja, wir reparieren E-Bikes aller Marken [1].“"
    )
    assert lines[4] == "Letzte Nachricht: „Ich möchte mit einem Menschen sprechen“"
    assert "Sprache des Besuchers: Deutsch" in lines
    assert "Antworten bis: 07.12.2026, 09:00 CET" in lines  # Monday's opening, Berlin time
    assert data["team_language"] == "de"
    assert "explicit_request" not in data["summary"] and "HANDOFF" not in data["summary"]
    subject = email_subject(data)
    assert subject.startswith("Übergabe aus dem Chat — Radladen: möchte mit einer Person")
    assert "jana@" not in subject  # the subject holds nothing the visitor typed
    body = email_body(data, {})
    assert body.startswith("Kontakt: jana@example.org\nmöchte mit einer Person sprechen")
    # The machine-readable packet is still there for whoever needs it.
    assert '"handoff_reason": "explicit_request"' in body


def test_other_reasons_quote_this_turn_and_its_reply() -> None:
    data = packet(site(), reason="high_stakes")
    assert data["question"] == "Ich möchte mit einem Menschen sprechen"
    assert data["last_answer"] == "Gern. Wie kann unser Team Sie erreichen?"
    assert data["summary"].split("\n")[1].startswith("asked something a person should answer")


def test_without_a_contact_the_summary_says_why_first() -> None:
    data = packet(site(team_language="fr"), visitor_profile={})
    assert data["summary"].split("\n")[0] == (
        "Pas de contact : on n'a pas demandé au visiteur comment le joindre."
    )


def test_every_team_text_is_written_in_every_language() -> None:
    catalog = team_texts().formal
    missing = [
        f"{key}.{language}"
        for key, variants in catalog.items()
        if not key.startswith("messages.")
        for language in SUPPORTED_LANGUAGES
        if language not in variants
    ]
    assert missing == []
    assert messages_words(1, "ru") == "написал 1 сообщение"
    assert messages_words(3, "ru") == "написал 3 сообщения"
    assert messages_words(5, "ru") == "написал 5 сообщений"
    assert messages_words(1, "de") == "1 Nachricht geschrieben"
