"""The graph's nodes: stages that run the seed's steps in order (see `conversation.steps`).

Each stage lists its steps in `STAGE_STEPS` (drawn in the diagram); a step is one of the
seed's nodes, a function `(state, runtime) -> partial update`, timed on its own for traces.
A turn is two supersteps: background starters ‖ `understand`, then the stage of the route
the intent router chose (the graph's one decision edge, `graph.py`). Decisions inside a
stage use the seed's pure routers, so every path of the seed's graph is still one path
here — and each superstep LangGraph no longer runs saves ~0.7 ms of its bookkeeping.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.analysis import (
    intent_classifier,
    intent_router,
    signals_detector,
    skill_selector,
    system_router,
)
from frontdesk.conversation.nodes.answer import (
    answer_writer,
    clarify_handler,
    evaluate_answer,
    grade_docs,
    offer_human,
    relevance_gate,
    retry_retrieval,
    route_or_retry,
    skill_applier,
    verify_facts,
)
from frontdesk.conversation.nodes.background import (
    enricher_awaiter,
    enricher_task_starter,
    retrieval_awaiter,
    retrieval_task_starter,
    visitor_profile_awaiter,
    visitor_profile_task_starter,
)
from frontdesk.conversation.nodes.failure import after_answer_writer
from frontdesk.conversation.nodes.gate import abuse_gate, pending_block
from frontdesk.conversation.nodes.handlers import booking_handler, propose_handoff, redirect_handler
from frontdesk.conversation.nodes.post import (
    after_stall_check,
    answer_suggester,
    finalize,
    follow_up_suggester,
    stall_check,
    suggestion_router,
)
from frontdesk.conversation.nodes.skills import skill_ending_writer
from frontdesk.conversation.nodes.supervision import dialog_state_extractor, form_field_extractor
from frontdesk.conversation.state import ChatState
from frontdesk.conversation.steps import Steps, Update

# The diagram's shorthand (docs/conversation.md spells both out): CLOSE = stall_check
# (→ propose_handoff | skill_ending_writer) → POST; POST = dialog_state_extractor →
# form_field_extractor → suggestion_router → answer/follow_up suggester → finalize.
STAGE_STEPS: dict[str, str] = {
    "start_background": "retrieval ‖ enrichment ‖ visitor profile task starters",
    "understand": "abuse_gate (blocked: END) → system_router → intent_classifier ‖ "
    "signals_detector → skill_selector → intent_router",
    "answer_path": "enricher_awaiter → visitor_profile_awaiter → skill_applier → "
    "retrieval_awaiter → grade_docs (→ retry_retrieval → grade_docs) → answer_writer → "
    "verify_facts → evaluate_answer (→ offer_human) → CLOSE; nothing relevant: "
    "clarify_handler → CLOSE; writer failed: propose_handoff → POST",
    "redirect_path": "redirect_handler → CLOSE",
    "booking_path": "booking_handler → CLOSE",
    "handoff_path": "propose_handoff → POST",
}


async def start_background(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Deferred execution (seed 000): fire retrieval, enrichment, profiling; return at once."""
    steps = Steps(state, runtime)
    if pending_block(state, runtime)[0] is not None:
        return steps.update  # a blocked turn costs no retrieval
    for starter in (retrieval_task_starter, enricher_task_starter, visitor_profile_task_starter):
        await steps.run(starter)
    return steps.update


async def understand(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The abuse gate, language, intent ‖ signals, skills, then the route."""
    steps = Steps(state, runtime)
    await steps.run(abuse_gate)
    if steps.state.get("block"):
        return steps.update  # blocked: no analysis, no route (the turn ends here)
    await steps.run(system_router)
    await steps.parallel(intent_classifier, signals_detector)
    await steps.run(skill_selector)
    await steps.run(intent_router)
    if steps.state.get("route") != "ANSWER":
        # Nothing on this path reads the background work: stop it before it costs a search.
        runtime.context.cancel_pending()
    return steps.update


async def answer_path(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """ANSWER: collect the background work, grade (retry once if nothing is relevant), then
    write and check the answer — or ask a clarifying question when nothing is relevant."""
    steps = Steps(state, runtime)
    for step in (enricher_awaiter, visitor_profile_awaiter, skill_applier, retrieval_awaiter):
        await steps.run(step)
    await steps.run(grade_docs)
    while relevance_gate(steps.state, runtime) == "retry_retrieval":
        await steps.run(retry_retrieval)
        await steps.run(grade_docs)
    if relevance_gate(steps.state, runtime) == "clarify_handler":
        await steps.run(clarify_handler)
        await _close(steps)
        return steps.update
    await steps.run(answer_writer)
    match after_answer_writer(steps.state):
        case "propose_handoff":  # the writer failed: its own ending, like a handoff
            await steps.run(propose_handoff)
            await _post_process(steps)
            return steps.update
        case "check_answer":
            pass
    await steps.run(verify_facts)
    await steps.run(evaluate_answer)
    if route_or_retry(steps.state) == "offer_human":
        await steps.run(offer_human)
    await _close(steps)
    return steps.update


async def redirect_path(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """REDIRECT: a localized redirect (support, off-topic, nonsense, high stakes …)."""
    steps = Steps(state, runtime)
    await steps.run(redirect_handler)
    await _close(steps)
    return steps.update


async def booking_path(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """BOOKING: collect the e-mail, offer the booking link."""
    steps = Steps(state, runtime)
    await steps.run(booking_handler)
    await _close(steps)
    return steps.update


async def handoff_path(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """HANDOFF: the proposal is its own ending — no stall check, straight to post-processing."""
    steps = Steps(state, runtime)
    await steps.run(propose_handoff)
    await _post_process(steps)
    return steps.update


async def _post_process(steps: Steps) -> None:
    await steps.run(dialog_state_extractor)
    await steps.run(form_field_extractor)
    match suggestion_router(steps.state):
        case "answer_suggester":
            await steps.run(answer_suggester)
        case "follow_up_suggester":
            await steps.run(follow_up_suggester)
        case "finalize":
            pass
    await steps.run(finalize)


async def _close(steps: Steps) -> None:
    """Stall check and the reply's ending, then markers, suggestions and the final payload."""
    await steps.run(stall_check)
    match after_stall_check(steps.state):
        case "propose_handoff":
            await steps.run(propose_handoff)
        case "skill_ending_writer":
            await steps.run(skill_ending_writer)
        case "dialog_state_extractor":
            pass
    await _post_process(steps)
