"""An operator's draft during a live takeover ("Suggest answer"): the visitor's last
question read exactly as the assistant reads it when it answers — the search with the
conversation's history, the site's facts first (hours, phone, the price of a named
service…), then graded passages, a retry, team answers, the writer reading by meaning —
in the conversation's language and the site's register.

It is a graph of the conversation graph's own nodes, from the search to the writer, with
no checkpointer: nothing is stored, sent or handed off. Where the answer path would ask
back or offer a person, the draft ends empty and the operator is told nothing fits.
"""

from __future__ import annotations

from functools import cache
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

from frontdesk.conversation import routes
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.graph import ChatGraph, CompiledChatGraph
from frontdesk.conversation.nodes.analysis import reply_language
from frontdesk.conversation.nodes.answer import answer_writer, grade_docs, retry_retrieval
from frontdesk.conversation.nodes.background import retrieval_awaiter
from frontdesk.conversation.nodes.facts import fact_answer_writer, match_facts
from frontdesk.conversation.nodes.team import team_answer_writer
from frontdesk.conversation.state import ChatState, TurnValues
from frontdesk.sites.schema import SiteConfig


def build_draft_graph() -> ChatGraph:
    graph: ChatGraph = StateGraph(ChatState, context_schema=TurnContext)
    for node in (
        retrieval_awaiter,
        match_facts,
        fact_answer_writer,
        grade_docs,
        retry_retrieval,
        team_answer_writer,
        answer_writer,
    ):
        graph.add_node(node.__name__, node)
    graph.add_edge(START, "retrieval_awaiter")
    graph.add_edge("retrieval_awaiter", "match_facts")
    graph.add_conditional_edges("match_facts", routes.after_match_facts)
    graph.add_conditional_edges("grade_docs", routes.draft_gate)
    graph.add_edge("retry_retrieval", "grade_docs")
    for writer in ("fact_answer_writer", "team_answer_writer", "answer_writer"):
        graph.add_edge(writer, END)
    return graph


def compile_draft_graph() -> CompiledChatGraph:
    return build_draft_graph().compile(name="frontdesk-draft")


class DraftSource(TypedDict):
    title: str
    url: str


class DraftReply(TypedDict):
    """A suggested answer for an operator (empty `draft`: nothing fits), its language and
    the pages it rests on."""

    draft: str
    language: str
    sources: list[DraftSource]


@cache
def _draft_graph() -> CompiledChatGraph:
    return compile_draft_graph()  # no checkpointer: one for the process


async def draft_reply(
    conversation: TurnValues, question: str, site: SiteConfig, ctx: TurnContext
) -> DraftReply:
    """The draft for `question` in a conversation whose state is `conversation`: in its
    language, from the site's facts or its pages. An empty `draft`: nothing fits."""
    language = await reply_language(
        question, conversation.get("language"), list(site.languages), site.default_language
    )
    drafted = await _draft_graph().ainvoke(
        {
            "input": question,
            "messages": list(conversation.get("messages") or []),
            "language": language,
            "retries": 0,
        },
        context=ctx,
    )
    citations = drafted.get("citations") or []
    found = bool(citations) or bool(drafted.get("fact_reply"))
    return {
        "draft": str(drafted.get("answer") or "").strip() if found else "",
        "language": language,
        "sources": [{"title": c["title"], "url": c["url"]} for c in citations],
    }
