"""The conversation graph: every node and edge in one place (the docs diagram is drawn
from this module by `frontdesk graph`)."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Checkpointer

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.analysis import (
    agentic_system_entry,
    intent_classifier,
    intent_router,
    route_by_intent,
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
from frontdesk.conversation.nodes.supervision import (
    dialog_state_extractor,
    form_field_extractor,
)
from frontdesk.conversation.state import ChatState


def build_graph() -> StateGraph[ChatState, TurnContext, Any, Any]:
    graph = StateGraph(ChatState, context_schema=TurnContext)

    # Deferred execution: background work fires at START, alongside the router.
    for starter in (retrieval_task_starter, enricher_task_starter, visitor_profile_task_starter):
        graph.add_node(starter)
        graph.add_edge(START, starter.__name__)
        graph.add_edge(starter.__name__, END)

    # Analysis: intent and signals in parallel, then skills, then the deterministic router.
    graph.add_node(system_router)
    graph.add_node(agentic_system_entry)
    graph.add_node(intent_classifier)
    graph.add_node(signals_detector)
    graph.add_node(skill_selector)
    graph.add_node(intent_router)
    graph.add_edge(START, "system_router")
    graph.add_edge("system_router", "agentic_system_entry")
    graph.add_edge("agentic_system_entry", "intent_classifier")
    graph.add_edge("agentic_system_entry", "signals_detector")
    graph.add_edge(["intent_classifier", "signals_detector"], "skill_selector")
    graph.add_edge("skill_selector", "intent_router")
    graph.add_conditional_edges("intent_router", route_by_intent)

    # ANSWER: awaiters → skills → retrieval → grading and gates → writer → checks.
    for node in (
        enricher_awaiter,
        visitor_profile_awaiter,
        skill_applier,
        retrieval_awaiter,
        grade_docs,
        retry_retrieval,
        answer_writer,
        verify_facts,
        evaluate_answer,
        clarify_handler,
        offer_human,
    ):
        graph.add_node(node)
    graph.add_edge("enricher_awaiter", "visitor_profile_awaiter")
    graph.add_edge("visitor_profile_awaiter", "skill_applier")
    graph.add_edge("skill_applier", "retrieval_awaiter")
    graph.add_edge("retrieval_awaiter", "grade_docs")
    graph.add_conditional_edges("grade_docs", relevance_gate)
    graph.add_edge("retry_retrieval", "grade_docs")
    graph.add_conditional_edges("answer_writer", after_answer_writer)
    graph.add_edge("verify_facts", "evaluate_answer")
    graph.add_conditional_edges("evaluate_answer", route_or_retry)
    graph.add_edge("clarify_handler", "stall_check")
    graph.add_edge("offer_human", "stall_check")

    # Fast paths: no awaiters.
    graph.add_node(redirect_handler)
    graph.add_node(booking_handler)
    graph.add_node(propose_handoff)
    graph.add_edge("redirect_handler", "stall_check")
    graph.add_edge("booking_handler", "stall_check")
    graph.add_edge("propose_handoff", "dialog_state_extractor")

    # Post-processing.
    for node in (
        stall_check,
        skill_ending_writer,
        dialog_state_extractor,
        form_field_extractor,
        answer_suggester,
        follow_up_suggester,
        finalize,
    ):
        graph.add_node(node)
    graph.add_conditional_edges("stall_check", after_stall_check)
    graph.add_edge("skill_ending_writer", "dialog_state_extractor")
    graph.add_edge("dialog_state_extractor", "form_field_extractor")
    graph.add_conditional_edges("form_field_extractor", suggestion_router)
    graph.add_edge("answer_suggester", "finalize")
    graph.add_edge("follow_up_suggester", "finalize")
    graph.add_edge("finalize", END)
    return graph


def compile_graph(checkpointer: Checkpointer = None) -> Any:
    return build_graph().compile(checkpointer=checkpointer, name="frontdesk")


def mermaid() -> str:
    """The diagram of the graph, generated from the code above."""
    text: str = compile_graph().get_graph().draw_mermaid()
    return text
