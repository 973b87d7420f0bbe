"""The LLM engine writes a trust report's questions through the structured-call helper
(a scripted chat model stands in for the paid API); when a call fails, the local
generator makes up the shortfall so the report still has every kind of question."""

from __future__ import annotations

import pytest

from frontdesk.engines.llm.structured import StructuredCaller
from frontdesk.evals.trust import PageQuestions, UnansweredQuestions, make_questions
from frontdesk.evals.trust_questions import QuestionCounts, SourcePassage
from frontdesk.sites.schema import SiteConfig
from tests.support.scripted import ScriptedChatModel

pytestmark = pytest.mark.integration

PASSAGES = [
    SourcePassage("hours.md", "Opening hours", "# Opening hours\n\nThe shop opens at seven "
                  "every weekday and closes at six in the evening.", "en"),
    SourcePassage("flour.md", "Our flour", "# Our flour\n\nOur rye flour is stone-milled by "
                  "a family mill twenty miles north of the bakery.", "en"),
]  # fmt: skip
SITE = SiteConfig.model_validate(
    {
        "id": "bakery",
        "name": "Bakery",
        "widget": {"public_key": "pk_bakery_0000000001"},
        "business_hours": {"timezone": "UTC"},
    }
)
COUNTS = QuestionCounts(generated=2, unanswerable=2, off_topic=2)


def _caller(model: ScriptedChatModel) -> StructuredCaller:
    return StructuredCaller(model, method="function_calling", attempts=1, timeout_s=5)


async def test_the_model_writes_page_questions_and_unanswerable_ones() -> None:
    model = ScriptedChatModel(
        outcomes=[
            PageQuestions(reasoning="hours", questions=["When can I pick up bread?"]),
            PageQuestions(reasoning="flour", questions=["Where does your rye come from?"]),
            UnansweredQuestions(reasoning="gaps", questions=["Do you deliver to Oslo?",
                                                             "Is there a loyalty card?"]),
        ]
    )  # fmt: skip
    questions = await make_questions(PASSAGES, SITE, COUNTS, _caller(model))
    generated = [q for q in questions if q.kind == "generated"]
    assert {(q.method, q.doc_id) for q in generated} == {("llm", "hours.md"), ("llm", "flour.md")}
    assert [q.text for q in questions if q.kind == "unanswerable"] == [
        "Do you deliver to Oslo?",
        "Is there a loyalty card?",
    ]
    assert len([q for q in questions if q.kind == "off_topic"]) == 2
    page_prompt = model.seen[0][-1].content
    assert "Opening hours" in page_prompt or "Our flour" in page_prompt  # the page itself


async def test_a_failed_model_call_is_made_up_by_the_local_generator() -> None:
    model = ScriptedChatModel(outcomes=[TimeoutError("slow"), TimeoutError("slow"),
                                        TimeoutError("slow")])  # fmt: skip
    questions = await make_questions(PASSAGES, SITE, COUNTS, _caller(model))
    kinds = [q.kind for q in questions]
    assert kinds.count("generated") == 2 and kinds.count("unanswerable") == 2
    assert {q.method for q in questions if q.kind == "generated"} <= {"heading", "sentence"}
