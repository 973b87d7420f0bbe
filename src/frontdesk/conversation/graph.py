"""The conversation graph: every node and edge in one place (the docs diagram is drawn
from this module by `frontdesk graph`).

Nodes are stages (`nodes/stages.py`): each runs a fixed sequence of the seed's steps, and
each edge here is a decision between stages. The diagram lists every stage's steps.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Checkpointer

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.analysis import route_by_intent
from frontdesk.conversation.nodes.answer import answer_writer, clarify_handler
from frontdesk.conversation.nodes.failure import after_answer_writer
from frontdesk.conversation.nodes.handlers import booking_handler, propose_handoff, redirect_handler
from frontdesk.conversation.nodes.stages import (
    STAGE_STEPS,
    after_gather,
    after_handoff,
    check_answer,
    close_turn,
    gather_context,
    start_background,
    understand,
)
from frontdesk.conversation.state import ChatState


def build_graph() -> StateGraph[ChatState, TurnContext, Any, Any]:
    graph = StateGraph(ChatState, context_schema=TurnContext)
    for stage in (start_background, understand, gather_context, check_answer, close_turn):
        graph.add_node(stage, metadata={"steps": STAGE_STEPS[stage.__name__]})
    graph.add_node(after_handoff, metadata={"steps": STAGE_STEPS["after_handoff"]})

    # Deferred execution: background work fires at START, alongside the analysis.
    graph.add_edge(START, "start_background")
    graph.add_edge("start_background", END)
    graph.add_edge(START, "understand")
    graph.add_conditional_edges("understand", route_by_intent)

    # ANSWER: collect context and grade → write (streamed) → verify and evaluate.
    graph.add_node(answer_writer)
    graph.add_node(clarify_handler)
    graph.add_conditional_edges("gather_context", after_gather)
    graph.add_conditional_edges("answer_writer", after_answer_writer)
    graph.add_edge("check_answer", "close_turn")
    graph.add_edge("clarify_handler", "close_turn")

    # Fast paths: no awaiters; their background work was cancelled by `understand`.
    graph.add_node(redirect_handler)
    graph.add_node(booking_handler)
    graph.add_node(propose_handoff)
    graph.add_edge("redirect_handler", "close_turn")
    graph.add_edge("booking_handler", "close_turn")
    graph.add_edge("propose_handoff", "after_handoff")

    graph.add_edge("close_turn", END)
    graph.add_edge("after_handoff", END)
    return graph


def compile_graph(checkpointer: Checkpointer = None) -> Any:
    return build_graph().compile(checkpointer=checkpointer, name="frontdesk")


def mermaid() -> str:
    """The diagram of the graph, generated from the code above."""
    text: str = compile_graph().get_graph().draw_mermaid()
    return text
