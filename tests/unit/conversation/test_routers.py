"""Every router of the graph, as a table: each branch of its `Literal`, and the raise.

The tables are checked against the routers' own return annotations, so a new branch
without a row fails here.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import pytest

from frontdesk.conversation import outcomes, routes
from frontdesk.conversation.state import ChatState

pytestmark = pytest.mark.unit

Router = Callable[[ChatState], str]


def state(**values: Any) -> ChatState:
    return typing.cast(ChatState, {"messages": [], "input": "hello", **values})


EVALUATED = {"quality": 1.0, "relevance": 1.0, "coverage": "full", "reasoning": ""}


def passage(doc_id: str, source: str, score: float) -> dict[str, Any]:
    return {
        "chunk_id": f"{doc_id}#0",
        "doc_id": doc_id,
        "title": "t",
        "url": "",
        "content": "- Q?\n\nA.",
        "score": score,
        "source": source,
        "chunk_index": 0,
    }


# A team answer above the threshold that no page beats clearly.
TEAM_HIT = {
    "status": "ok",
    "threshold": 0.8,
    "chunks": [passage("team:1:en", "team:1", 0.9), passage("faq", "faq.md", 0.89)],
}
PAGE_WINS = {**TEAM_HIT, "chunks": [passage("faq", "faq.md", 0.95), *TEAM_HIT["chunks"][:1]]}

TABLES: dict[Router, list[tuple[dict[str, Any], str]]] = {
    routes.after_abuse_gate: [
        ({}, "detect_language"),
        ({"block": None}, "detect_language"),
        ({"block": "hack"}, "__end__"),
        ({"block": "spam"}, "__end__"),
        ({"block": "length"}, "__end__"),
        # Live takeover: a person owns the conversation, the bot stays silent.
        ({"live_owner": "human"}, "human_relay"),
        ({"live_owner": "bot"}, "detect_language"),
        ({"live_owner": "waiting"}, "detect_language"),  # still the bot's until someone joins
        ({"live_owner": "closed"}, "detect_language"),
        ({"live_owner": "human", "block": "spam"}, "__end__"),  # the abuse gate still rules
    ],
    routes.after_skill_selector: [
        ({"intent": {"label": "OFFTOPIC", "confidence": 0.9}}, "site_support_check"),
        ({"intent": {"label": "OFFTOPIC", "nonsense": True}}, "intent_router"),
        ({"intent": {"label": "OTHER", "confidence": 0.9}}, "intent_router"),
        ({"intent": {"label": "OTHER"}, "input": "thanks, that helps"}, "intent_router"),
        ({"intent": {"label": "STOP_BOOKING"}, "input": "no thanks"}, "intent_router"),
        # a statement about something (a help-centre visitor writing a title) is checked
        (
            {"intent": {"label": "OTHER"}, "input": "Encrypting gmail messages."},
            "site_support_check",
        ),
        (
            {"intent": {"label": "STOP_BOOKING"}, "input": "Загрузка видео завершена, а его нет"},
            "site_support_check",
        ),
        ({"intent": {"label": "OTHER"}, "input": "Do you speak English?"}, "site_support_check"),
        (
            {"intent": {"label": "STOP_BOOKING"}, "input": "Why was it refused?"},
            "site_support_check",
        ),
        ({"intent": {"label": "BOOKING"}, "input": "How do I get the link?"}, "intent_router"),
        ({"intent": {"label": "OTHER", "nonsense": True}, "input": "asdf?"}, "intent_router"),
        # decided before the content has a say: the fast path cancels the search
        (
            {
                "intent": {"label": "OTHER"},
                "input": "Can I talk to a real person please?",
                "qualification": {"explicit_human_request": True},
            },
            "intent_router",
        ),
        (
            {"intent": {"label": "OTHER", "high_stakes": True}, "input": "Is it refunded?"},
            "intent_router",
        ),
        (
            {"intent": {"label": "OTHER"}, "input": "Why?", "booking": {"status": "collecting"}},
            "intent_router",
        ),
        ({"intent": {"label": "LEARN", "confidence": 0.9}}, "intent_router"),
        ({"intent": {"label": "HACK", "confidence": 0.9}}, "intent_router"),
    ],
    routes.route_by_intent: [
        ({"route": "ANSWER"}, "enricher_awaiter"),
        ({"route": "REDIRECT"}, "redirect_handler"),
        ({"route": "BOOKING"}, "booking_handler"),
        ({"route": "HANDOFF"}, "propose_handoff"),
        (
            {"route": "ANSWER", "team_recall": {"name": "Jana", "text": "Try the trial."}},
            "team_recall_writer",
        ),
        ({"route": "REDIRECT", "team_recall": None}, "redirect_handler"),
    ],
    routes.after_match_facts: [
        ({}, "grade_docs"),
        ({"fact_reply": None}, "grade_docs"),
        (
            {"fact_reply": {"kind": "phone", "days": [], "facts": [{"kind": "phone"}]}},
            "fact_answer_writer",
        ),
    ],
    routes.relevance_gate: [
        ({"retrieval": TEAM_HIT, "graded_chunks": [], "retries": 0}, "team_answer_writer"),
        ({"retrieval": TEAM_HIT, "language": "en", "graded_chunks": []}, "team_answer_writer"),
        # Only an English team answer for a Spanish question: the usual path.
        ({"retrieval": TEAM_HIT, "language": "es", "graded_chunks": []}, "retry_retrieval"),
        ({"retrieval": PAGE_WINS, "graded_chunks": [{"chunk_id": "c1"}]}, "answer_writer"),
        ({"retrieval": {"status": "no_result"}, "graded_chunks": []}, "retry_retrieval"),
        ({"graded_chunks": [{"chunk_id": "c1"}], "retries": 0}, "answer_writer"),
        ({"graded_chunks": [{"chunk_id": "c1"}], "retries": 1}, "answer_writer"),
        ({"graded_chunks": [], "retries": 0}, "retry_retrieval"),
        ({}, "retry_retrieval"),
        ({"graded_chunks": [], "retries": 1}, "clarify_handler"),
        # A high-stakes matter the documentation has nothing on goes to a person.
        ({"graded_chunks": [], "retries": 1, "route_reason": "high_stakes"}, "propose_handoff"),
    ],
    routes.after_answer_writer: [
        ({"route": "ANSWER", "answer": "Yes [1]."}, "verify_facts"),
        (
            {"route": "HANDOFF", "route_reason": "llm_failure", "writer_failed": True},
            "propose_handoff",
        ),
    ],
    routes.route_or_retry: [
        ({"evaluation": {**EVALUATED, "after": "auto"}, "routing": "answered"}, "stall_check"),
        # A high-stakes answer always ends with a person (offered, or the escalation).
        (
            {
                "evaluation": {**EVALUATED, "after": "auto"},
                "routing": "answered",
                "route_reason": "high_stakes",
            },
            "propose_handoff",
        ),
        (
            {"evaluation": {**EVALUATED, "after": "auto"}, "routing": "low_confidence"},
            "offer_human",
        ),
        (
            {"evaluation": {**EVALUATED, "after": "auto"}, "routing": "partially_answered"},
            "offer_human",
        ),
        (
            {"evaluation": {**EVALUATED, "after": "human"}, "routing": "cannot_answer"},
            "offer_human",
        ),
        (
            {"evaluation": {**EVALUATED, "after": "error"}, "routing": "cannot_answer"},
            "offer_human",
        ),
    ],
    routes.after_stall_check: [
        ({"route": "ANSWER", "stall": True, "routing": "answered"}, "propose_handoff"),
        # A clarifying question or a partial answer already offered a person.
        ({"route": "ANSWER", "stall": True, "routing": "followup"}, "dialog_state_extractor"),
        (
            {"route": "ANSWER", "stall": True, "routing": "partially_answered"},
            "dialog_state_extractor",
        ),
        ({"route": "ANSWER", "stall": False, "routing": "answered"}, "skill_ending_writer"),
        ({"route": "ANSWER", "stall": False, "routing": "followup"}, "dialog_state_extractor"),
        ({"route": "REDIRECT", "stall": True, "routing": "irrelevant"}, "dialog_state_extractor"),
        ({"route": "BOOKING", "stall": False, "routing": "answered"}, "dialog_state_extractor"),
    ],
    routes.suggestion_router: [
        ({"route": "REDIRECT", "suggested_follow_ups": ["What do you do?"]}, "finalize"),
        ({"route": "ANSWER", "answer": "Shall I book it?"}, "answer_suggester"),
        ({"route": "BOOKING", "answer": "What's your work email? 💌"}, "answer_suggester"),
        ({"route": "ANSWER", "answer": "Want a demo? 👇"}, "answer_suggester"),
        ({"route": "ANSWER", "answer": "We ship weekly [1]."}, "follow_up_suggester"),
        ({"route": "HANDOFF", "answer": "A colleague will write to you."}, "finalize"),
        (
            {"route": "REDIRECT", "route_reason": "greeting", "answer": "Hi! How can I help?"},
            "finalize",
        ),
        (
            {"route": "REDIRECT", "route_reason": "stop_booking", "answer": "Anything else?"},
            "answer_suggester",
        ),
    ],
}

RAISES: list[tuple[Router, dict[str, Any], str]] = [
    (routes.after_abuse_gate, {"block": "rude"}, "unknown block"),
    (routes.after_abuse_gate, {"live_owner": "robot"}, "unknown conversation owner"),
    (routes.after_skill_selector, {}, "no intent"),
    (routes.route_by_intent, {}, "unknown route"),
    (routes.route_by_intent, {"route": "DANCE"}, "unknown route"),
    (
        routes.after_match_facts,
        {"fact_reply": {"kind": "hours", "days": [5], "facts": []}},
        "without facts",
    ),
    (routes.relevance_gate, {"graded_chunks": [], "retries": 2}, "retries out of range"),
    (routes.relevance_gate, {"graded_chunks": [], "retries": -1}, "retries out of range"),
    (routes.after_answer_writer, {"route": "REDIRECT"}, "unexpected route"),
    (routes.route_or_retry, {"routing": "answered"}, "unknown evaluation outcome"),
    (
        routes.route_or_retry,
        {"evaluation": {**EVALUATED, "after": "maybe"}},
        "unknown evaluation outcome",
    ),
    (routes.after_stall_check, {"route": None}, "unknown route"),
    (routes.suggestion_router, {"route": "LATER"}, "unknown route"),
]


def branches(router: Router) -> set[str]:
    """The node names a router may return, read from its `Literal` annotation."""
    return set(typing.get_args(typing.get_type_hints(router)["return"]))


@pytest.mark.parametrize(
    ("router", "values", "expected"),
    [(router, values, expected) for router, rows in TABLES.items() for values, expected in rows],
    ids=lambda item: getattr(item, "__name__", None),
)
def test_router_table(router: Router, values: dict[str, Any], expected: str) -> None:
    assert router(state(**values)) == expected


@pytest.mark.parametrize("router", list(TABLES), ids=lambda router: router.__name__)
def test_every_branch_has_a_row(router: Router) -> None:
    assert {expected for _, expected in TABLES[router]} == branches(router)


@pytest.mark.parametrize(
    ("router", "values", "message"), RAISES, ids=lambda item: getattr(item, "__name__", None)
)
def test_router_raises_on_an_unknown_state(
    router: Router, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        router(state(**values))


def test_every_router_of_the_graph_has_a_table() -> None:
    from frontdesk.conversation.graph import compile_graph

    wired = {
        branch.path.func  # type: ignore[attr-defined]
        for node_branches in compile_graph().builder.branches.values()
        for branch in node_branches.values()
    }
    assert wired == set(TABLES)
    assert {router for router, _, _ in RAISES} == set(TABLES)


@pytest.mark.parametrize(
    ("in_hours", "online", "expected"),
    [
        (True, 1, "ring"),
        (True, 3, "ring"),
        (True, 0, "no_operator"),
        (False, 2, "after_hours"),
        (False, 0, "after_hours"),
    ],
)
def test_live_handoff_route(in_hours: bool, online: int, expected: str) -> None:
    decided = outcomes.live_handoff_route(in_hours=in_hours, operators_online=online)
    assert decided == expected
    assert decided in typing.get_args(outcomes.LiveHandoff)
