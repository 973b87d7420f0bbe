"""What a message means for an appointment, for the intent router (pure): a wish for one,
a reply to the slots or the contact question, a change to a booked one.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from frontdesk.appointments.changes import (
    AppointmentChange,
    appointment_change,
    names_another_thing,
)
from frontdesk.appointments.contact import contact_name, names_a_phone, picked_offer
from frontdesk.appointments.wishes import mentions_time, names_any
from frontdesk.conversation.state import ChatState, appointment_of
from frontdesk.engines.local.signals import extract_email
from frontdesk.sites.calendar import AppointmentType
from frontdesk.sites.schema import SiteConfig

ASKING_INTENTS = frozenset({"LEARN", "SUPPORT"})


def _type_names(site: SiteConfig) -> dict[str, AppointmentType]:
    assert site.calendar is not None
    return {
        name: kind
        for kind in site.calendar.appointment_types
        for name in sorted(kind.name.values(), key=len, reverse=True)
    }


def named_type(text: str, site: SiteConfig) -> AppointmentType | None:
    names = _type_names(site)
    found = names_any(text, list(names))
    return names[found] if found else None


def change_asked(text: str, site: SiteConfig, intent: str) -> AppointmentChange | None:
    """What a visitor whose appointment stands asks about it (`appointments.changes`). A
    decline the intent model hears without a verb of cancelling ("I can't make it") and
    that names nothing else gets the appointment and how to cancel it, not a cancellation
    and not "I won't book anything"."""
    names = list(_type_names(site))
    change = appointment_change(text, names)
    if change is None and intent == "STOP_BOOKING" and not names_another_thing(text, names):
        return "ask"
    return change


class AppointmentFlags(TypedDict, total=False):
    """`RouteInput`'s appointment fields."""

    appointment_wish: bool
    appointment_reply: bool
    appointment_change: AppointmentChange | None


def appointment_flags(
    state: ChatState,
    site: SiteConfig,
    *,
    intent: str,
    language: str,
    now: datetime,
    signals: set[str],
) -> AppointmentFlags:
    """`RouteInput`'s appointment fields for this message (none without a calendar)."""
    if site.calendar is None:
        return {}
    text = state["input"]
    appointment = appointment_of(state)
    phase = appointment.get("phase")
    zone = site.business_hours.hours().zone
    names_type = named_type(text, site) is not None
    timed = mentions_time(text, language, now, zone)
    asks = text.rstrip().endswith(("?", "？"))
    pricing = "pricing_interest" in signals
    wish = (
        phase != "failed"
        and not pricing
        and (
            (names_type and (timed or not asks))
            or (intent == "BOOKING" and (timed or "demo_interest" in signals or not asks))
            or (phase == "booked" and timed and intent not in ASKING_INTENTS)
        )
    )
    offered = appointment.get("offered") or []
    picked = picked_offer(text, offered) is not None
    reply = phase in ("offered", "contact") and (
        picked or extract_email(text) is not None or (timed and intent not in ASKING_INTENTS)
    )
    if phase == "contact" and intent not in ASKING_INTENTS and contact_name(text, offered):
        reply = True  # "Ada Lovelace": the name asked for
    if phase == "contact" and site.calendar.ask_phone and names_a_phone(text, offered):
        reply = True  # "+49 30 1234567" (or a try at it): the number asked for
    return {
        "appointment_wish": bool(wish),
        "appointment_reply": bool(reply or (phase == "booked" and picked)),
        # A time clicked to move to is that move, whatever the words of its label.
        "appointment_change": (
            change_asked(text, site, intent) if phase == "booked" and not picked else None
        ),
    }
