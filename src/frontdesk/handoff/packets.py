"""What a handoff carries: the context packet plus delivery facts (pure).

`handoff_packet` turns the final state of a turn into the JSON written to the
`handoffs` row and every outbox row of that handoff. Channels render it: Slack as
Block Kit, the CRM as a platform-agnostic lead payload, webhooks as JSON,
the fallback email as plain text.

Everything in a packet that a visitor could have typed (profile fields, form answers,
the last message, the evidence the summary quotes) is cleaned here, once, for every
channel: `visitor_fields` and form answers with `clean_field` (one line, no markup),
every other string of the packet with `clean_text` (no control characters, bounded).
Channels still escape for their own format (Slack mrkdwn, e-mail headers, JSON).

It is also the visitor's word, not a fact: each JSON document names the paths that hold
it under `unverified`, and the text renderings label it "unverified" and keep it out of
the places that say what a message is (the e-mail subject, the Slack header) and out of
the lines that look like the packet's own fields (multi-line text is quoted).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from frontdesk.guard.visitor_text import (
    EMAIL_CHARS,
    FIELD_CHARS,
    clean_field,
    clean_fields,
    clean_text,
    clean_tree,
)
from frontdesk.handoff.wording import plain_summary, subject_words, summary_lines, team_text
from frontdesk.leads.hours import BusinessHours, NeverOpensError, next_opening
from frontdesk.leads.packet import SessionSnapshot, generate_context_packet
from frontdesk.leads.qualification import QualificationState
from frontdesk.sites.schema import SiteConfig

IN_HOURS_RESPONSE = timedelta(hours=2)  # "within 2 business hours"
LAST_MESSAGE_CHARS = 2000
PROFILE_KEYS: Mapping[str, tuple[str, ...]] = {
    "email": ("email",),
    "name": ("name", "full_name"),
    "company": ("company", "company_name"),
    "role": ("role", "job_title"),
}


UNVERIFIED = "unverified"
"""The label every rendering puts on what the visitor typed (name, company, role,
e-mail, form answers, messages and the summary that quotes them), and the key under
which each JSON document lists the paths that hold it."""
HANDOFF_UNVERIFIED: tuple[str, ...] = (
    "packet.visitor",
    "visitor_contact.email",
    "visitor_contact.phone",
    "packet.conversation_summary",
    "packet.conversation.signals_observed",
    "question",
    "summary",
    "form",
    "appointment",
    "last_message",
)
CRM_UNVERIFIED: tuple[str, ...] = (
    "contact",
    "notes.summary",
    "notes.signals_observed",
    "notes.last_message",
    "notes.form",
)
LEAD_UNVERIFIED_COLUMNS: tuple[str, ...] = ("email", "name", "company")
"""The `leads` columns that only ever hold what the visitor said."""


def crm_lead_key(site_id: str, session_id: str) -> str:
    """One CRM lead per conversation: every handoff of a session lands on the same lead."""
    return f"{site_id}:{session_id}:handoff"


def as_utc(moment: datetime) -> datetime:
    """Datetimes read back from SQLite are naive UTC; make every one aware."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def follow_up_due(triggered_at: datetime, business_hours: bool, hours: BusinessHours) -> datetime:
    """CRM task due date: 2 h in hours, else the team's next opening (UTC),
    which may be the same afternoon after a lunch break."""
    if business_hours:
        return as_utc(triggered_at) + IN_HOURS_RESPONSE
    try:
        return next_opening(as_utc(triggered_at), hours).astimezone(UTC)
    except NeverOpensError:  # closed for a year: the task is due as if in hours
        return as_utc(triggered_at) + IN_HOURS_RESPONSE


def visitor_fields(profile: Mapping[str, Any]) -> dict[str, str | None]:
    """Email, name, company and role from a profile, each one clean line (or None)."""
    fields: dict[str, str | None] = {}
    for key, sources in PROFILE_KEYS.items():
        value = next((profile.get(s) for s in sources if profile.get(s) not in (None, "")), None)
        text = None if value is None else clean_field(value, limit_of(key))
        fields[key] = None if text in (None, "", "unknown") else text
    return fields


def appointment_fields(values: Mapping[str, Any]) -> dict[str, str]:
    """The conversation's appointment for the team: booked (with its calendar UID) or
    only asked for (the calendar failed); empty when there is none."""
    appointment = (values.get("booking") or {}).get("appointment") or {}
    phase = appointment.get("phase")
    if phase == "booked":
        keys = ("kind", "label", "start", "uid", "name", "email", "phone")
        found = {key: str(appointment[key]) for key in keys if appointment.get(key)}
        return clean_fields({"status": "booked", **found})
    if phase == "failed" and appointment.get("wish"):
        return clean_fields(
            {
                "status": "requested",
                "kind": str(appointment.get("kind") or ""),
                "requested": str(appointment["wish"]),
            }
        )
    return {}


CONTACT_NOTES: Mapping[str, str] = {
    "provided": "The visitor left a way to reach them.",
    "asked": "No contact: the visitor was asked how to be reached and has not answered.",
    "declined": "No contact, visitor declined: asked how to be reached, they chose not to say.",
    "not_asked": "No contact: the visitor was not asked how to be reached.",
}
"""What each `visitor_contact.status` means, in the words every channel shows."""
CONTACT_TAGS: Mapping[str, str] = {
    "asked": "no contact: asked, no answer",
    "declined": "no contact: visitor declined",
    "not_asked": "no contact",
}
"""The console's short tag for a lead or handoff without a way to reach the visitor."""


def contact_tag(status: object) -> str:
    """The console's tag for a contact status ("" when the visitor left one)."""
    return CONTACT_TAGS.get(str(status or ""), "")


def visitor_contact(
    handoff: Mapping[str, Any], profile: Mapping[str, Any], asked_for: str
) -> dict[str, Any]:
    """How the team can reach the visitor: the e-mail or phone they left (`provided`), or
    why there is none — asked and not (yet) answered, declined, or never asked."""
    email = visitor_fields(profile)["email"]
    phone = clean_field(profile["phone"], FIELD_CHARS) if profile.get("phone") else None
    if email or phone:
        status = "provided"
    else:
        status = str(handoff.get("contact") or "not_asked")
        if status not in CONTACT_NOTES or status == "provided":
            status = "not_asked"
    return {
        "status": status,
        "asked_for": asked_for,
        "email": email,
        "phone": phone or None,
        "note": CONTACT_NOTES[status],
    }


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


def message_text(message: object) -> str:
    """The text of a LangChain message (or its dict form)."""
    content = (
        message.get("content") if isinstance(message, Mapping) else getattr(message, "content", "")
    )
    return content if isinstance(content, str) else ""


def message_role(message: object) -> str:
    kind = message.get("type") if isinstance(message, Mapping) else getattr(message, "type", "")
    return str(kind or "")


def exchanges(messages: object) -> list[tuple[str, str]]:
    """The conversation window as (visitor message, reply) pairs, oldest first."""
    pairs: list[tuple[str, str]] = []
    question: str | None = None
    for message in messages if isinstance(messages, list) else []:
        role = message_role(message)
        if role == "human":
            question = message_text(message)
        elif role == "ai" and question is not None:
            pairs.append((question, message_text(message)))
            question = None
    return pairs


def question_and_answer(values: Mapping[str, Any], message: str, reason: object) -> tuple[str, str]:
    """What the team should read first: the visitor's question and the assistant's last
    answer to it. A visitor who asks for a person has usually just read an answer that
    did not help: their question is the one before the request, with the answer they
    got. Otherwise it is this turn's message and this turn's reply."""
    earlier = exchanges(values.get("messages"))
    if earlier and earlier[-1][0] == message:
        earlier.pop()  # this turn's own exchange
    if reason == "explicit_request" and earlier:
        return earlier[-1]
    return message, str(values.get("answer") or "")


def limit_of(key: str) -> int:
    return EMAIL_CHARS if key == "email" else FIELD_CHARS


def handoff_packet(
    *,
    site: SiteConfig,
    session_id: str,
    turn: int,
    handoff: Mapping[str, Any],
    values: Mapping[str, Any],
    last_message: str,
    language: str,
    now: datetime | None = None,
    excerpt: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The JSON of one handoff: `packet` (ContextPacket) and delivery facts.

    `excerpt`: the question and answer to quote when they were chosen earlier (the turn
    that asked for the visitor's contact), else they are read from `values`.

    Raises `ContextPacketGenerationError` when the state lacks what the packet needs
    (the caller logs it and still records the handoff).
    """
    triggered = handoff.get("triggered_at")
    triggered_at = datetime.fromisoformat(triggered) if triggered else (now or datetime.now(UTC))
    progress = values.get("progress") or {}
    visitor = visitor_fields(values.get("visitor_profile") or {})
    snapshot = SessionSnapshot(
        session_id=session_id,
        last_updated_at=triggered_at,
        lead_level=str(handoff.get("lead_level") or "cold"),
        handoff_reason=handoff.get("reason"),
        qualification=QualificationState.model_validate(values.get("qualification") or {}),
        visitor_email=visitor["email"],
        visitor_name=visitor["name"],
        visitor_company=visitor["company"],
        visitor_role=visitor["role"],
        last_turn_index=max(turn, 0),
        stage3_proposals_issued=int(progress.get("stage3_proposals_issued", 0)),
    )
    packet = generate_context_packet(snapshot)
    in_hours = bool(handoff.get("business_hours", True))
    form = clean_fields((values.get("form_collection") or {}).get("collected_values") or {})
    appointment = appointment_fields(values)
    contact = visitor_contact(handoff, values.get("visitor_profile") or {}, site.handoff.contact)
    due = follow_up_due(packet.triggered_at, in_hours, site.business_hours.hours())
    question, answer = excerpt or question_and_answer(values, last_message, handoff.get("reason"))
    data: dict[str, Any] = {
        "site_id": site.id,
        "site_name": site.name,
        "session_id": session_id,
        "turn": turn,
        "business_hours": in_hours,
        "follow_up_due": due.isoformat(),
        "language": language,
        "last_message": clean_text(last_message, LAST_MESSAGE_CHARS),
        "question": clean_text(question, LAST_MESSAGE_CHARS),
        "last_answer": clean_text(answer, LAST_MESSAGE_CHARS),
        "team_language": site.language_of_team,
        "form": form,
        **({"appointment": appointment} if appointment else {}),
        "visitor_contact": contact,
        # The summary and the signal log quote the visitor's own words.
        "packet": clean_tree(packet.model_dump(mode="json")),
        UNVERIFIED: list(HANDOFF_UNVERIFIED),
    }
    # The same words in every channel: the e-mail, Slack and the webhook's `summary`.
    data["summary"] = plain_summary(data, site.language_of_team, site.business_hours.timezone)
    return data


def team_language(data: Mapping[str, Any]) -> str:
    """The language a handoff is written in (English for one stored before it had one)."""
    return str(data.get("team_language") or "en")


def team_summary_lines(data: Mapping[str, Any]) -> list[str]:
    """The plain-words block as stored with the handoff (rebuilt for an older one)."""
    stored = data.get("summary")
    if isinstance(stored, str) and stored:
        return stored.split("\n")
    return summary_lines(data, team_language(data))


DEGRADED = "degraded_packet"
"""The key that marks a handoff's JSON as a degraded packet: the context packet could
not be built, so it carries only what is known without it."""


def degraded_handoff_data(
    *,
    site: SiteConfig,
    session_id: str,
    turn: int,
    reason: object,
    visitor_email: object,
    last_message: str,
    error: str,
) -> dict[str, Any]:
    """What is known of a handoff whose context packet could not be built: the session,
    the site, the trigger, the visitor's e-mail (if captured) and the last message, with
    why the packet is missing. Built from plain strings only, so it cannot fail the way
    the packet did."""
    email = clean_field(visitor_email, EMAIL_CHARS) if visitor_email else None
    return {
        # One line: the error may echo state that quotes the visitor.
        DEGRADED: clean_field(error, 300) or "unknown error",
        "site_id": site.id,
        "site_name": site.name,
        "session_id": session_id,
        "turn": turn,
        "reason": clean_field(reason or "unknown", FIELD_CHARS),
        "visitor": {"email": email or None},
        "last_message": clean_text(last_message, LAST_MESSAGE_CHARS),
        UNVERIFIED: ["visitor", "last_message"],
    }


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
