"""The conversation graph: every node and edge in one place (the docs diagram is drawn
from this module by `frontdesk graph`).

Nodes are stages (`nodes/stages.py`): each runs a fixed sequence of the seed's steps. A
turn is two supersteps — the background starters alongside `understand`, then the stage
of the route the deterministic intent router chose — so the one conditional edge here is
the seed's routing table. The diagram lists every stage's steps.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Checkpointer

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.analysis import route_by_intent
from frontdesk.conversation.nodes.stages import (
    STAGE_STEPS,
    answer_path,
    booking_path,
    handoff_path,
    redirect_path,
    start_background,
    understand,
)
from frontdesk.conversation.state import ChatState

# A node whose only successor is END: state written "as" it leaves no step pending (the
# eval replay records its injected history this way).
FINISHED_TURN_NODE = "answer_path"


def build_graph() -> StateGraph[ChatState, TurnContext, Any, Any]:
    graph = StateGraph(ChatState, context_schema=TurnContext)
    for stage in (
        start_background,
        understand,
        answer_path,
        redirect_path,
        booking_path,
        handoff_path,
    ):
        graph.add_node(stage, metadata={"steps": STAGE_STEPS[stage.__name__]})

    # Deferred execution: background work fires at START, alongside the analysis; the
    # ANSWER path awaits it, the other paths had it cancelled by `understand`.
    graph.add_edge(START, "start_background")
    graph.add_edge("start_background", END)
    graph.add_edge(START, "understand")
    graph.add_conditional_edges("understand", route_by_intent)
    for path in ("answer_path", "redirect_path", "booking_path", "handoff_path"):
        graph.add_edge(path, END)
    return graph


def compile_graph(checkpointer: Checkpointer = None) -> Any:
    return build_graph().compile(checkpointer=checkpointer, name="frontdesk")


def mermaid() -> str:
    """The diagram of the graph, generated from the code above."""
    text: str = compile_graph().get_graph().draw_mermaid()
    return text
