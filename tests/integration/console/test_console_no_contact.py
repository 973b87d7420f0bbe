"""A lead without a way to reach the visitor is marked as such in the console — on the
lead list, the inbox row, the handoff card and the conversation view — with why: the
visitor declined, or was asked and has not answered. The leads are written by the real CRM
channel from real handoff packets."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from console_support import Console, seed_conversation, sign_in

from frontdesk.handoff.channels import Delivery
from frontdesk.handoff.channels.crm import CrmChannel
from frontdesk.handoff.packets import HandoffRequest, handoff_packet
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import HandoffRepository

pytestmark = pytest.mark.integration

DECLINED = "no contact: visitor declined"


def hand_off(console: Console, session_id: str, contact: str, profile: dict[str, str]) -> str:
    """A handoff whose visitor answered the contact question with `contact`; its lead."""
    config = console.runtime.site("acme").config
    data = handoff_packet(
        HandoffRequest(
            site=config,
            session_id=session_id,
            turn=1,
            handoff={"reason": "explicit_request", "lead_level": "warm", "contact": contact},
            values={"visitor_profile": profile},
            message="I want to talk to a person",
            language="en",
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
        handoff_id = handoff.id
    delivery = Delivery(
        outbox_id=1,
        channel="crm",
        idempotency_key=f"acme:{session_id}:1:crm",
        site=config,
        payload=data,
        attempt=1,
        handoff_id=handoff_id,
    )
    return CrmChannel(console.runtime.sessions).create_lead(delivery)


def test_a_lead_without_contact_is_marked_everywhere(console_app: Console, team: Any) -> None:
    declined = seed_conversation(console_app.runtime, "acme", session_id=str(uuid.uuid4()))
    reachable = seed_conversation(console_app.runtime, "acme", session_id=str(uuid.uuid4()))
    declined_lead = hand_off(console_app, declined, "declined", {})
    reachable_lead = hand_off(console_app, reachable, "asked", {"email": "x@y.example"})
    client = console_app.client()
    assert sign_in(client, team["owner"]).status_code == 303

    leads = client.get("/console/sites/acme/leads").text
    row = leads.split(f'id="lead-{declined_lead}"', 1)[1].split("</tr>", 1)[0]
    assert DECLINED in row
    row = leads.split(f'id="lead-{reachable_lead}"', 1)[1].split("</tr>", 1)[0]
    assert "no contact" not in row and "x@y.example" in row
    assert "No contact, visitor declined" in leads  # the handoff card says why

    inbox = client.get("/console/sites/acme/inbox").text
    row = inbox.split(f'data-session="{declined}"', 1)[1].split("</tr>", 1)[0]
    assert DECLINED in row
    row = inbox.split(f'data-session="{reachable}"', 1)[1].split("</tr>", 1)[0]
    assert "no contact" not in row

    transcript = client.get(f"/console/sites/acme/conversations/{declined}").text
    aside = transcript.split('<aside class="context">', 1)[1]
    assert DECLINED in aside.split("<dt>Lead</dt>", 1)[1].split("</dd>", 1)[0]
    assert "No contact, visitor declined" in aside.split("<h3>Handoff", 1)[1]
    transcript = client.get(f"/console/sites/acme/conversations/{reachable}").text
    assert "no contact" not in transcript.split('<aside class="context">', 1)[1]
