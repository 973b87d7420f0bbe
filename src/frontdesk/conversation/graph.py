"""The conversation graph: every node and edge in one place. Nodes are the turn's steps
(`nodes/`), decisions are the routers of `routes.py`, and the docs' diagram is drawn
from this module by `frontdesk graph`.

A turn, in LangGraph's own supersteps:

- `abuse_gate` (a blocked turn ends here; while a person owns the conversation,
  `human_relay` passes the message to them and the turn ends), then `detect_language`;
- deferred execution: the three task starters fire retrieval, enrichment
  and profiling and return at once, beside `intent_classifier` ‖ `signals_detector`;
- `skill_selector` → (`site_support_check`, for an everyday request or small talk: the
  site's own content decides whether it is on-topic) → `intent_router`, whose route picks
  the path. Only the ANSWER path
  awaits the background work; the others have it cancelled by `intent_router`;
- every path closes through `stall_check` (except a handoff, its own ending) and the
  post-processing nodes, down to `finalize`.
"""

from __future__ import annotations

from itertools import pairwise

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from frontdesk.conversation import routes
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.analysis import (
    detect_language,
    intent_classifier,
    intent_router,
    signals_detector,
    skill_selector,
)
from frontdesk.conversation.nodes.answer import (
    answer_writer,
    clarify_handler,
    evaluate_answer,
    grade_docs,
    offer_human,
    retry_retrieval,
    skill_applier,
    verify_facts,
)
from frontdesk.conversation.nodes.background import (
    enricher_awaiter,
    enricher_task_starter,
    retrieval_awaiter,
    retrieval_task_starter,
    site_support_check,
    visitor_profile_awaiter,
    visitor_profile_task_starter,
)
from frontdesk.conversation.nodes.facts import fact_answer_writer, match_facts
from frontdesk.conversation.nodes.gate import abuse_gate
from frontdesk.conversation.nodes.handlers import booking_handler, propose_handoff, redirect_handler
from frontdesk.conversation.nodes.live import human_relay
from frontdesk.conversation.nodes.post import (
    answer_suggester,
    finalize,
    follow_up_suggester,
    stall_check,
)
from frontdesk.conversation.nodes.skills import skill_ending_writer
from frontdesk.conversation.nodes.supervision import dialog_state_extractor, form_field_extractor
from frontdesk.conversation.nodes.team import team_answer_writer, team_recall_writer
from frontdesk.conversation.state import ChatState, ChatUpdate, TurnValues

# The last node of every turn: state written "as" it leaves nothing pending (the eval
# replay records its injected history this way).
FINISHED_TURN_NODE = "finalize"

TASK_STARTERS = (retrieval_task_starter, enricher_task_starter, visitor_profile_task_starter)
ANALYSIS = (intent_classifier, signals_detector)
NODES = (
    abuse_gate,
    human_relay,
    detect_language,
    *TASK_STARTERS,
    *ANALYSIS,
    skill_selector,
    site_support_check,
    intent_router,
    # ANSWER
    enricher_awaiter,
    visitor_profile_awaiter,
    skill_applier,
    retrieval_awaiter,
    match_facts,
    fact_answer_writer,
    grade_docs,
    retry_retrieval,
    team_answer_writer,
    team_recall_writer,
    answer_writer,
    verify_facts,
    evaluate_answer,
    offer_human,
    clarify_handler,
    # REDIRECT, BOOKING, HANDOFF
    redirect_handler,
    booking_handler,
    propose_handoff,
    # closing and post-processing
    stall_check,
    skill_ending_writer,
    dialog_state_extractor,
    form_field_extractor,
    answer_suggester,
    follow_up_suggester,
    finalize,
)


# The turn's graph: its state is `ChatState`, its nodes get a `TurnContext`; a turn goes
# in as a partial state (the message, the input) and leaves as the state's values.
ChatGraph = StateGraph[ChatState, TurnContext, ChatUpdate, TurnValues]
CompiledChatGraph = CompiledStateGraph[ChatState, TurnContext, ChatUpdate, TurnValues]


def _chain(graph: ChatGraph, *names: str) -> None:
    for source, target in pairwise(names):
        graph.add_edge(source, target)


def build_graph() -> ChatGraph:
    graph: ChatGraph = StateGraph(ChatState, context_schema=TurnContext)
    for node in NODES:
        graph.add_node(node.__name__, node)

    graph.add_edge(START, "abuse_gate")
    graph.add_conditional_edges("abuse_gate", routes.after_abuse_gate)
    graph.add_edge("human_relay", END)  # a person owns the conversation: no bot answer
    # Fan out: background work starts beside the classifiers; the starters end their
    # branch at once, the classifiers join at skill_selector.
    for first in (*TASK_STARTERS, *ANALYSIS):
        graph.add_edge("detect_language", first.__name__)
    for starter in TASK_STARTERS:
        graph.add_edge(starter.__name__, END)
    graph.add_edge([classifier.__name__ for classifier in ANALYSIS], "skill_selector")
    # Off-topic needs two signals: the classifier's and no support in the site's content.
    graph.add_conditional_edges("skill_selector", routes.after_skill_selector)
    graph.add_edge("site_support_check", "intent_router")
    graph.add_conditional_edges("intent_router", routes.route_by_intent)

    # ANSWER: collect the background work, grade, retry once, write and check.
    _chain(
        graph,
        "enricher_awaiter",
        "visitor_profile_awaiter",
        "skill_applier",
        "retrieval_awaiter",
        "match_facts",
    )
    # A question about one of the site's facts is answered from them, cited to the page.
    graph.add_conditional_edges("match_facts", routes.after_match_facts)
    graph.add_conditional_edges("grade_docs", routes.relevance_gate)
    graph.add_edge("retry_retrieval", "grade_docs")
    graph.add_conditional_edges("answer_writer", routes.after_answer_writer)
    graph.add_edge("verify_facts", "evaluate_answer")
    graph.add_conditional_edges("evaluate_answer", routes.route_or_retry)
    # A team answer is the team's own words, a fact answer the site's own facts: no claim
    # check or self-critique after them.
    replies = ("offer_human", "clarify_handler", "redirect_handler", "booking_handler")
    for reply in (*replies, "team_answer_writer", "team_recall_writer", "fact_answer_writer"):
        graph.add_edge(reply, "stall_check")

    # Closing: stall offer or the skill's ending, then markers, suggestions, finalize.
    graph.add_conditional_edges("stall_check", routes.after_stall_check)
    graph.add_edge("skill_ending_writer", "dialog_state_extractor")
    graph.add_edge("propose_handoff", "dialog_state_extractor")  # a handoff is its own ending
    graph.add_edge("dialog_state_extractor", "form_field_extractor")
    graph.add_conditional_edges("form_field_extractor", routes.suggestion_router)
    graph.add_edge("answer_suggester", "finalize")
    graph.add_edge("follow_up_suggester", "finalize")
    graph.add_edge("finalize", END)
    return graph


def compile_graph(checkpointer: Checkpointer = None) -> CompiledChatGraph:
    return build_graph().compile(checkpointer=checkpointer, name="frontdesk")


def mermaid() -> str:
    """The diagram of the graph, generated from the compiled graph above."""
    text: str = compile_graph().get_graph().draw_mermaid()
    return text
