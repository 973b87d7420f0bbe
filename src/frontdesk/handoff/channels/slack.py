"""Slack channel: an incoming-webhook POST of a Block Kit message (seed 004 "Slack Delivery").

Confirmed by HTTP 200. The header carries the lead level's emoji (🔥 hot, 🌡️ warm,
❄️ cold), or 📬 "Lead captured (outside hours)" when the team is offline. The "View CRM
Record" button appears only when the CRM record exists and the site has a
`handoff.crm_record_url`; incoming webhooks cannot edit a sent message, so a Slack
delivery that runs before the CRM one goes out without the button.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError

LEVEL_EMOJI: Mapping[str, str] = {"hot": "🔥", "warm": "🌡️", "cold": "❄️"}
OUTSIDE_HOURS_EMOJI = "📬"


def slack_header(packet: Mapping[str, Any], business_hours: bool) -> str:
    company = packet["visitor"].get("company") or "Unknown"
    if not business_hours:
        return f"{OUTSIDE_HOURS_EMOJI} Lead captured (outside hours) — {company}"
    level = str(packet["lead_level"])
    # The seed's literal template: "[EMOJI] [lead_level] Lead — [visitor_company or Unknown]".
    return f"{LEVEL_EMOJI.get(level, '')} {level} Lead — {company}".strip()


def slack_message(data: Mapping[str, Any], crm_record_url: str | None = None) -> dict[str, Any]:
    """The Block Kit payload of seed 004, filled from the handoff's context packet."""
    packet = data["packet"]
    visitor = packet["visitor"]
    qualification = packet["qualification"]
    business_hours = bool(data.get("business_hours", True))
    header = slack_header(packet, business_hours)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": header[:150]}},
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": f"*Email:*\n{visitor.get('email') or 'Not captured'}"},
                {"type": "mrkdwn", "text": f"*Role:*\n{visitor.get('role') or 'Unknown'}"},
                {"type": "mrkdwn", "text": f"*Trigger:*\n{packet['handoff_reason']}"},
                {"type": "mrkdwn", "text": f"*Turns:*\n{packet['conversation']['turn_count']}"},
            ],
        },
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": f"*Summary:*\n{packet['conversation_summary']}"},
        },
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": "*Qualification:* "
                f"Problem: {qualification['problem_fit']} | "
                f"Authority: {qualification['authority_fit']} | "
                f"Company: {qualification['company_fit']} | "
                f"Timing: {qualification['timing_fit']}",
            },
        },
    ]
    if not business_hours and data.get("follow_up_due"):
        blocks.append(
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": f"Follow up next business morning (due {data['follow_up_due']}).",
                    }
                ],
            }
        )
    if crm_record_url:
        blocks.append(
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "View CRM Record"},
                        "url": crm_record_url,
                    }
                ],
            }
        )
    return {"text": header, "blocks": blocks}


class SlackChannel:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def deliver(self, delivery: Delivery) -> Delivered:
        url = delivery.site.handoff.slack_webhook_url
        if url is None:
            raise DeliveryError("slack_webhook_url is not configured", permanent=True)
        lead_id = delivery.extras.get("crm_record_id")
        template = delivery.site.handoff.crm_record_url
        record_url = template.replace("{lead_id}", str(lead_id)) if lead_id and template else None
        try:
            response = await self.client.post(
                str(url), json=slack_message(delivery.payload, record_url)
            )
        except httpx.HTTPError as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        if response.status_code != 200:
            raise DeliveryError(f"HTTP {response.status_code}")
        return Delivered(reference="HTTP 200")
