"""How a full answer ends and what the previous reply left pending.

`skill_ending_writer` streams one closing line after a fully answered question:
- ask_profiling_question → "👉 <next form question>", in the configured field order,
  one field per reply, skipped once every field is collected;
- collect_email → a content-gating offer ending in 💌;
- propose_demo → a demo proposal ending in 👇 (the CTA button sits below the reply).

`follow_up_context` reads what the previous reply asked (a stall offer, a 💌, a 👉
question) and whether a booked visitor asks about the booking, for the router.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TypedDict

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.markers import PROFILING_MARKER, pending_profiling_field
from frontdesk.conversation.nodes.common import Update, emit_words, language_of, timed
from frontdesk.conversation.register import Tone
from frontdesk.conversation.state import (
    ChatState,
    booking_of,
    collected_values,
    dialog_of,
    forms_of,
    progress_of,
    skills_of,
    turn_of,
    visitor_email,
)
from frontdesk.conversation.texts import Overrides, say
from frontdesk.engines.local.signals import extract_email
from frontdesk.sites.schema import ProfilingForm

ENDING_SKILLS = ("propose_demo", "collect_email", "ask_profiling_question")

# A short "yes" to a proposal, in the eight languages (and not a "no" / "not now").
AFFIRMATIVE = re.compile(
    r"^\W*(?:yes|yeah|yep|sure|ok|okay|please|go ahead|sounds good|let'?s do it|"
    r"да|конечно|давайте|хорошо|oui|volontiers|d'accord|ja|gerne|klar|sí|si|claro|vale|"
    r"sì|certo|va bene|sim|com certeza|graag|prima|natuurlijk)\b",
    re.IGNORECASE,
)
NEGATIVE = re.compile(
    r"\b(?:no|not|nope|later|нет|не|non|pas|nein|nicht|não|nee|niet)\b", re.IGNORECASE
)
MAX_AFFIRMATIVE_CHARS = 60


def is_affirmative(text: str) -> bool:
    short = text.strip()
    return (
        len(short) <= MAX_AFFIRMATIVE_CHARS
        and bool(AFFIRMATIVE.search(short))
        and not NEGATIVE.search(short)
    )


# Post-conversion: words that make a message about the booking already made.
BOOKING_TOPIC = re.compile(
    r"\b(?:demo|booking|booked|book|meeting|call|appointment|calendar|invite|invitation"
    r"|démo|rendez-vous|réservation|rdv|termin|buchung|gespräch|reunión|cita|reserva"
    r"|riunione|appuntamento|prenotazione|reunião|marcação|afspraak|boeking|gesprek"
    r"|демо|встреч\w*|звон\w*|запис\w*)\b",
    re.IGNORECASE,
)


def next_profiling_question(
    forms: Sequence[ProfilingForm], collected: Mapping[str, str], language: str
) -> tuple[str, str] | None:
    """(field id, question) of the first configured field without a value, or None."""
    for form in forms:
        for group in form.groups:
            for field in group.fields:
                if collected.get(field.id):
                    continue
                text = field.question.get(language) or field.question.get("en")
                if text is None and field.question:
                    text = next(iter(field.question.values()))
                if text:
                    return field.id, text
    return None


def skill_ending(
    skills: Sequence[str],
    *,
    enabled: Sequence[str],
    forms: Sequence[ProfilingForm],
    collected: Mapping[str, str],
    language: str,
    site_name: str,
    texts: Overrides | None = None,
    tone: Tone = "formal",
    has_booking_page: bool = True,
    email_known: bool = False,
) -> str:
    """The closing line for the chosen skills ("" for none); one question at most.

    The demo proposal points at a button, so a site without a booking page never makes
    it; a visitor whose email is known is never asked for it again (💌)."""
    chosen = [skill for skill in ENDING_SKILLS if skill in skills and skill in enabled]
    if not has_booking_page:
        chosen = [skill for skill in chosen if skill != "propose_demo"]
    if email_known:
        chosen = [skill for skill in chosen if skill != "collect_email"]
    for skill in chosen:
        if skill == "ask_profiling_question":
            found = next_profiling_question(forms, collected, language)
            if found is not None:
                return f"{PROFILING_MARKER} {found[1]}"
            continue  # profiling complete: fall through to the next skill, if any
        return say(f"skill.{skill}", language, tone=tone, overrides=texts, site=site_name)
    return ""


class FollowUpContext(TypedDict):
    """What the previous reply left open, as `RouteInput` fields."""

    stall_offer_pending: bool
    email_asked_last_turn: bool
    profiling_answer: bool
    booking_question: bool
    handoff_offer_pending: bool
    affirmative: bool
    demo_proposed_last_turn: bool


def follow_up_context(state: ChatState, forms: Sequence[ProfilingForm] = ()) -> FollowUpContext:
    """What the previous reply left open, as router inputs (see `RouteInput`)."""
    turn = turn_of(state)
    text = state["input"].strip()
    progress = progress_of(state)
    supervision = dialog_of(state)
    # The 👉 of the previous reply, or a replayed history's pending one.
    asked_field = pending_profiling_field(supervision, forms_of(state), turn, forms)
    booked = booking_of(state).get("status") == "booked"
    return {
        "stall_offer_pending": progress.get("stall_offer_turn") == turn - 1,
        "email_asked_last_turn": supervision.get("content_gating_ask_turn") == turn - 1,
        # An email is captured as an email (content gating, stall, booking), not as a field.
        "profiling_answer": bool(asked_field)
        and bool(text)
        and not text.endswith(("?", "？"))
        and extract_email(text) is None,
        "booking_question": booked and bool(BOOKING_TOPIC.search(text)),
        "handoff_offer_pending": progress.get("handoff_offer_turn") == turn - 1,
        "affirmative": is_affirmative(text),
        "demo_proposed_last_turn": supervision.get("demo_proposed_turn") == turn - 1,
    }


@timed
async def skill_ending_writer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Append the chosen skill's closing line to a full answer, streamed."""
    site = runtime.context.site
    ending = skill_ending(
        skills_of(state),
        enabled=site.skills.enabled,
        forms=site.qualification.forms,
        collected=collected_values(state),
        language=language_of(state, runtime),
        site_name=site.name,
        texts=site.texts,
        tone=site.tone,
        has_booking_page=bool(site.skills.booking_url),
        email_known=visitor_email(state) is not None,
    )
    if not ending:
        return {}
    answer = (state.get("answer") or "").rstrip()
    emit_words("skill_ending_writer", "\n\n" + ending if answer else ending)
    return {"answer": f"{answer}\n\n{ending}" if answer else ending}
