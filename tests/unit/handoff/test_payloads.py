"""What each channel sends: Block Kit, CRM payload, signed webhook body, fallback email."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from frontdesk.handoff.channels import Delivery
from frontdesk.handoff.channels.email import fallback_message
from frontdesk.handoff.channels.slack import live_chat_url, slack_header, slack_message
from frontdesk.handoff.channels.webhook import sign, verify_webhook, webhook_body
from frontdesk.handoff.packets import HandoffRequest, follow_up_due, handoff_packet, visitor_fields
from frontdesk.handoff.rendering import crm_lead_payload, email_body, email_subject
from frontdesk.leads.hours import BusinessHours
from frontdesk.sites.schema import SiteConfig

pytestmark = pytest.mark.unit

MADRID = BusinessHours(timezone="Europe/Madrid", start_hour=9, end_hour=18)
TRIGGERED = "2025-03-12T14:05:00+00:00"  # a Wednesday, 15:05 in Madrid


def site(**handoff: Any) -> SiteConfig:
    return SiteConfig.model_validate(
        {
            "id": "acme",
            "name": "Acme",
            "widget": {"public_key": "pk_acme_000000000001"},
            "business_hours": {"timezone": "Europe/Madrid"},
            "handoff": handoff,
        }
    )


def data(
    level: str = "hot", business_hours: bool = True, company: str | None = "Northwind"
) -> dict[str, Any]:
    return handoff_packet(
        HandoffRequest(
            site=site(),
            session_id="sess-1",
            turn=4,
            handoff={
                "reason": "hot_lead",
                "lead_level": level,
                "business_hours": business_hours,
                "triggered_at": TRIGGERED,
            },
            values={
                "qualification": {
                    "problem_fit": "confirmed",
                    "authority_fit": "confirmed",
                    "company_fit": "partially_confirmed",
                    "signals_observed": [
                        {
                            "dimension": "problem_fit",
                            "level": "confirmed",
                            "signal_type": "explicit",
                            "evidence": "automating invoice matching",
                            "turn_index": 1,
                        }
                    ],
                },
                "visitor_profile": {
                    "email": "ana@northwind.io",
                    "company_name": company,
                    "role": "Head of Ops",
                },
                "progress": {"stage3_proposals_issued": 1},
                "form_collection": {"collected_values": {"company_size": "200"}},
            },
            message="Can we talk?",
            language="en",
        )
    )


def test_packet_is_the_seed_context_packet_plus_delivery_facts() -> None:
    got = data()
    packet = got["packet"]
    assert packet["session_id"] == "sess-1"
    assert packet["handoff_reason"] == "hot_lead" and packet["lead_level"] == "hot"
    assert packet["visitor"] == {
        "email": "ana@northwind.io",
        "name": None,
        "company": "Northwind",
        "role": "Head of Ops",
    }
    assert packet["conversation"]["turn_count"] == 4
    assert packet["conversation"]["stage3_proposals_issued"] == 1
    assert "automating invoice matching" in packet["conversation_summary"]
    assert got["form"] == {"company_size": "200"}
    assert got["follow_up_due"] == "2025-03-12T16:05:00+00:00"  # 2 h in business hours
    json.dumps(got)  # JSON all the way down: it is stored as-is


def test_outside_hours_due_date_is_the_next_business_morning() -> None:
    friday_evening = datetime(2025, 3, 14, 19, 30, tzinfo=UTC)  # 20:30 in Madrid
    due = follow_up_due(friday_evening, business_hours=False, hours=MADRID)
    assert due == datetime(2025, 3, 17, 8, 0, tzinfo=UTC)  # Monday 09:00 Madrid


def test_unknown_profile_values_are_not_reported() -> None:
    assert visitor_fields({"company_name": "unknown", "company": "", "email": "a@b.io"}) == {
        "email": "a@b.io",
        "name": None,
        "company": None,
        "role": None,
    }


@pytest.mark.parametrize(("level", "emoji"), [("hot", "🔥"), ("warm", "🌡️"), ("cold", "❄️")])
def test_slack_header_carries_the_level_emoji_in_hours(level: str, emoji: str) -> None:
    header = slack_header(data(level), business_hours=True)
    # The site and what happened in plain words, never the visitor's company.
    assert header == f"{emoji} Acme: is very interested in buying — wrote 4 messages"


def test_slack_header_outside_hours() -> None:
    assert slack_header(data(business_hours=False), business_hours=False) == (
        "📬 Acme: is very interested in buying — outside opening hours — wrote 4 messages"
    )


def test_block_kit_layout_follows_the_seed() -> None:
    message = slack_message(data(), "https://crm.example/leads/42")
    blocks = message["blocks"]
    assert [b["type"] for b in blocks] == [
        "header",
        "section",
        "section",
        "section",
        "section",
        "section",
        "actions",
    ]
    # First the handoff in plain words, in the team's language: the contact first.
    plain = blocks[1]["text"]
    assert plain["type"] == "plain_text"
    assert plain["text"].split("\n")[:2] == [
        "Contact: ana@northwind.io",
        "is very interested in buying — wrote 4 messages",
    ]
    assert [f["text"] for f in blocks[2]["fields"]] == ["*Trigger:*\nhot_lead", "*Turns:*\n4"]
    visitor = blocks[3]
    assert visitor["text"]["text"] == "*What the visitor told us* (unverified, not checked)"
    assert [(f["type"], f["text"]) for f in visitor["fields"]] == [
        ("plain_text", "Email: ana@northwind.io"),
        ("plain_text", "Name: Unknown"),
        ("plain_text", "Company: Northwind"),
        ("plain_text", "Role: Head of Ops"),
    ]
    assert blocks[4]["text"]["type"] == "plain_text"
    assert blocks[4]["text"]["text"].startswith("Summary (quotes the visitor, unverified):\n")
    assert blocks[5]["text"]["text"] == (
        "*Qualification:* Problem: confirmed | Authority: confirmed | "
        "Company: partially_confirmed | Timing: not_detected"
    )
    button = blocks[6]["elements"][0]
    assert button["text"]["text"] == "View CRM Record"
    assert button["url"] == "https://crm.example/leads/42"
    assert message["text"] == blocks[0]["text"]["text"]  # notification fallback text


def test_block_kit_links_the_live_chat_page_when_the_public_url_is_known() -> None:
    from frontdesk.takeover.web.pages import live_url

    url = live_chat_url("https://chat.example.com/", "demo", "sess-1")
    assert url == "https://chat.example.com" + live_url("demo", "sess-1")
    assert live_chat_url("", "demo", "sess-1") is None  # never guessed from a Host header
    message = slack_message(data(), "https://crm.example/leads/42", live_url=url)
    buttons = message["blocks"][-1]["elements"]
    assert [(b["text"]["text"], b["url"]) for b in buttons] == [
        ("Join the live chat", url),
        ("View CRM Record", "https://crm.example/leads/42"),
    ]


def test_block_kit_without_crm_record_has_no_button() -> None:
    blocks = slack_message(data(business_hours=False))["blocks"]
    assert "actions" not in [b["type"] for b in blocks]
    assert blocks[-1]["type"] == "context"  # "follow up next business morning (due …)"


def test_crm_payload_is_the_seed_schema() -> None:
    payload = crm_lead_payload(data())
    assert set(payload) == {"contact", "lead", "qualification", "notes", "unverified"}
    assert "contact" in payload["unverified"] and "notes.last_message" in payload["unverified"]
    assert payload["lead"]["source"] == "website-chat"
    assert payload["lead"]["handoff_reason"] == "hot_lead"
    assert payload["contact"]["email"] == "ana@northwind.io"
    assert payload["notes"]["turn_count"] == 4
    assert payload["qualification"]["problem_fit"] == "confirmed"


def delivery(payload: dict[str, Any], channel: str = "webhook:0") -> Delivery:
    return Delivery(
        outbox_id=1,
        channel=channel,
        idempotency_key="acme:sess-1:4:" + channel,
        site=site(webhooks=[{"url": "http://127.0.0.1:9/x", "secret": "s3cret"}]),
        payload=payload,
        attempt=1,
        created_at=TRIGGERED,
    )


def test_webhook_body_is_stable_and_signed() -> None:
    event, body = webhook_body(delivery(data()))
    again = webhook_body(delivery(data()))[1]
    assert event == "handoff.created" and body == again
    document = json.loads(body)
    assert document["id"] == "acme:sess-1:4:webhook:0"
    assert document["data"]["packet"]["lead_level"] == "hot"
    now = datetime(2025, 3, 12, 14, 5, tzinfo=UTC)
    stamp = int(now.timestamp())
    headers = {
        "webhook-id": document["id"],
        "webhook-timestamp": str(stamp),
        "webhook-signature": sign("s3cret", document["id"], stamp, body),
    }
    assert headers["webhook-signature"].startswith("v1,")
    assert verify_webhook("s3cret", body, headers, now=now)
    assert not verify_webhook("other", body, headers, now=now)
    assert not verify_webhook("s3cret", body + b" ", headers, now=now)
    assert not verify_webhook("s3cret", body, {**headers, "webhook-id": "other"}, now=now)


def test_lead_capture_webhook_names_its_event() -> None:
    event, body = webhook_body(delivery({"event": "lead.captured", "capture_context": "x"}))
    assert event == "lead.captured"
    assert json.loads(body)["data"] == {"capture_context": "x"}


def test_fallback_email_subject_body_and_stable_id() -> None:
    payload = {**data(), "failed_channels": {"slack": "HTTP 500"}}
    assert email_subject(payload) == (
        "Chat handoff — Acme: is very interested in buying — wrote 4 messages (session sess-1)"
    )
    body = email_body(payload, payload["failed_channels"])
    assert "- slack: HTTP 500" in body and '"conversation_summary"' in body
    message = fallback_message(delivery(payload, "email"), "bot@acme.io", "sales@acme.io")
    assert message["To"] == "sales@acme.io"
    assert message["X-Frontdesk-Idempotency-Key"] == "acme:sess-1:4:email"
