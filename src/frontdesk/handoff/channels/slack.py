"""Slack channel: an incoming-webhook POST of a Block Kit message.

Confirmed by HTTP 200. The header says what happened in plain words, in the team's
language, after the lead level's emoji (🔥 hot, 🌡️ warm, ❄️ cold), or 📬 when the team is
offline, and the site's name ("📬 Acme: wants to talk to a person — outside opening
hours — wrote 3 messages"). Under it, the plain-words summary (`handoff.wording`). The
"View CRM Record" button appears only when the CRM record exists and the site has a
`handoff.crm_record_url`; incoming webhooks cannot edit a sent message, so a Slack
delivery that runs before the CRM one goes out without the button.

What the visitor typed is the visitor's word, and it never becomes Slack markup:
- it is never in the header or the notification `text` (a visitor's
  company there, "Lead — Globex @here *URGENT*", would read as our own alert);
- it travels only in `plain_text` objects, which Slack shows as written — no bold, no
  mention, no link, no emoji code — under a label saying it is unverified (Slack's
  `mrkdwn` has no escape for `*`, `_` or `~`, so escaping could not make it inert);
- every `mrkdwn` text is ours, and the values in it are escaped the way Slack asks
  (`&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;`).
Block Kit's limits are enforced by cutting with an ellipsis: 3000 characters per section
text or context element, 2000 per section field, 150 for the header, at most 50 blocks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import httpx

from frontdesk.guard.visitor_text import ELLIPSIS, shorten
from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError
from frontdesk.handoff.packets import UNVERIFIED
from frontdesk.handoff.rendering import (
    appointment_line,
    team_language,
    team_summary_lines,
    without_contact,
)
from frontdesk.handoff.wording import contact_words, headline

HEADER_CHARS = 150
SECTION_CHARS = 3000  # a section's text, a context element, the notification text
FIELD_CHARS = 2000  # one of a section's fields
MAX_BLOCKS = 50
_PARTIAL_ENTITY = re.compile(r"&[a-z]{0,3}$")

LEVEL_EMOJI: Mapping[str, str] = {"hot": "🔥", "warm": "🌡️", "cold": "❄️"}
OUTSIDE_HOURS_EMOJI = "📬"


def escape(value: object) -> str:
    """Slack's escaping of visitor text in `mrkdwn`: `&`, `<`, `>` as HTML entities."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fit(text: str, limit: int) -> str:
    """An (already escaped) text cut to `limit` characters with an ellipsis, never in the
    middle of an entity."""
    if len(text) <= limit:
        return text
    return _PARTIAL_ENTITY.sub("", text[: limit - 1]) + ELLIPSIS


def mrkdwn(label: str, value: object, limit: int = SECTION_CHARS) -> dict[str, str]:
    """A `mrkdwn` text object: our own bold label, then the escaped visitor value."""
    return {"type": "mrkdwn", "text": fit(f"{label}{escape(value)}", limit)}


def visitor_text(label: str, value: object, limit: int = FIELD_CHARS) -> dict[str, Any]:
    """A `plain_text` object: what the visitor typed, shown as written (never parsed)."""
    return {"type": "plain_text", "text": shorten(f"{label}{value}", limit), "emoji": False}


def slack_header(data: Mapping[str, Any], business_hours: bool) -> str:
    """The header "[EMOJI] <site>: <what happened in plain words>" in the team's language,
    with the site's name, never the visitor's company: the header is read as what the
    message is, so it holds only our own words. The emoji is the lead level's in opening
    hours (🔥 hot, 🌡️ warm, ❄️ cold), 📬 outside them."""
    site = str(data.get("site_name") or data.get("site_id") or "")
    where = f"{site}: " if site else ""
    level = str(data["packet"]["lead_level"])
    emoji = LEVEL_EMOJI.get(level, "") if business_hours else OUTSIDE_HOURS_EMOJI
    return f"{emoji} {where}{headline(data, team_language(data))}".strip()


SESSION_MARKER = "Frontdesk session"


def live_chat_url(public_url: str, site_id: str, session_id: str) -> str | None:
    """The console's live chat page of the conversation (`takeover.web.pages.live_url`),
    absolute: only when the server knows its public URL (never from a Host header)."""
    if not public_url or not session_id:
        return None
    return f"{public_url.rstrip('/')}/console/sites/{site_id}/conversations/{session_id}/live"


def slack_message(
    data: Mapping[str, Any],
    crm_record_url: str | None = None,
    *,
    bridged: bool = False,
    live_url: str | None = None,
) -> dict[str, Any]:
    """The Block Kit payload, filled from the handoff's context packet.
    `bridged` (the site's Slack bridge is on): a last context line names the session, so
    a reply in the message's thread can reach the visitor (`frontdesk.takeover.slack`).
    `live_url`: a "Join the live chat" button to the console's live chat page."""
    packet = data["packet"]
    visitor = packet["visitor"]
    qualification = packet["qualification"]
    business_hours = bool(data.get("business_hours", True))
    header = slack_header(data, business_hours)
    blocks: list[dict[str, Any]] = [
        {
            "type": "header",
            "text": {"type": "plain_text", "text": fit(header, HEADER_CHARS)},
        },
        {
            "type": "section",
            "fields": [
                mrkdwn("*Trigger:*\n", packet["handoff_reason"], FIELD_CHARS),
                mrkdwn("*Turns:*\n", packet["conversation"]["turn_count"], FIELD_CHARS),
            ],
        },
        {
            "type": "section",
            "text": mrkdwn(f"*What the visitor told us* ({UNVERIFIED}, not checked)", ""),
            "fields": [
                visitor_text("Email: ", visitor.get("email") or "Not captured"),
                visitor_text("Name: ", visitor.get("name") or "Unknown"),
                visitor_text("Company: ", visitor.get("company") or "Unknown"),
                visitor_text("Role: ", visitor.get("role") or "Unknown"),
            ],
        },
        {
            "type": "section",
            "text": visitor_text(
                f"Summary (quotes the visitor, {UNVERIFIED}):\n",
                packet["conversation_summary"],
                SECTION_CHARS,
            ),
        },
        {
            "type": "section",
            "text": mrkdwn(
                "*Qualification:* ",
                f"Problem: {qualification['problem_fit']} | "
                f"Authority: {qualification['authority_fit']} | "
                f"Company: {qualification['company_fit']} | "
                f"Timing: {qualification['timing_fit']}",
            ),
        },
    ]
    if appointment_line(data):
        blocks.append(
            {"type": "section", "text": visitor_text("Appointment: ", appointment_line(data))}
        )
    if without_contact(data):
        # Right under the header: the team sees first that they cannot write back.
        warning = contact_words(data, team_language(data))
        blocks.insert(1, {"type": "section", "text": mrkdwn(":warning: ", warning)})
    elif (data.get("visitor_contact") or {}).get("phone"):
        phone = data["visitor_contact"]["phone"]
        blocks.insert(3, {"type": "section", "text": visitor_text("Phone: ", phone)})
    # First under the header: the handoff in plain words, in the team's language (it
    # quotes the visitor, so it is plain text).
    blocks.insert(
        1,
        {
            "type": "section",
            "text": visitor_text("", "\n".join(team_summary_lines(data)), SECTION_CHARS),
        },
    )
    if not business_hours and data.get("follow_up_due"):
        blocks.append(
            {
                "type": "context",
                "elements": [
                    mrkdwn(
                        "",
                        f"Follow up next business morning (due {data['follow_up_due']}).",
                    )
                ],
            }
        )
    buttons = [
        {"type": "button", "text": {"type": "plain_text", "text": text}, "url": url}
        for text, url in (("Join the live chat", live_url), ("View CRM Record", crm_record_url))
        if url
    ]
    if buttons:
        blocks.append({"type": "actions", "elements": buttons})
    if bridged and data.get("session_id"):
        marker = f"{SESSION_MARKER} {data['session_id']} · reply in this thread to chat"
        blocks = [*blocks[: MAX_BLOCKS - 1], {"type": "context", "elements": [mrkdwn("", marker)]}]
    # The notification text is parsed as mrkdwn: escaped like the blocks.
    return {"text": fit(escape(header), SECTION_CHARS), "blocks": blocks[:MAX_BLOCKS]}


class SlackChannel:
    def __init__(self, client: httpx.AsyncClient, public_url: str = "") -> None:
        self.client = client
        self.public_url = public_url

    async def deliver(self, delivery: Delivery) -> Delivered:
        url = delivery.site.handoff.slack_webhook_url
        if url is None:
            raise DeliveryError("slack_webhook_url is not configured", permanent=True)
        lead_id = delivery.extras.get("crm_record_id")
        template = delivery.site.handoff.crm_record_url
        record_url = template.replace("{lead_id}", str(lead_id)) if lead_id and template else None
        try:
            response = await self.client.post(
                str(url),
                json=slack_message(
                    delivery.payload,
                    record_url,
                    bridged=bool(delivery.site.handoff.slack_signing_secret),
                    live_url=live_chat_url(
                        self.public_url,
                        delivery.site.id,
                        str(delivery.payload.get("session_id") or ""),
                    ),
                ),
            )
        except httpx.HTTPError as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        if response.status_code != 200:
            raise DeliveryError(f"HTTP {response.status_code}")
        return Delivered(reference="HTTP 200")
