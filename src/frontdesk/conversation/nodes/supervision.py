"""Dialog supervision after the reply: emoji markers, captured emails, profiling answers
(dialog state and form field extraction, the marker protocol)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.markers import dialog_state_update, form_field_update
from frontdesk.conversation.nodes.common import Update, timed
from frontdesk.conversation.state import ChatState, turn_of, visitor_email


@timed
async def dialog_state_extractor(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """👉 profiling question, 👇 demo proposal, 💌 email request, and emails from the visitor."""
    update = dialog_state_update(
        state.get("answer") or "",
        turn_number=turn_of(state),
        user_message=state["input"],
        previous=state.get("dialog_supervision"),
        forms=runtime.context.site.qualification.forms,
    )
    return {"dialog_supervision": update}


@timed
async def form_field_extractor(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The answer to last turn's 👉 question goes to its form field; fields feed the CTA URL."""
    found = form_field_update(
        state["input"],
        turn_number=turn_of(state),
        dialog_supervision=state.get("dialog_supervision"),
        form_collection=state.get("form_collection"),
        booking_url=runtime.context.site.skills.booking_url,
        email=visitor_email(state),
        forms=runtime.context.site.qualification.forms,
    )
    update: Update = {}
    if found.form_collection:
        update["form_collection"] = found.form_collection
    if found.cta_url_overrides:
        update["cta_url_overrides"] = found.cta_url_overrides
    return update
