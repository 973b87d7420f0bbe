"""The console shows a handoff as a card people can read — the contact, what happened in
plain words, the visitor's question and the assistant's last answer, the visitor's
language, when to reply — with the raw context packet one click away (a closed
`<details>`), on the leads page and on the live chat page. The packet is a real one
(`handoff_packet` from a conversation's state)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from console_support import Console, page_csrf, seed_conversation, sign_in
from langchain_core.messages import AIMessage, HumanMessage

from frontdesk.handoff.packets import HandoffRequest, handoff_packet
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import HandoffRepository

pytestmark = pytest.mark.integration

QUESTION = "Do you repair e-bikes for < 50 € & <b>fast</b>?"
ANSWER = "Yes, we repair e-bikes of every brand [1]."


def hand_off(console: Console, session_id: str) -> str:
    config = console.runtime.site("acme").config
    data = handoff_packet(
        HandoffRequest(
            site=config,
            session_id=session_id,
            turn=2,
            handoff={
                "reason": "explicit_request",
                "lead_level": "cold",
                "business_hours": False,
                "triggered_at": "2026-12-05T20:00:00+00:00",
            },
            values={
                "messages": [
                    HumanMessage(content=QUESTION),
                    AIMessage(content=ANSWER),
                    HumanMessage(content="I want to talk to a person"),
                    AIMessage(content="Of course. How can our team reach you?"),
                ],
                "visitor_profile": {"email": "jana@example.org"},
            },
            message="I want to talk to a person",
            language="de",
        )
    )
    with transaction(console.runtime.sessions) as session:
        handoff = HandoffRepository(session).create(
            site_id="acme",
            session_id=session_id,
            reason="explicit_request",
            business_hours=False,
            packet=data,
            status="complete",
        )
        return handoff.id


def card_of(page: str) -> str:
    return page.split('<section class="handoff-card"', 1)[1].split("</section>", 1)[0]


def test_the_handoff_is_a_readable_card_with_the_json_one_click_away(
    console_app: Console, team: Any
) -> None:
    session_id = seed_conversation(console_app.runtime, "acme", session_id=str(uuid.uuid4()))
    handoff_id = hand_off(console_app, session_id)
    client = console_app.client()
    assert sign_in(client, team["owner"]).status_code == 303

    leads = client.get("/console/sites/acme/leads").text
    on_leads = card_of(leads.split(f'id="handoff-{handoff_id}"', 1)[1])
    live = client.get(f"/console/sites/acme/conversations/{session_id}/live").text
    for card in (on_leads, card_of(live)):
        head, packet = card.split('<details class="packet-json">', 1)
        assert "wants to talk to a person — outside opening hours — wrote 2 messages" in head
        assert "Contact: jana@example.org" in head
        # The visitor's words are quoted and escaped, never markup.
        assert "<q>Do you repair e-bikes for &lt; 50 € &amp; fast ?</q>" in head
        assert f"<q>{ANSWER}</q>" in head
        assert "<dd>German</dd>" in head
        # When to reply: Monday's opening on the site's clock (New York), with its zone.
        assert "<dt>Reply by</dt><dd>Dec 7, 2026, 9:00\u202fAM EST</dd>" in head
        assert "explicit_request" not in head  # no internal labels on the card
        # The raw packet is one click away: a closed details element.
        assert packet.startswith("<summary>Context packet (JSON)</summary>")
        assert "&#34;handoff_reason&#34;: &#34;explicit_request&#34;" in packet


def test_another_sites_viewer_never_sees_the_card(console_app: Console, team: Any) -> None:
    session_id = seed_conversation(console_app.runtime, "acme", session_id=str(uuid.uuid4()))
    hand_off(console_app, session_id)
    client = console_app.client()
    assert sign_in(client, "viewer@demo.test").status_code == 303  # demo's viewer
    for url in (
        "/console/sites/acme/leads",
        f"/console/sites/acme/conversations/{session_id}/live",
        f"/console/sites/demo/conversations/{session_id}/live",
    ):
        page = client.get(url)
        assert page.status_code in (403, 404), url
        assert "jana@example.org" not in page.text and "handoff-card" not in page.text


def test_the_card_speaks_the_operators_console_language(console_app: Console, team: Any) -> None:
    """The card is worded in the language the console speaks to this operator (the
    browser's, or their own choice), like the rest of the page: the same handoff reads
    German to one operator and French to another."""
    session_id = seed_conversation(console_app.runtime, "acme", session_id=str(uuid.uuid4()))
    handoff_id = hand_off(console_app, session_id)
    german = console_app.client()
    german.headers["Accept-Language"] = "de-DE,de;q=0.9"
    assert sign_in(german, team["owner"]).status_code == 303
    leads = german.get("/console/sites/acme/leads").text
    live = german.get(f"/console/sites/acme/conversations/{session_id}/live").text
    for card in (card_of(leads.split(f'id="handoff-{handoff_id}"', 1)[1]), card_of(live)):
        head, packet = card.split('<details class="packet-json">', 1)
        assert "möchte mit einer Person sprechen — außerhalb der Öffnungszeiten" in head
        assert "<dt>Kontakt</dt>" in head and "Kontakt: jana@example.org" in head
        assert "<dt>Frage</dt>" in head and "<dd>Deutsch</dd>" in head
        assert "<dt>Antworten bis</dt><dd>07.12.2026, 09:00 EST</dd>" in head
        assert packet.startswith("<summary>Kontextpaket (JSON)</summary>")
        assert "wants to talk" not in head and "Reply by" not in head

    french = console_app.client()
    french.headers["Accept-Language"] = "de-DE,de;q=0.9"  # the operator's choice wins
    assert sign_in(french, team["owner"]).status_code == 303
    token = page_csrf(french, "/console/sites/acme/leads")
    chosen = french.post(
        "/console/language",
        data={"language": "fr", "next": "/console/sites/acme/leads", "csrf_token": token},
        follow_redirects=False,
    )
    assert chosen.status_code == 303
    card = card_of(french.get(f"/console/sites/acme/conversations/{session_id}/live").text)
    assert "souhaite parler à une personne — en dehors des heures d&#39;ouverture" in card
    assert "<dd>allemand</dd>" in card and "<dt>Répondre avant</dt>" in card
