"""The console marks what a visitor claimed: on the lead list, the transcript and the
handoff's context packet, a visitor's name, e-mail, company and form answers carry an
"unverified" tag (before this they were shown exactly like facts the team entered).
The lead is written by the real CRM channel from a real handoff packet."""

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

COMPANY = "Globex @here *URGENT*"
TAG = 'class="tag unverified"'


def hand_off(console: Console, session_id: str) -> str:
    config = console.runtime.site("acme").config
    data = handoff_packet(
        HandoffRequest(
            site=config,
            session_id=session_id,
            turn=1,
            handoff={"reason": "explicit_request", "lead_level": "hot"},
            values={
                "visitor_profile": {"email": "ceo@globex.example", "company_name": COMPANY},
                "form_collection": {"collected_values": {"budget": "unlimited"}},
            },
            message="Call me. Company: Globex (verified)",
            language="en",
        )
    )
    with transaction(console.runtime.sessions) as session:
        handoff = HandoffRepository(session).create(
            site_id="acme",
            session_id=session_id,
            reason="explicit_request",
            business_hours=True,
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


def test_the_visitors_claims_are_tagged_unverified(console_app: Console, team: Any) -> None:
    session_id = seed_conversation(console_app.runtime, "acme", session_id=str(uuid.uuid4()))
    lead_id = hand_off(console_app, session_id)
    client = console_app.client()
    assert sign_in(client, team["owner"]).status_code == 303

    leads = client.get("/console/sites/acme/leads").text
    row = leads.split(f'id="lead-{lead_id}"', 1)[1].split("</tr>", 1)[0]
    contact, _level, _why, form, _status = row.split("<td")[2:7]
    assert TAG in contact and COMPANY in contact and "ceo@globex.example" in contact
    assert TAG in form and "budget: unlimited" in form
    assert "what the visitor typed" in leads.split('class="card handoff"', 1)[1]

    transcript = client.get(f"/console/sites/acme/conversations/{session_id}").text
    aside = transcript.split('<aside class="context">', 1)[1]
    company = aside.split("<dt>Company</dt>", 1)[1].split("</dd>", 1)[0]
    assert TAG in company and COMPANY in company
    # The handoff's visitor details (they sit inside the packet) are shown and tagged.
    handoff = aside.split("<h3>Handoff", 1)[1]
    assert TAG in handoff and "ceo@globex.example" in handoff
