"""What a handoff carries: the context packet plus delivery facts (pure).

`handoff_packet` turns the final state of a turn into the JSON written to the
`handoffs` row and every outbox row of that handoff. Channels render it: Slack as
Block Kit, the CRM as a platform-agnostic lead payload, webhooks as JSON,
the fallback email as plain text (the pure parts of that in `rendering`).

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

from collections.abc import Mapping
from dataclasses import dataclass
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
from frontdesk.handoff.wording import plain_summary
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


@dataclass(frozen=True)
class HandoffRequest:
    """One turn's handoff for the team: where it happened and what the turn left."""

    site: SiteConfig
    session_id: str
    turn: int
    handoff: Mapping[str, Any]  # the turn's handoff (reason, hours, contact) and lead level
    values: Mapping[str, Any]  # the turn's final state
    message: str  # the visitor's message of that turn
    language: str  # the conversation's


def handoff_packet(
    request: HandoffRequest,
    *,
    now: datetime | None = None,
    excerpt: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The JSON of one handoff: `packet` (ContextPacket) and delivery facts.

    `excerpt`: the question and answer to quote when they were chosen earlier (the turn
    that asked for the visitor's contact), else they are read from `values`.

    Raises `ContextPacketGenerationError` when the state lacks what the packet needs
    (the caller logs it and still records the handoff).
    """
    site, handoff, values = request.site, request.handoff, request.values
    triggered = handoff.get("triggered_at")
    triggered_at = datetime.fromisoformat(triggered) if triggered else (now or datetime.now(UTC))
    progress = values.get("progress") or {}
    visitor = visitor_fields(values.get("visitor_profile") or {})
    snapshot = SessionSnapshot(
        session_id=request.session_id,
        last_updated_at=triggered_at,
        lead_level=str(handoff.get("lead_level") or "cold"),
        handoff_reason=handoff.get("reason"),
        qualification=QualificationState.model_validate(values.get("qualification") or {}),
        visitor_email=visitor["email"],
        visitor_name=visitor["name"],
        visitor_company=visitor["company"],
        visitor_role=visitor["role"],
        last_turn_index=max(request.turn, 0),
        stage3_proposals_issued=int(progress.get("stage3_proposals_issued", 0)),
    )
    packet = generate_context_packet(snapshot)
    in_hours = bool(handoff.get("business_hours", True))
    form = clean_fields((values.get("form_collection") or {}).get("collected_values") or {})
    appointment = appointment_fields(values)
    contact = visitor_contact(handoff, values.get("visitor_profile") or {}, site.handoff.contact)
    due = follow_up_due(packet.triggered_at, in_hours, site.business_hours.hours())
    question, answer = excerpt or question_and_answer(
        values, request.message, handoff.get("reason")
    )
    data: dict[str, Any] = {
        "site_id": site.id,
        "site_name": site.name,
        "session_id": request.session_id,
        "turn": request.turn,
        "business_hours": in_hours,
        "follow_up_due": due.isoformat(),
        "language": request.language,
        "last_message": clean_text(request.message, LAST_MESSAGE_CHARS),
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


DEGRADED = "degraded_packet"
"""The key that marks a handoff's JSON as a degraded packet: the context packet could
not be built, so it carries only what is known without it."""


def degraded_handoff_data(request: HandoffRequest, error: str) -> dict[str, Any]:
    """What is known of a handoff whose context packet could not be built: the session,
    the site, the trigger, the visitor's e-mail (if captured) and the last message, with
    why the packet is missing. Built from plain strings only, so it cannot fail the way
    the packet did."""
    reason = request.handoff.get("reason")
    visitor_email = (request.values.get("visitor_profile") or {}).get("email")
    email = clean_field(visitor_email, EMAIL_CHARS) if visitor_email else None
    return {
        # One line: the error may echo state that quotes the visitor.
        DEGRADED: clean_field(error, 300) or "unknown error",
        "site_id": request.site.id,
        "site_name": request.site.name,
        "session_id": request.session_id,
        "turn": request.turn,
        "reason": clean_field(reason or "unknown", FIELD_CHARS),
        "visitor": {"email": email or None},
        "last_message": clean_text(request.message, LAST_MESSAGE_CHARS),
        UNVERIFIED: ["visitor", "last_message"],
    }
