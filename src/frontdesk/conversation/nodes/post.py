"""After the reply: stall detection, suggestions, and the final payload of the turn."""

from __future__ import annotations

from langchain_core.messages import AIMessage, RemoveMessage
from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import Update, chunks_from, language_of, timed
from frontdesk.conversation.state import ChatState, booking_of, progress_of, skills_of, turn_of
from frontdesk.conversation.substates import CallToAction, Progress
from frontdesk.leads.qualification import stall_check as check_stall

YES_NO: dict[str, tuple[str, str]] = {
    "en": ("Yes, please", "Not now"),
    "ru": ("Да, давайте", "Не сейчас"),
    "fr": ("Oui, volontiers", "Pas maintenant"),
    "de": ("Ja, gerne", "Nicht jetzt"),
    "es": ("Sí, por favor", "Ahora no"),
    "it": ("Sì, grazie", "Non ora"),
    "pt": ("Sim, por favor", "Agora não"),
    "nl": ("Ja, graag", "Nu niet"),
}


@timed
async def stall_check(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Count turns; a stalled conversation gets a low-friction proposal."""
    progress: Progress = {**progress_of(state)}
    result = check_stall(
        int(progress.get("turn_counter", 0)),
        int(progress.get("stage3_proposals_issued", 0)),
        runtime.context.site.qualification.stall_turn_threshold,
    )
    progress["turn_counter"] = result.turn_counter
    return {"progress": progress, "stall": result.route == "propose_handoff"}


@timed
async def answer_suggester(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    answer = (state.get("answer") or "").rstrip()
    if "@" in answer or answer.endswith("💌"):
        return {"suggested_answers": []}  # an email is typed, not clicked
    if "👉" in answer.splitlines()[-1]:
        return {"suggested_answers": []}  # a profiling question takes a free answer
    yes, no = YES_NO.get(language_of(state, runtime), YES_NO["en"])
    return {"suggested_answers": [yes, no]}


@timed
async def follow_up_suggester(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    chunks = chunks_from(state.get("graded_chunks") or [])
    questions = await runtime.context.engines.suggester.follow_ups(
        state["input"],
        state.get("answer") or "",
        chunks,
        language_of(state, runtime),
        runtime.context.site.tone,
    )
    return {"suggested_follow_ups": questions[:3]}


def call_to_action(state: ChatState, runtime: Runtime[TurnContext]) -> CallToAction | None:
    skills = runtime.context.site.skills
    if not skills.booking_url:
        return None
    status = booking_of(state).get("status")
    chosen = set(skills_of(state))
    route = state.get("route")
    wants_cta = (status == "booked" and route == "BOOKING") or (
        "propose_demo" in chosen and route in ("ANSWER", "BOOKING")
    )
    if not wants_cta:
        return None
    language = language_of(state, runtime)
    label = skills.cta_label.get(language) or skills.cta_label.get("en") or "Contact us"
    # form_field_extractor already encoded the collected fields into the booking URL.
    url = (state.get("cta_url_overrides") or {}).get("booking_url") or skills.booking_url
    return CallToAction(label=label, url=url)


@timed
async def finalize(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Close the turn: remember the reply, advance the turn, keep the window bounded."""
    answer = state.get("answer") or ""
    messages = state["messages"]
    keep = 2 * runtime.context.context_window_turns
    # The full transcript lives in the app store; the checkpoint keeps a bounded window.
    evict = [RemoveMessage(id=m.id) for m in messages[: max(0, len(messages) + 1 - keep)] if m.id]
    return {
        "messages": [*evict, AIMessage(content=answer)],
        "turn_number": turn_of(state) + 1,
        "cta": call_to_action(state, runtime),
    }
