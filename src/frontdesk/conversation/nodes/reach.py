"""How the team can reach the visitor: the contact question a handoff asks when nobody can
answer live, and the visitor's answer to it (`propose_handoff` calls these).

The decisions are `outcomes.handoff_contact_step` (ask? hold the handoff for the answer?)
and `outcomes.contact_reply` (what the next message is as an answer); here they become
replies and the handoff request the turn writer stores (`handoff.outbox`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from frontdesk.conversation import outcomes
from frontdesk.conversation.contact import contact_in
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import Update, emit_words, language_of, site_say
from frontdesk.conversation.state import (
    ChatState,
    progress_of,
    qualification_of,
    turn_of,
    visitor_email,
    visitor_phone,
)
from frontdesk.conversation.substates import Handoff, Progress
from frontdesk.leads.hours import is_business_hours
from frontdesk.leads.qualification import lead_level


async def live_route(runtime: Runtime[TurnContext]) -> outcomes.LiveHandoff:
    """Whether a person can answer now: business hours and an operator online (the live
    desk's presence; a run without a desk has nobody)."""
    ctx = runtime.context
    online = ctx.operators_online
    count = await online() if online is not None else 0
    in_hours = is_business_hours(ctx.now, ctx.site.business_hours.hours())
    return outcomes.live_handoff_route(in_hours=in_hours, operators_online=count)


def known_contact(state: ChatState) -> str | None:
    """The way the team can reach the visitor that is already known: e-mail, else phone."""
    return visitor_email(state) or visitor_phone(state)


def contact_question(runtime: Runtime[TurnContext], language: str) -> str:
    """ "How can our team reach you?" for the kind of contact the site asks for."""
    return site_say(runtime, f"contact.ask_{runtime.context.site.handoff.contact}", language)


def asking_contact(
    handoff: Handoff, step: outcomes.HandoffContact, runtime: Runtime[TurnContext]
) -> Handoff:
    """The handoff of a reply that asks for the visitor's contact: marked so, and held for
    the answer while nobody can take the conversation over live."""
    asked: Handoff = {**handoff, "contact": "asked"}
    wait_s = runtime.context.site.handoff.contact_wait_seconds
    if step == "ask_and_hold" and wait_s > 0:  # 0: the team hears of it at once
        asked["hold_s"] = float(wait_s)
    return asked


def contact_pending(handoff: Handoff, state: ChatState) -> Progress:
    """What the next turns need to complete the handoff with the visitor's answer."""
    return {
        "contact_handoff": handoff,
        "contact_ask_turn": turn_of(state),
        "contact_asked_again": False,
    }


def contact_answer(
    state: ChatState, runtime: Runtime[TurnContext], reason: str, *, when: str, fallback: Handoff
) -> Update:
    """The visitor answered "how can our team reach you?": with a contact (the handoff goes
    to the team with it), a refusal (it goes marked "no contact, visitor declined"), or
    something else (asked once more, with an example and the way to decline). `when` is
    the follow-up promise; `fallback` the handoff to send when the state kept none."""
    site = runtime.context.site
    language = language_of(state, runtime)
    progress: Progress = {**progress_of(state)}
    update: Update = {"routing": "answered", "citations": [], "progress": progress}
    if reason == "contact_ask_again":
        text = site_say(runtime, f"contact.ask_again_{site.handoff.contact}", language)
        progress["contact_asked_again"] = True
        emit_words("propose_handoff", text)
        update["answer"] = text
        return update
    held = progress.pop("contact_handoff", None) or fallback
    asked_turn = progress.pop("contact_ask_turn", None)
    progress.pop("contact_asked_again", None)
    handoff: Handoff = {**held, "lead_level": lead_level(qualification_of(state)), "notify": True}
    handoff.pop("hold_s", None)
    if asked_turn is not None:
        handoff["completes_turn"] = int(asked_turn)
    if reason == "contact_given":
        found = contact_in(state["input"], site.handoff.contact)
        if found is None:
            raise ValueError("a contact answer without a contact")
        kind, value = found
        handoff["contact"], handoff["status"] = "provided", "accepted"
        update["visitor_profile"] = {kind: value}
        text = site_say(runtime, "contact.thanks", language, contact=value, when=when)
    elif reason == "contact_declined":
        handoff["contact"] = "declined"
        text = site_say(runtime, "contact.declined", language, when=when)
    else:
        raise ValueError(f"unknown contact reply {reason!r}")
    emit_words("propose_handoff", text)
    update["answer"] = text
    update["handoff"] = handoff
    return update
