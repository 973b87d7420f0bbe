"""iCalendar text of an appointment (RFC 5545 via `icalendar`): the event stored in the
team's calendar and the invitation e-mailed to the visitor (RFC 5546 REQUEST / CANCEL).
`icalendar` comes with the `calendar` extra, so it is imported where it is used: a site
without a calendar runs without it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

PRODID = "-//Frontdesk//Appointments//EN"


@dataclass(frozen=True)
class Appointment:
    """One booking as it lives in the calendar (times are aware, UTC)."""

    uid: str
    kind: str
    start: datetime
    end: datetime
    summary: str
    name: str
    email: str
    phone: str = ""
    session_id: str = ""
    language: str = "en"
    sequence: int = 0
    href: str = ""
    status: Literal["CONFIRMED", "CANCELLED"] = "CONFIRMED"

    def moved(self, start: datetime, end: datetime) -> Appointment:
        return replace(self, start=start, end=end, sequence=self.sequence + 1)


def _address(email: str, name: str, role: str | None = None) -> Any:
    from icalendar import vCalAddress, vText

    address = vCalAddress(f"mailto:{email}")
    if name:
        address.params["CN"] = vText(name)
    if role:
        address.params["ROLE"] = vText(role)
        address.params["PARTSTAT"] = vText("ACCEPTED")
    return address


def event_ical(
    appointment: Appointment,
    *,
    organizer_email: str = "",
    organizer_name: str = "",
    description: str = "",
    method: Literal["REQUEST", "CANCEL"] | None = None,
    now: datetime | None = None,
) -> bytes:
    """The appointment as a VCALENDAR; with `method` an invitation (iTIP) for the visitor."""
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    if method:
        calendar.add("method", method)
    event = Event()
    event.add("uid", appointment.uid)
    event.add("dtstamp", (now or datetime.now(UTC)).astimezone(UTC))
    event.add("dtstart", appointment.start.astimezone(UTC))
    event.add("dtend", appointment.end.astimezone(UTC))
    event.add("summary", appointment.summary)
    event.add("sequence", appointment.sequence)
    event.add("status", "CANCELLED" if method == "CANCEL" else appointment.status)
    if description:
        event.add("description", description)
    if organizer_email:
        event.add("organizer", _address(organizer_email, organizer_name))
    event.add("attendee", _address(appointment.email, appointment.name, "REQ-PARTICIPANT"))
    event.add("x-frontdesk-type", appointment.kind)
    event.add("x-frontdesk-visitor", appointment.name)
    event.add("x-frontdesk-email", appointment.email)
    event.add("x-frontdesk-language", appointment.language)
    if appointment.phone:
        event.add("x-frontdesk-phone", appointment.phone)
    if appointment.session_id:
        event.add("x-frontdesk-session", appointment.session_id)
    calendar.add_component(event)
    return bytes(calendar.to_ical())


def _text(event: Any, key: str) -> str:
    value = event.get(key)
    return str(value) if value is not None else ""


def _instant(value: object) -> datetime | None:
    moment = getattr(value, "dt", None)
    if not isinstance(moment, datetime):
        return None  # an all-day date: blocks the day, handled by the caller
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


def appointment_of(ical: bytes | str, href: str = "") -> Appointment | None:
    """The Frontdesk appointment stored in `ical`, or None when it is another event."""
    from icalendar import Calendar

    for event in Calendar.from_ical(ical).walk("VEVENT"):
        kind = _text(event, "X-FRONTDESK-TYPE")
        start, end = _instant(event.get("DTSTART")), _instant(event.get("DTEND"))
        if not kind or start is None or end is None:
            continue
        cancelled = _text(event, "STATUS").upper() == "CANCELLED"
        status: Literal["CONFIRMED", "CANCELLED"] = "CANCELLED" if cancelled else "CONFIRMED"
        return Appointment(
            uid=_text(event, "UID"),
            kind=kind,
            start=start,
            end=end,
            summary=_text(event, "SUMMARY"),
            name=_text(event, "X-FRONTDESK-VISITOR"),
            email=_text(event, "X-FRONTDESK-EMAIL"),
            phone=_text(event, "X-FRONTDESK-PHONE"),
            session_id=_text(event, "X-FRONTDESK-SESSION"),
            language=_text(event, "X-FRONTDESK-LANGUAGE") or "en",
            sequence=int(event.get("SEQUENCE", 0)),
            href=href,
            status=status,
        )
    return None
