"""What the channels make of a handoff's JSON (pure): the plain-words summary in the team's
language, the contact and appointment lines, the CRM's platform-agnostic lead payload, and
the fallback e-mail's subject and plain-text body. What the visitor typed is labelled
`UNVERIFIED` in each (see `packets`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from frontdesk.guard.visitor_text import clean_field
from frontdesk.handoff.packets import DEGRADED, UNVERIFIED
from frontdesk.handoff.wording import subject_words, summary_lines, team_text

CRM_UNVERIFIED: tuple[str, ...] = (
    "contact",
    "notes.summary",
    "notes.signals_observed",
    "notes.last_message",
    "notes.form",
)


def contact_line(data: Mapping[str, Any]) -> str:
    """ "No contact, visitor declined: …" for e-mails and Slack ("" when not known)."""
    contact = data.get("visitor_contact") or {}
    return str(contact.get("note") or "")


def without_contact(data: Mapping[str, Any]) -> bool:
    """The handoff carries no way to reach the visitor."""
    contact = data.get("visitor_contact") or {}
    return bool(contact) and contact.get("status") != "provided"


def appointment_line(data: Mapping[str, Any]) -> str:
    """ "Appointment: booked, Sa 12.12. 10:00 (inspection)" for e-mails and Slack, with
    the phone number when the site asked for one."""
    appointment = data.get("appointment") or {}
    if not appointment:
        return ""
    when = appointment.get("label") or appointment.get("requested") or ""
    line = f"{appointment.get('status', '')}, {when} ({appointment.get('kind', '')})"
    return f"{line}, phone {appointment['phone']}" if appointment.get("phone") else line


def team_language(data: Mapping[str, Any]) -> str:
    """The language a handoff is written in (English for one stored before it had one)."""
    return str(data.get("team_language") or "en")


def team_summary_lines(data: Mapping[str, Any]) -> list[str]:
    """The plain-words block as stored with the handoff (rebuilt for an older one)."""
    stored = data.get("summary")
    if isinstance(stored, str) and stored:
        return stored.split("\n")
    return summary_lines(data, team_language(data))


def crm_lead_payload(data: Mapping[str, Any]) -> dict[str, Any]:
    """The platform-agnostic CRM payload (contact / lead / qualification / notes)."""
    packet = data["packet"]
    qualification = packet["qualification"]
    conversation = packet["conversation"]
    reach = data.get("visitor_contact") or {}
    return {
        "contact": dict(packet["visitor"])
        | ({"phone": reach["phone"]} if reach.get("phone") else {}),
        "lead": {
            "contact_status": reach.get("status", "provided"),
            "source": "website-chat",
            "lead_level": packet["lead_level"],
            "handoff_reason": packet["handoff_reason"],
            "triggered_at": packet["triggered_at"],
            "session_id": packet["session_id"],
            "follow_up_due": data.get("follow_up_due"),
            "business_hours": data.get("business_hours", True),
        },
        "qualification": dict(qualification),
        "notes": {
            "summary": packet["conversation_summary"],
            "signals_observed": list(conversation["signals_observed"]),
            "turn_count": conversation["turn_count"],
            "last_message": data.get("last_message", ""),
            "form": dict(data.get("form") or {}),
            **({"contact": reach["note"]} if reach.get("note") else {}),
        },
        UNVERIFIED: list(CRM_UNVERIFIED),
    }


def email_subject(data: Mapping[str, Any]) -> str:
    """The subject in the team's language: the site, what happened in plain words and the
    session ("Chat handoff — Acme: wants to talk to a person — wrote 2 messages (session
    …)"), never the visitor's e-mail: the subject says what the message is, so nothing
    the visitor typed goes there. A degraded packet says so in the subject."""
    if DEGRADED in data:
        site = data.get("site_name") or data.get("site_id")
        where = f"{site} — " if site else ""
        subject = (
            f"[HANDOFF FALLBACK] [DEGRADED PACKET] lead — {where}session {data.get('session_id')}"
        )
    else:
        subject = subject_words(data, team_language(data))
    # One line whatever the packet holds: a line break would end the header.
    return clean_field(subject, 300)


def quoted(text: object) -> list[str]:
    """`text` as e-mail quoting: every line starts with `> `, so a visitor's line can
    never start a line of its own that looks like one of the packet's fields."""
    return [f"> {line}".rstrip() for line in str(text or "").split("\n")]


def email_body(data: Mapping[str, Any], failed: Mapping[str, str], url: str | None = None) -> str:
    """The handoff as plain text: first the plain-words summary in the team's language
    (its quotes are one line each) and `url`, the conversation in the console; then the
    details: our own fields, one per line; what the visitor typed, labelled unverified,
    with the multi-line parts (the summary quotes the visitor, the last message) quoted;
    what failed and why; the context packet as JSON."""
    if DEGRADED in data:
        return degraded_email_body(data, failed)
    packet = data["packet"]
    visitor = packet["visitor"]
    qualification = packet["qualification"]
    language = team_language(data)
    lines = [
        *team_summary_lines(data),
        *([team_text("open_conversation", language, url=url)] if url else []),
        "",
        f"{team_text('details', language)}:",
        f"Site: {data.get('site_name', '')} ({data.get('site_id', '')})",
        f"Session: {packet['session_id']}",
        f"Lead level: {packet['lead_level']}",
        f"Trigger: {packet['handoff_reason']}",
        *([f"Contact: {contact_line(data)}"] if contact_line(data) else []),
        f"Triggered at: {packet['triggered_at']}",
        f"Business hours: {'yes' if data.get('business_hours', True) else 'no (outside hours)'}",
        f"Follow up by: {data.get('follow_up_due', '')}",
        "Qualification: "
        + " | ".join(
            f"{name}: {qualification[f'{name.lower()}_fit']}"
            for name in ("Problem", "Authority", "Company", "Timing")
        ),
        f"Consultant: {qualification['is_consultant']}; "
        f"referral: {qualification['referral_mentioned']}",
        f"Turns: {packet['conversation']['turn_count']}; "
        f"proposals: {packet['conversation']['stage3_proposals_issued']}",
        "",
        f"What the visitor told us ({UNVERIFIED}: typed by the visitor, not checked):",
        f"Email ({UNVERIFIED}): {visitor.get('email') or 'Not captured'}",
        *(
            [f"Phone ({UNVERIFIED}): {phone}"]
            if (phone := (data.get("visitor_contact") or {}).get("phone"))
            else []
        ),
        f"Name ({UNVERIFIED}): {visitor.get('name') or 'Unknown'}",
        f"Company ({UNVERIFIED}): {visitor.get('company') or 'Unknown'}",
        f"Role ({UNVERIFIED}): {visitor.get('role') or 'Unknown'}",
    ]
    if data.get("form"):
        lines.append(f"Form ({UNVERIFIED}): {json.dumps(data['form'], ensure_ascii=False)}")
    if appointment_line(data):
        given = "name, e-mail and phone" if data["appointment"].get("phone") else "name and e-mail"
        lines.append(f"Appointment ({UNVERIFIED} {given}): {appointment_line(data)}")
    lines += ["", f"Summary (quotes the visitor, {UNVERIFIED}):"]
    lines += quoted(packet["conversation_summary"])
    lines += ["", f"Last message ({UNVERIFIED}):", *quoted(data.get("last_message", ""))]
    lines += failed_lines(failed)
    lines += ["", "Context packet (JSON):", json.dumps(packet, indent=2, ensure_ascii=False)]
    return "\n".join(lines) + "\n"


def failed_lines(failed: Mapping[str, str]) -> list[str]:
    if not failed:
        return []
    lines = ["", "Channels that failed after retries:"]
    return lines + [f"- {channel}: {error}" for channel, error in sorted(failed.items())]


def degraded_email_body(data: Mapping[str, Any], failed: Mapping[str, str]) -> str:
    """A degraded packet as plain text: what is known, and why the packet is missing."""
    visitor = data.get("visitor") or {}
    lines = [
        "DEGRADED PACKET: the context packet could not be built "
        f"({data[DEGRADED]}); this is what is known.",
        "",
        f"Site: {data.get('site_name', '')} ({data.get('site_id', '')})",
        f"Session: {data.get('session_id', '')}",
        f"Turn: {data.get('turn', '')}",
        f"Trigger: {data.get('reason', '')}",
        "",
        f"What the visitor told us ({UNVERIFIED}: typed by the visitor, not checked):",
        f"Email ({UNVERIFIED}): {visitor.get('email') or 'Not captured'}",
        "",
        f"Last message ({UNVERIFIED}):",
        *quoted(data.get("last_message", "")),
    ]
    lines += failed_lines(failed)
    lines += ["", "Known data (JSON):", json.dumps(dict(data), indent=2, ensure_ascii=False)]
    return "\n".join(lines) + "\n"
