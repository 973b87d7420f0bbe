"""One turn per route through the compiled graph, as LangGraph itself reports its nodes
(`stream_mode="updates"`): real SQLite checkpoints, the real local engine, the demo KB.

Nodes of one superstep finish in any order, so an expected path is a list whose items
are a node name or a set of nodes that run side by side.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.result import TURN_RESET
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.engines.base import AnswerRequest, WriterUnavailableError

pytestmark = pytest.mark.integration

Step = str | frozenset[str]

UNDERSTAND: list[Step] = [
    "abuse_gate",
    "detect_language",
    frozenset(
        {
            "retrieval_task_starter",
            "enricher_task_starter",
            "visitor_profile_task_starter",
            "intent_classifier",
            "signals_detector",
        }
    ),
    "skill_selector",
    "intent_router",
]
AWAIT_AND_GRADE: list[Step] = [
    "enricher_awaiter",
    "visitor_profile_awaiter",
    "skill_applier",
    "retrieval_awaiter",
    "match_facts",  # no fact of the site asked about: on to the pages
    "grade_docs",
]
POST: list[Step] = ["dialog_state_extractor", "form_field_extractor"]
# An everyday-sounding message waits for the site's content before it is routed.
UNDERSTAND_OFFTOPIC: list[Step] = [*UNDERSTAND[:-1], "site_support_check", "intent_router"]


class FailingWriter:
    """A writer whose provider fails after the first words reached the visitor."""

    translates = True

    async def write(self, request: AnswerRequest) -> AsyncIterator[str]:
        yield "Our plans "
        raise WriterUnavailableError("provider returned 503", partial="Our plans ")


async def run_turn(
    service: ChatService, message: str, *, failing_writer: bool = False
) -> list[str]:
    """The node names LangGraph reports for one fresh-session turn, in order."""
    site = service.runtime.site("demo")
    graph = await service.graph()
    ctx = service.context(site, VisitorContext())
    if failing_writer:
        ctx.engines = dataclasses.replace(ctx.engines, writer=FailingWriter())  # type: ignore[arg-type]
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id("demo", str(uuid.uuid4()))}}
    turn_input = {**TURN_RESET, "messages": [HumanMessage(content=message)], "input": message}
    nodes: list[str] = []
    try:
        async for update in graph.astream(
            turn_input, config, context=ctx, stream_mode="updates", durability="exit"
        ):
            nodes.extend(update)
    finally:
        ctx.cancel_pending()
    return nodes


def flatten(path: list[Step], actual: list[str]) -> list[str]:
    """`path` in the order `actual` ran each superstep's nodes (sets must match whole)."""
    expected: list[str] = []
    for step in path:
        if isinstance(step, str):
            expected.append(step)
        else:
            ran = actual[len(expected) : len(expected) + len(step)]
            assert set(ran) == step, f"superstep {sorted(step)} ran as {ran}"
            expected.extend(ran)
    return expected


@pytest.mark.parametrize(
    ("message", "path"),
    [
        pytest.param(
            "Do you support SAML single sign-on?",
            [
                *UNDERSTAND,
                *AWAIT_AND_GRADE,
                "answer_writer",
                "verify_facts",
                "evaluate_answer",
                "stall_check",
                "skill_ending_writer",
                *POST,
                "follow_up_suggester",
                "finalize",
            ],
            id="answer",
        ),
        pytest.param(
            "Does Tessellate integrate with Odoo?",
            [
                *UNDERSTAND,
                *AWAIT_AND_GRADE,
                "retry_retrieval",
                "grade_docs",
                "clarify_handler",
                "stall_check",
                *POST,
                "follow_up_suggester",
                "finalize",
            ],
            id="answer-retry-clarify",
        ),
        pytest.param(
            "What's the weather like in Paris today?",
            [*UNDERSTAND_OFFTOPIC, "redirect_handler", "stall_check", *POST, "finalize"],
            id="redirect",
        ),
        pytest.param(
            "When was Tessellate founded and by whom?",  # phrased like trivia, in the KB
            [
                *UNDERSTAND_OFFTOPIC,
                *AWAIT_AND_GRADE,
                "answer_writer",
                "verify_facts",
                "evaluate_answer",
                "stall_check",
                "skill_ending_writer",
                *POST,
                "follow_up_suggester",
                "finalize",
            ],
            id="offtopic-phrasing-supported-by-the-site",
        ),
        pytest.param(
            "I'd like to book a demo",
            [*UNDERSTAND, "booking_handler", "stall_check", *POST, "answer_suggester", "finalize"],
            id="booking",
        ),
        pytest.param(
            "I want to talk to a human please",
            [*UNDERSTAND, "propose_handoff", *POST, "finalize"],
            id="handoff",
        ),
        pytest.param("x" * 15_001, ["abuse_gate"], id="blocked"),
    ],
)
async def test_one_turn_per_route_runs_the_nodes_langgraph_reports(
    service: ChatService, message: str, path: list[Step]
) -> None:
    actual = await run_turn(service, message)
    assert actual == flatten(path, actual)


async def test_a_failed_writer_ends_in_a_handoff_offer(service: ChatService) -> None:
    actual = await run_turn(service, "Do you support SAML single sign-on?", failing_writer=True)
    path = [*UNDERSTAND, *AWAIT_AND_GRADE, "answer_writer", "propose_handoff", *POST, "finalize"]
    assert actual == flatten(path, actual)
