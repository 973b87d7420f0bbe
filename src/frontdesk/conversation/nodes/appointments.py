"""Appointments in the chat, for sites with a calendar: free slots offered as buttons,
the name and e-mail asked for, the booking made in the team's calendar and the
invitation sent; cancel and move in the same conversation.

Which step a turn takes is `outcomes.appointment_step`; `appointment_flags`
(`nodes/appointment_flags.py`) gives the intent router what it needs. A calendar that
fails is said so, and the wish becomes a lead with the time asked for (the e-mail flow
takes over from there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from langgraph.runtime import Runtime

from frontdesk.appointments.calendar import CalendarError, Changed, NotFound, SlotTaken
from frontdesk.appointments.contact import (
    Contact,
    ContactQuestion,
    picked_offer,
    read_contact,
)
from frontdesk.appointments.phones import without_phone
from frontdesk.appointments.wishes import mentions_time, time_wish
from frontdesk.conversation import outcomes
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.appointment_flags import named_type
from frontdesk.conversation.nodes.common import Update, emit_words, language_of, site_say
from frontdesk.conversation.state import ChatState, appointment_of, booking_of, visitor_email
from frontdesk.conversation.substates import AppointmentState, Booking, LeadCapture
from frontdesk.sites.calendar import AppointmentType

if TYPE_CHECKING:
    from frontdesk.appointments.desk import AppointmentDesk, SlotOffer


async def appointment_turn(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    ctx = runtime.context
    desk = ctx.calendar_desk()
    booking: Booking = {**booking_of(state)}
    appointment = appointment_of(state).copy()
    # A reply such as "Ada Lovelace, ada@example.org" says little about its language:
    # the appointment goes on in the language it was asked for in.
    language = appointment.get("language") or language_of(state, runtime)
    text = state["input"]
    offered = list(appointment.get("offered") or [])
    picked = picked_offer(text, offered)
    ask_phone = ctx.site.calendar is not None and ctx.site.calendar.ask_phone
    contact = read_contact(
        text,
        offered,
        _known_contact(appointment),
        ask_phone=ask_phone,
        email_known=visitor_email(state) or "",
    )
    zone = ctx.site.business_hours.hours().zone
    # A phone number's digits are no time of day ("030 1234567" is not 10:30).
    when = without_phone(text, contact.phone_reading)
    step = outcomes.appointment_step(
        state.get("route_reason"),
        phase=appointment.get("phase"),
        picked=picked is not None,
        has_contact=contact.complete(ask_phone),
        names_time=mentions_time(when, language, ctx.now, zone)
        or named_type(text, ctx.site) is not None,
        moving=bool(appointment.get("uid")) and bool(offered),
    )
    update: Update = {"routing": "answered", "citations": []}
    kind = named_type(text, ctx.site) or _kind(desk, appointment.get("kind"))
    if step == "offer":
        language = language_of(state, runtime)
    try:
        if step == "offer":
            answer = await _offer(state, runtime, appointment, kind, update)
        elif step == "ask_contact":
            if ask_phone and contact.name and contact.email:
                # Name and e-mail given, the number missing: the next reply may be it alone.
                appointment.update(_given(contact))
            if picked is not None:
                appointment.update({"phase": "contact", "chosen": picked})
                key = "appointment.ask_contact_phone" if ask_phone else "appointment.ask_contact"
                answer = site_say(runtime, key, language, slot=picked["label"])
            else:
                key = _CONTACT_QUESTIONS[contact.question(ask_phone), ask_phone]
                answer = site_say(runtime, key, language)
        elif step == "book":
            chosen = picked or appointment.get("chosen") or {}
            answer = await _book(
                state, runtime, appointment, booking, kind, chosen, contact, update
            )
        elif step == "move":
            assert picked is not None
            answer = await _move(state, runtime, appointment, kind, picked, update)
        elif step == "cancel":
            answer = await _cancel(runtime, appointment, booking, language)
            appointment = AppointmentState()
        else:
            answer = site_say(
                runtime,
                "appointment.status",
                language,
                kind=kind.name_in(language),
                slot=appointment.get("label", ""),
            )
    except CalendarError:
        answer = _unavailable(
            runtime, appointment, booking, kind, text, contact.email, update, language
        )
    booking["appointment"] = appointment
    emit_words("booking_handler", answer)
    update.update({"answer": answer, "booking": booking})
    return update


# The question while the contact is not complete: (what is missing, the site asks for a phone).
_CONTACT_QUESTIONS: dict[tuple[ContactQuestion, bool], str] = {
    ("all", False): "appointment.ask_contact_again",
    ("all", True): "appointment.ask_contact_phone_again",
    ("phone", True): "appointment.ask_phone",
    ("phone_invalid", True): "appointment.phone_invalid",
}


def _known_contact(appointment: AppointmentState) -> dict[str, str]:
    """The contact parts earlier replies gave (`read_contact`'s `known`)."""
    return {
        "name": appointment.get("name", ""),
        "email": appointment.get("email", ""),
        "phone": appointment.get("phone", ""),
    }


def _given(contact: Contact) -> AppointmentState:
    """The parts of the contact the reply gave (an empty part is left out)."""
    given = AppointmentState()
    if contact.name:
        given["name"] = contact.name
    if contact.email:
        given["email"] = contact.email
    if contact.phone:
        given["phone"] = contact.phone
    return given


def _kind(desk: AppointmentDesk, kind_id: str | None) -> AppointmentType:
    kinds: list[AppointmentType] = desk.kinds
    return next((k for k in kinds if k.id == kind_id), kinds[0])


def _labels(offers: list[SlotOffer]) -> str:
    return ", ".join(offer.label for offer in offers)


async def _offer(
    state: ChatState,
    runtime: Runtime[TurnContext],
    appointment: AppointmentState,
    kind: AppointmentType,
    update: Update,
) -> str:
    ctx = runtime.context
    language = language_of(state, runtime)
    zone = ctx.site.business_hours.hours().zone
    wish = time_wish(state["input"], language, ctx.now, zone)
    offers, met = await ctx.calendar_desk().offer(kind, wish, ctx.now, language)
    name = kind.name_in(language)
    if not offers:
        appointment.update({"phase": "failed", "kind": kind.id, "wish": state["input"][:200]})
        return site_say(runtime, "appointment.none", language, kind=name)
    if appointment.get("phase") != "booked":
        appointment["phase"] = "offered"
    appointment.update(
        {
            "kind": kind.id,
            "offered": [offer.__dict__ for offer in offers],
            "wish": state["input"][:200],
            "language": language,
        }
    )
    update["suggested_answers"] = [offer.label for offer in offers]
    key = "appointment.offer" if met else "appointment.offer_instead"
    return site_say(runtime, key, language, kind=name, slots=_labels(offers))


async def _book(
    state: ChatState,
    runtime: Runtime[TurnContext],
    appointment: AppointmentState,
    booking: Booking,
    kind: AppointmentType,
    chosen: dict[str, str],
    contact: Contact,
    update: Update,
) -> str:
    from frontdesk.appointments.desk import SlotOffer

    ctx = runtime.context
    language = appointment.get("language") or language_of(state, runtime)
    name, email, phone = contact.name, contact.email, contact.phone
    offer = SlotOffer(**chosen)
    try:
        booked = await ctx.calendar_desk().book(
            kind,
            offer.interval(),
            name=name,
            email=email,
            phone=phone,
            language=language,
            session_id=ctx.session_id,
        )
    except SlotTaken:
        return await _taken(state, runtime, appointment, kind, offer, update)
    label = offer.label
    appointment.update(
        {
            "phase": "booked",
            "uid": booked.uid,
            "start": offer.start,
            "label": label,
            "name": name,
            "email": email,
        }
    )
    if phone:
        appointment["phone"] = phone
    appointment.pop("offered", None)
    appointment.pop("chosen", None)
    booking.update({"status": "booked", "email": email})
    update["lead_capture"] = LeadCapture(
        capture_context="appointment",
        email=email,
        appointment={
            "uid": booked.uid,
            "kind": kind.id,
            "start": offer.start,
            "label": label,
            "name": name,
            **({"phone": phone} if phone else {}),
        },
    )
    update["visitor_profile"] = {"email": email, "name": name}
    answer = site_say(
        runtime, "appointment.booked", language, kind=kind.name_in(language), slot=label
    )
    if await ctx.calendar_desk().send(booked, "REQUEST"):
        answer += " " + site_say(runtime, "appointment.invitation_sent", language, email=email)
    return answer


async def _taken(
    state: ChatState,
    runtime: Runtime[TurnContext],
    appointment: AppointmentState,
    kind: AppointmentType,
    lost: SlotOffer,
    update: Update,
) -> str:
    """Somebody else was faster: the next free slots, the lost one left out."""
    ctx = runtime.context
    language = appointment.get("language") or language_of(state, runtime)
    offers, _ = await ctx.calendar_desk().offer(
        kind, None, ctx.now, language, skip=frozenset({lost.start})
    )
    appointment["offered"] = [o.__dict__ for o in offers]
    if appointment.get("phase") != "booked":
        appointment["phase"] = "offered"
    appointment.pop("chosen", None)
    update["suggested_answers"] = [o.label for o in offers]
    return site_say(runtime, "appointment.taken", language, slots=_labels(offers))


async def _move(
    state: ChatState,
    runtime: Runtime[TurnContext],
    appointment: AppointmentState,
    kind: AppointmentType,
    picked: dict[str, str],
    update: Update,
) -> str:
    from frontdesk.appointments.desk import SlotOffer, slot_label

    ctx = runtime.context
    language = appointment.get("language") or language_of(state, runtime)
    offer = SlotOffer(**picked)
    try:
        moved = await ctx.calendar_desk().move(appointment.get("uid", ""), kind, offer.interval())
    except SlotTaken:
        return await _taken(state, runtime, appointment, kind, offer, update)
    except NotFound:
        # Gone from the calendar (cancelled from the invitation's link): start afresh.
        cast("dict[str, object]", appointment).clear()
        return await _offer(state, runtime, appointment, kind, update)
    except Changed:
        # Moved from the invitation's link meanwhile: say where it is now.
        current = await ctx.calendar_desk().get(appointment.get("uid", ""))
        label = slot_label(current.start, ctx.site, language)
        appointment.update({"start": current.start.isoformat(), "label": label})
        appointment.pop("offered", None)
        return site_say(runtime, "appointment.moved", language, slot=label)
    appointment.update({"start": offer.start, "label": offer.label})
    appointment.pop("offered", None)
    answer = site_say(runtime, "appointment.moved", language, slot=offer.label)
    if await ctx.calendar_desk().send(moved, "REQUEST"):
        email = appointment.get("email", moved.email)
        answer += " " + site_say(runtime, "appointment.invitation_sent", language, email=email)
    return answer


async def _cancel(
    runtime: Runtime[TurnContext], appointment: AppointmentState, booking: Booking, language: str
) -> str:
    desk = runtime.context.calendar_desk()
    try:
        cancelled = await desk.cancel(appointment.get("uid", ""))
    except NotFound:
        cancelled = None
    if cancelled is not None:
        await desk.send(cancelled, "CANCEL")
    booking["status"] = "declined"
    return site_say(runtime, "appointment.cancelled", language, slot=appointment.get("label", ""))


def _unavailable(
    runtime: Runtime[TurnContext],
    appointment: AppointmentState,
    booking: Booking,
    kind: AppointmentType,
    text: str,
    email: str,
    update: Update,
    language: str,
) -> str:
    """The calendar failed: say so, and keep the wish as a lead with the time asked for."""
    chosen = appointment.get("chosen") or {}
    wish = chosen.get("label") or appointment.get("wish") or text[:200]
    appointment.update({"phase": "failed", "kind": kind.id, "wish": wish})
    booking.update({"status": "collecting", "asked_email": True})
    update["lead_capture"] = LeadCapture(
        capture_context="appointment_request",
        email=email,
        appointment={"kind": kind.id, "requested": wish, "calendar": "unreachable"},
    )
    return site_say(runtime, "appointment.unavailable", language, wish=wish)
