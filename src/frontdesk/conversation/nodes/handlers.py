"""Writers that do not quote the knowledge base: redirect, booking, handoff proposals."""

from __future__ import annotations

import typing
from datetime import date, datetime, timedelta
from typing import Literal

from babel.dates import format_date
from langgraph.runtime import Runtime

from frontdesk.conversation import outcomes, route_table
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.markers import PROFILING_MARKER, pending_profiling_field
from frontdesk.conversation.nodes.appointments import appointment_turn
from frontdesk.conversation.nodes.common import (
    Update,
    emit_words,
    language_of,
    site_say,
    timed,
    topics_text,
)
from frontdesk.conversation.nodes.reach import (
    asking_contact,
    contact_answer,
    contact_pending,
    contact_question,
    known_contact,
    live_route,
)
from frontdesk.conversation.nodes.skills import next_profiling_question
from frontdesk.conversation.state import (
    ChatState,
    appointment_of,
    booking_of,
    collected_values,
    dialog_of,
    forms_of,
    progress_of,
    qualification_of,
    skill_selection_of,
    turn_of,
    visitor_email,
)
from frontdesk.conversation.substates import Booking, Handoff, Progress
from frontdesk.conversation.texts import TEXTS, say
from frontdesk.conversation.vocabulary import ContactReply
from frontdesk.engines.local.signals import extract_email
from frontdesk.leads.hours import NeverOpensError, is_business_hours, next_opening
from frontdesk.leads.qualification import (
    ConversationProgress,
    lead_level,
    record_stage3_proposal,
)


@timed
async def redirect_handler(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Support, off-topic, nonsense, injection attempts and conversation acts (a greeting,
    thanks, a goodbye, an address alone...): a short localized reply, each its own."""
    language = language_of(state, runtime)
    reason = outcomes.redirect_reason(state.get("route_reason") or "other")
    key = f"act.{reason}" if reason in route_table.ACT_REASONS else f"redirect.{reason}"
    text = site_say(
        runtime,
        key,
        language,
        topics=topics_text(runtime, language),
        email=extract_email(state["input"]) or "",
    )
    emit_words("redirect_handler", text)
    return {
        "answer": text,
        "citations": [],
        "routing": outcomes.redirect_routing(reason),
        "suggested_follow_ups": list(runtime.context.topic_questions(language)),
    }


def business_hours_now(runtime: Runtime[TurnContext], same_day: bool = False) -> bool:
    hours = runtime.context.site.business_hours.hours()
    return is_business_hours(runtime.context.now, hours, same_day_followup=same_day)


def follow_up_commitment(runtime: Runtime[TurnContext], language: str) -> tuple[str, bool]:
    """Promise same-day follow-up only before the cutoff on a business day;
    otherwise say when the team is back (after a lunch break, a holiday, the weekend)."""
    in_hours = business_hours_now(runtime)
    if business_hours_now(runtime, same_day=True):
        return site_say(runtime, "when.business_hours", language), in_hours
    own = runtime.context.site.texts
    if "when.next_business_day" in own and "when.reopens" not in own:
        return site_say(runtime, "when.next_business_day", language), in_hours  # the site's words
    hours = runtime.context.site.business_hours.hours()
    try:
        opening = next_opening(runtime.context.now, hours)
    except NeverOpensError:
        return site_say(runtime, "when.next_business_day", language), in_hours
    when = opening_words(opening, runtime.context.now.astimezone(hours.zone).date(), language)
    return site_say(runtime, "when.reopens", language, opening=when), in_hours


def opening_words(opening: datetime, today: date, language: str) -> str:
    """ "today at 14:00", "tomorrow at 09:30", "on Tuesday 8 December at 09:30" in the
    visitor's language (weekday and month names from CLDR via Babel), team's wall time."""
    time_text = opening.strftime("%H:%M")
    if opening.date() == today:
        return say("opening.today", language, time=time_text)
    if opening.date() == today + timedelta(days=1):
        return say("opening.tomorrow", language, time=time_text)
    weekday = format_date(opening.date(), "EEEE", locale=language)
    day = format_date(opening.date(), "d MMMM", locale=language)
    return say("opening.on", language, weekday=weekday, date=day, time=time_text)


@timed
async def booking_handler(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Collect the email for a demo, then confirm with the CTA (booking flow).

    Also the other email/CTA flows: a profiling answer (thanks, then the next 👉 question
    or the demo CTA), a content-gating email (💌 step 2) and, after a booking, questions
    about it answered from the booking state (post-conversion, no re-proposal).
    """
    reason = state.get("route_reason")
    flow = outcomes.booking_flow(
        reason,
        has_calendar=runtime.context.appointments is not None,
        phase=appointment_of(state).get("phase"),
    )
    if flow == "profiling":
        return _profiling_answer(state, runtime)
    if flow == "gating":
        return _content_gating_email(state, runtime)
    if flow == "appointment":
        return await appointment_turn(state, runtime)
    language = language_of(state, runtime)
    booking: Booking = {**booking_of(state)}
    email = visitor_email(state)
    status = booking.get("status", "collecting")
    update: Update = {"routing": "answered", "citations": []}
    if status == "booked":
        when, _ = follow_up_commitment(runtime, language)
        address = booking.get("email") or email
        text = (
            site_say(runtime, "booking.status", language, email=address, when=when)
            if address
            else site_say(runtime, "booking.already_booked", language)
        )
    elif email:
        when, _ = follow_up_commitment(runtime, language)
        text = site_say(runtime, "booking.confirmed", language, email=email, when=when)
        booking.update({"status": "booked", "email": email, "booked_turn": turn_of(state)})
        update["lead_capture"] = {"capture_context": "in_chat_booking", "email": email}
    elif booking.get("asked_email"):
        text = site_say(runtime, "booking.ask_email_again", language)
    else:
        text = site_say(runtime, "booking.ask_email", language)
        booking.update({"status": "collecting", "asked_email": True})
    emit_words("booking_handler", text)
    update.update({"answer": text, "booking": booking})
    return update


def _profiling_answer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The visitor answered last turn's 👉: thank them, ask the next field or offer the demo.

    form_field_extractor stores the answer after this node; here it only decides what
    comes next, so the field being answered now counts as collected.
    """
    site = runtime.context.site
    language = language_of(state, runtime)
    supervision = dialog_of(state)
    turn = turn_of(state)
    answered = pending_profiling_field(supervision, forms_of(state), turn, site.qualification.forms)
    collected = collected_values(state)
    if answered:
        collected[answered] = state["input"].strip()
    following = next_profiling_question(site.qualification.forms, collected, language)
    update: Update = {"routing": "answered", "citations": []}
    if following is not None:
        thanks = site_say(runtime, "profiling.thanks", language)
        text = f"{thanks}\n\n{PROFILING_MARKER} {following[1]}"
    else:
        text = site_say(runtime, "profiling.done", language)
        update["skill_selection"] = {**skill_selection_of(state), "skills": ["propose_demo"]}
    emit_words("booking_handler", text)
    update["answer"] = text
    return update


def _content_gating_email(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """💌 step 2: the email asked for last turn arrived; it becomes a lead."""
    language = language_of(state, runtime)
    email = visitor_email(state) or ""
    text = site_say(runtime, "gating.thanks", language, email=email)
    emit_words("booking_handler", text)
    return {
        "answer": text,
        "routing": "answered",
        "citations": [],
        "lead_capture": {"capture_context": "content_gating", "email": email},
    }


# The reason a handoff record carries (the variants of one reason share it).
_RECORD_REASON = {"high_stakes_offer": "high_stakes", "high_stakes_question": "high_stakes"}


@timed
async def propose_handoff(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Stage 3 proposal: a reply suited to the reason, plus the handoff request."""
    language = language_of(state, runtime)
    reason = outcomes.proposal_reason(state)
    if reason == "stall_accepted":
        return _stall_accepted(state, runtime)
    if reason == "handoff_accepted":
        return await _handoff_accepted(state, runtime)
    if reason in typing.get_args(ContactReply):
        when, in_hours = follow_up_commitment(runtime, language)
        # A state from before the question was kept: the answer is a handoff of its own.
        fallback = _handoff(state, runtime, "explicit_request", "accepted", in_hours)
        return contact_answer(state, runtime, reason, when=when, fallback=fallback)
    when, in_hours = follow_up_commitment(runtime, language)
    if reason != "stall":
        # A same-day promise (hot lead, explicit request) uses the earlier cutoff.
        in_hours = business_hours_now(runtime, same_day=True)
    offer_only = outcomes.waits_for_yes(reason)
    step: outcomes.HandoffContact = "deliver"
    if not offer_only:
        step = outcomes.handoff_contact_step(
            contact_known=known_contact(state) is not None, live=await live_route(runtime)
        )
    email = visitor_email(state)
    key = f"handoff.{reason}"
    if email and f"{key}_known_email" in TEXTS:
        key = f"{key}_known_email"  # a known email is used, never asked for again
    elif step != "deliver" and f"{key}_ask_contact" in TEXTS:
        key = f"{key}_ask_contact"  # the question below replaces the text's own hint
    text = site_say(runtime, key, language, when=when, email=email or "")
    if step != "deliver":
        text = f"{text} {contact_question(runtime, language)}"
    # Whatever this turn already said stays (an answer, a writer's partial text).
    previous = (state.get("answer") or "").strip()
    if reason == "high_stakes_question" and not previous:  # nothing found to write from
        text = f"{site_say(runtime, 'not_found', language)} {text}"
    emit_words("propose_handoff", ("\n\n" + text) if previous else text)
    progress = progress_of(state)
    proposed = record_stage3_proposal(
        ConversationProgress(
            stage=progress.get("stage", 2),
            turn_counter=int(progress.get("turn_counter", 0)),
            stage3_proposals_issued=int(progress.get("stage3_proposals_issued", 0)),
        )
    )
    progress_update: Progress = {
        "stage": proposed.stage,
        "turn_counter": proposed.turn_counter,
        "stage3_proposals_issued": proposed.stage3_proposals_issued,
    }
    if reason == "stall":
        progress_update["stall_offer_turn"] = turn_of(state)
    else:  # a "yes" or an email next turn accepts the proposal (`_handoff_accepted`)
        progress_update["handoff_offer_turn"] = turn_of(state)
        progress_update["handoff_offer_reason"] = _RECORD_REASON.get(reason, reason)
        progress_update["handoff_offer_notified"] = not offer_only
    handoff = _handoff(
        state,
        runtime,
        _RECORD_REASON.get(reason, reason),
        "proposed",
        in_hours,
        notify=not offer_only,
    )
    if step != "deliver":
        handoff = asking_contact(handoff, step, runtime)
        progress_update.update(contact_pending(handoff, state))
    update: Update = {
        "answer": f"{previous}\n\n{text}" if previous else text,
        "progress": progress_update,
        # A stall only becomes a lead when the visitor accepts and leaves an email.
        "handoff": handoff,
    }
    if not offer_only:
        update["routing"] = outcomes.handoff_routing(reason)  # type: ignore[arg-type]
        update["citations"] = []
    return update


def _stall_accepted(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The visitor left an email after a stall offer: now it is a lead (stall path)."""
    language = language_of(state, runtime)
    email = visitor_email(state) or ""
    when, in_hours = follow_up_commitment(runtime, language)
    text = site_say(runtime, "handoff.stall_accepted", language, email=email, when=when)
    emit_words("propose_handoff", text)
    progress: Progress = {**progress_of(state)}
    progress.pop("stall_offer_turn", None)
    return {
        "answer": text,
        "routing": "answered",
        "citations": [],
        "progress": progress,
        "handoff": _handoff(state, runtime, "stall", "accepted", in_hours),
    }


async def _handoff_accepted(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The visitor said yes to a proposed person, or left an email (stage 3).

    The handoff itself was delivered on the proposal turn, unless the proposal was only
    an offer (a person beside a high-stakes answer): then it is delivered now. An email
    left now is sent again under the same reason, and the CRM fills it into the
    session's lead; a "yes" without any known contact asks for one: the handoff goes with
    the question (`outcomes.handoff_contact_step`, held while nobody can answer live); a
    known email is never asked again.
    """
    language = language_of(state, runtime)
    progress: Progress = {**progress_of(state)}
    reason = progress.pop("handoff_offer_reason", None) or "explicit_request"
    progress.pop("handoff_offer_turn", None)
    notified = progress.pop("handoff_offer_notified", True)
    email = visitor_email(state)
    update: Update = {"routing": "answered", "citations": [], "progress": progress}
    if not email and progress.get("contact_ask_turn") is not None:
        # The handoff already waits for the contact: the question again, no second one.
        text = contact_question(runtime, language)
        progress["contact_asked_again"] = True
    elif not email and known_contact(state) is None:
        _, in_hours = follow_up_commitment(runtime, language)
        step = outcomes.handoff_contact_step(contact_known=False, live=await live_route(runtime))
        handoff = asking_contact(
            _handoff(state, runtime, reason, "accepted", in_hours), step, runtime
        )
        text = contact_question(runtime, language)
        progress.update(contact_pending(handoff, state))
        update["handoff"] = handoff
    elif not email:  # a phone number is known: the team calls
        when, in_hours = follow_up_commitment(runtime, language)
        phone = known_contact(state) or ""
        text = site_say(runtime, "contact.thanks", language, contact=phone, when=when)
        if not notified:
            update["handoff"] = _handoff(state, runtime, reason, "accepted", in_hours)
    else:
        when, in_hours = follow_up_commitment(runtime, language)
        text = site_say(runtime, "handoff.accepted", language, email=email, when=when)
        if extract_email(state["input"]) or not notified:
            # The team hears of it now: an email to add, or an offer nobody was told of yet.
            update["handoff"] = _handoff(state, runtime, reason, "accepted", in_hours)
    emit_words("propose_handoff", text)
    update["answer"] = text
    return update


def _handoff(
    state: ChatState,
    runtime: Runtime[TurnContext],
    reason: str,
    status: Literal["proposed", "accepted"],
    business_hours: bool,
    *,
    notify: bool = True,
) -> Handoff:
    """The handoff request the turn writer turns into outbox rows (when `notify`)."""
    return Handoff(
        reason=reason,
        status=status,
        business_hours=business_hours,
        lead_level=lead_level(qualification_of(state)),
        triggered_at=runtime.context.now.isoformat(),
        notify=notify,
    )
