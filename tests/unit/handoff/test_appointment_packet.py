"""A conversation's appointment reaches the team: in the context packet, the fallback
e-mail and the Slack message (booked, or only asked for when the calendar failed)."""

from __future__ import annotations

import json

import pytest
from test_payloads import TRIGGERED, site

from frontdesk.handoff.channels.slack import slack_message
from frontdesk.handoff.packets import HandoffRequest, handoff_packet
from frontdesk.handoff.rendering import email_body

pytestmark = pytest.mark.unit


def packet(appointment: dict[str, str]) -> dict[str, object]:
    return handoff_packet(
        HandoffRequest(
            site=site(),
            session_id="sess-1",
            turn=3,
            handoff={"reason": "explicit_request", "lead_level": "warm", "triggered_at": TRIGGERED},
            values={"booking": {"status": "booked", "appointment": appointment}},
            message="Can someone call me before?",
            language="de",
        )
    )


def test_a_booked_appointment_is_in_the_packet_the_email_and_slack() -> None:
    data = packet(
        {
            "phase": "booked",
            "kind": "inspection",
            "label": "Sa 12.12. 10:00",
            "start": "2026-12-12T09:00:00+00:00",
            "uid": "u-1@frontdesk",
            "name": "Ada Lovelace",
            "email": "ada@example.org",
            "offered": "ignored",
        }
    )
    assert data["appointment"] == {
        "status": "booked",
        "kind": "inspection",
        "label": "Sa 12.12. 10:00",
        "start": "2026-12-12T09:00:00+00:00",
        "uid": "u-1@frontdesk",
        "name": "Ada Lovelace",
        "email": "ada@example.org",
    }
    assert "appointment" in data["unverified"]  # type: ignore[operator]
    assert "Appointment (unverified name and e-mail): booked, Sa 12.12. 10:00 (inspection)" in (
        email_body(data, {})
    )
    assert "Sa 12.12. 10:00" in json.dumps(slack_message(data))


def test_an_appointment_only_asked_for_is_named_as_requested() -> None:
    data = packet({"phase": "failed", "kind": "inspection", "wish": "Samstag vormittag"})
    assert data["appointment"] == {
        "status": "requested",
        "kind": "inspection",
        "requested": "Samstag vormittag",
    }
    assert "requested, Samstag vormittag (inspection)" in email_body(data, {})
    assert "appointment" not in packet({"phase": "offered", "kind": "inspection"})


def test_the_phone_a_site_asked_for_reaches_the_team() -> None:
    data = packet(
        {
            "phase": "booked",
            "kind": "inspection",
            "label": "Sa 12.12. 10:00",
            "uid": "u-1@frontdesk",
            "name": "Ada Lovelace",
            "email": "ada@example.org",
            "phone": "+49 30 1234567",
        }
    )
    assert data["appointment"]["phone"] == "+49 30 1234567"  # type: ignore[index]
    assert (
        "Appointment (unverified name, e-mail and phone): booked, Sa 12.12. 10:00 (inspection), "
        "phone +49 30 1234567"
    ) in email_body(data, {})
    assert "+49 30 1234567" in json.dumps(slack_message(data))
