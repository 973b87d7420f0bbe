"""The graph's shape: every conversation step is a node, and the docs' diagram is the one
the code draws (`frontdesk graph`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from frontdesk.conversation.graph import compile_graph, mermaid

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "architecture.md"

SPECIFIED_NODES = {
    "abuse_gate",
    "detect_language",
    "retrieval_task_starter",
    "enricher_task_starter",
    "visitor_profile_task_starter",
    "intent_classifier",
    "signals_detector",
    "skill_selector",
    "site_support_check",
    "intent_router",
    "enricher_awaiter",
    "visitor_profile_awaiter",
    "retrieval_awaiter",
    "skill_applier",
    # A question about a fact the site states is answered from its facts.
    "match_facts",
    "fact_answer_writer",
    "grade_docs",
    "retry_retrieval",
    "team_answer_writer",  # a team answer given as written
    "answer_writer",
    "verify_facts",
    "evaluate_answer",
    "offer_human",
    "clarify_handler",
    "redirect_handler",
    "booking_handler",
    "propose_handoff",
    "stall_check",
    "skill_ending_writer",
    "dialog_state_extractor",
    "form_field_extractor",
    "answer_suggester",
    "follow_up_suggester",
    "finalize",
    # Live takeover: the turn of a conversation a person owns.
    "human_relay",
    # After a takeover: what a named team member said, quoted as theirs.
    "team_recall_writer",
}


def test_every_conversation_step_is_a_langgraph_node() -> None:
    nodes = set(compile_graph().get_graph().nodes) - {"__start__", "__end__"}
    assert nodes == SPECIFIED_NODES
    assert len(nodes) >= 25


def test_the_docs_diagram_is_the_generated_one() -> None:
    found = re.search(r"## Diagram\n.*?```mermaid\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert found, "docs/architecture.md has no ## Diagram mermaid block"
    assert found.group(1) == mermaid(), (
        "the committed diagram is stale: regenerate it with "
        "`frontdesk graph` and paste it under ## Diagram in docs/architecture.md"
    )


def test_the_architecture_page_names_every_top_level_package() -> None:
    package = REPO / "src" / "frontdesk"
    names = {
        f"`{path.name}/`" if path.is_dir() else f"`{path.name}`"
        for path in package.iterdir()
        if not path.name.startswith("_")
        and (path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists()))
    }
    page = DOC.read_text("utf-8")
    assert [name for name in sorted(names) if name not in page] == []
