"""The graph's nodes: stages that run the seed's steps in order (see `conversation.steps`).

Each stage lists its steps in `STAGE_STEPS` (drawn in the diagram); a step is one of the
seed's nodes, a function `(state, runtime) -> partial update`, timed on its own for traces.
Decisions *between* stages are graph edges (`graph.py`); decisions inside a stage use the
same pure routers, so every path of the seed's graph is still one path here.
"""

from __future__ import annotations

from typing import Literal

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
from frontdesk.conversation.nodes.handlers import propose_handoff
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

STAGE_STEPS: dict[str, str] = {
    "start_background": "retrieval ‖ enrichment ‖ visitor profile task starters",
    "understand": "system_router → intent_classifier ‖ signals_detector → skill_selector → "
    "intent_router",
    "gather_context": "enricher_awaiter → visitor_profile_awaiter → skill_applier → "
    "retrieval_awaiter → grade_docs (→ retry_retrieval → grade_docs)",
    "check_answer": "verify_facts → evaluate_answer → route_or_retry (→ offer_human)",
    "close_turn": "stall_check (→ propose_handoff | skill_ending_writer) → dialog_state_extractor"
    " → form_field_extractor → suggestion_router → answer/follow_up suggester → finalize",
    "after_handoff": "dialog_state_extractor → form_field_extractor → suggestion_router → "
    "answer/follow_up suggester → finalize",
}


async def start_background(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Deferred execution (seed 000): fire retrieval, enrichment, profiling; return at once."""
    steps = Steps(state, runtime)
    for starter in (retrieval_task_starter, enricher_task_starter, visitor_profile_task_starter):
        await steps.run(starter)
    return steps.update


async def understand(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Language, then intent and signals in parallel, then skills, then the route."""
    steps = Steps(state, runtime)
    await steps.run(system_router)
    await steps.parallel(intent_classifier, signals_detector)
    await steps.run(skill_selector)
    await steps.run(intent_router)
    if steps.state.get("route") != "ANSWER":
        # Nothing on this path reads the background work: stop it before it costs a search.
        runtime.context.cancel_pending()
    return steps.update


async def gather_context(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """ANSWER only: collect the background work, apply skills, grade; retry once if empty."""
    steps = Steps(state, runtime)
    for step in (enricher_awaiter, visitor_profile_awaiter, skill_applier, retrieval_awaiter):
        await steps.run(step)
    await steps.run(grade_docs)
    while relevance_gate(steps.state, runtime) == "retry_retrieval":
        await steps.run(retry_retrieval)
        await steps.run(grade_docs)
    return steps.update


def after_gather(
    state: ChatState, runtime: Runtime[TurnContext]
) -> Literal["answer_writer", "clarify_handler"]:
    """Seed 003 relevance gate: something relevant → write; nothing after the retry → ask."""
    if relevance_gate(state, runtime) == "answer_writer":
        return "answer_writer"
    return "clarify_handler"


async def check_answer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Claim verification and self-evaluation; anything short of a full answer offers a human."""
    steps = Steps(state, runtime)
    await steps.run(verify_facts)
    await steps.run(evaluate_answer)
    if route_or_retry(steps.state) == "offer_human":
        await steps.run(offer_human)
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


async def close_turn(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Stall check and the reply's ending, then markers, suggestions and the final payload."""
    steps = Steps(state, runtime)
    await steps.run(stall_check)
    match after_stall_check(steps.state):
        case "propose_handoff":
            await steps.run(propose_handoff)
        case "skill_ending_writer":
            await steps.run(skill_ending_writer)
        case "dialog_state_extractor":
            pass
    await _post_process(steps)
    return steps.update


async def after_handoff(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """A handoff proposal is its own ending: no stall check, straight to post-processing."""
    steps = Steps(state, runtime)
    await _post_process(steps)
    return steps.update
