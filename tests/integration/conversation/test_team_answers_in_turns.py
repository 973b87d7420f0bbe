"""Team answers in whole turns through the real graph (local engine, demo knowledge base):
a matching team answer is given word for word and cited as the team's, through
`team_answer_writer`; a Spanish question does not get the English version; once retired
the turn takes the usual path again."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select

from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.improvement.team_answers import TeamAnswerVersion
from frontdesk.improvement.team_service import reindex
from frontdesk.store.models import Trace

pytestmark = pytest.mark.integration

QUESTION = "Do you offer a discount for nonprofit organisations?"
ANSWER = "Yes. Registered nonprofits get 30 % off every plan: write to us to apply it."
ANSWER_ID = "nonprofit"


async def ask(service: ChatService, text: str) -> TurnResult:
    site = service.runtime.site("demo")
    return await service.ask(site, str(uuid.uuid4()), text, VisitorContext())


def nodes_of(service: ChatService, result: TurnResult) -> list[str]:
    with service.runtime.sessions() as session:
        trace = session.scalars(select(Trace).where(Trace.session_id == result.session_id)).one()
        return [str(node.get("node")) for node in trace.nodes]


async def test_a_team_answer_is_given_as_written_then_retired(service: ChatService) -> None:
    site = service.runtime.site("demo").config
    english = TeamAnswerVersion("en", (QUESTION, "Is there nonprofit pricing?"), ANSWER)
    reindex(service.knowledge, site, ANSWER_ID, [english], active=True)

    result = await ask(service, QUESTION)
    assert result.answer == f"{ANSWER} [1]" or result.answer.startswith(f"{ANSWER} [1]")
    assert result.routing == "answered"
    [citation] = result.citations
    assert citation.title == "Answer from the Tessellate team"
    assert citation.doc_id == f"team:{ANSWER_ID}:en"
    assert "team_answer_writer" in nodes_of(service, result)
    assert "answer_writer" not in nodes_of(service, result)

    # A paraphrase finds it too.
    paraphrase = await ask(service, "Is there special pricing for non-profits?")
    print("paraphrase:", paraphrase.answer[:120])
    assert ANSWER in paraphrase.answer

    # Spanish: the English text is never handed over word for word.
    spanish = await ask(service, "¿Ofrecen descuento para organizaciones sin ánimo de lucro?")
    print("spanish:", spanish.answer[:160])
    assert ANSWER not in spanish.answer

    reindex(service.knowledge, site, ANSWER_ID, [english], active=False)
    retired = await ask(service, QUESTION)
    assert ANSWER not in retired.answer
    assert all(not c.doc_id.startswith("team:") for c in retired.citations)
