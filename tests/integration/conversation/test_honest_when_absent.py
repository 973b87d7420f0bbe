"""A question the site does not answer is not answered with something else: on a small
English plumber's site (tests/fixtures/plumber: six HTML pages with a shared footer, no
opening hours) an FAQ heading "Do you give free estimates?" is no German Thursday, so
"When are you open?" gets "not found" and a person offered, never "Thursday: closed".
Through the real graph: real SQLite, the default multilingual embedder, the local engine."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.service import ChatService
from frontdesk.conversation.texts import say
from tests.support.site_chat import chat_service, ingested_site, site_turn

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "plumber"
SITE = """\
id: hartley
name: Hartley & Sons Plumbing
default_language: en
languages: [en, de]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_hartley_0001
business_hours:
  timezone: Europe/London
"""


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    async for chat in chat_service(ingested_site(tmp_path, SITE, FIXTURE)):
        yield chat


async def ask(service: ChatService, session: str, message: str) -> dict[str, Any]:
    return await site_turn(service, "hartley", session, message)


async def test_no_hours_are_made_up_from_an_faq_heading(service: ChatService) -> None:
    values = await ask(service, str(uuid.uuid4()), "When are you open?")
    answer = values["answer"]
    assert "Thursday" not in answer and "closed" not in answer, answer
    assert values.get("fact_reply") is None
    assert values["citations"] == []
    assert values["routing"] in ("cannot_answer", "followup")
    assert say("offer.human", "en") in answer or say("clarify", "en") == answer, answer


async def test_what_the_site_offers_is_still_answered_from_its_pages(
    service: ChatService,
) -> None:
    values = await ask(service, str(uuid.uuid4()), "Do you fit water heaters?")
    assert values["routing"] == "answered", values["answer"]
    assert "water heater" in values["answer"].lower()
    assert values["citations"]


def _honest_not_found(values: dict[str, Any]) -> None:
    answer = values["answer"]
    assert values["citations"] == [], answer
    assert "[1]" not in answer, answer
    assert values["routing"] in ("cannot_answer", "low_confidence", "followup"), answer


async def test_a_service_the_site_does_not_name_is_not_answered_with_another(
    service: ChatService,
) -> None:
    # The services page repairs leaks and water heaters; a roof is named nowhere: the
    # leaks are no answer to it.
    values = await ask(service, str(uuid.uuid4()), "Do you repair roofs?")
    _honest_not_found(values)
    assert say("offer.human", "en") in values["answer"] or values["routing"] == "followup"


async def test_a_question_about_the_business_is_not_refused_as_off_topic(
    service: ChatService,
) -> None:
    # Nothing on the site about parking; the question is still about the business.
    values = await ask(service, str(uuid.uuid4()), "Do you have a car park?")
    _honest_not_found(values)
    assert values["route"] == "ANSWER", values["answer"]


async def test_a_request_to_an_assistant_is_still_refused_as_off_topic(
    service: ChatService,
) -> None:
    # Put in the second person too, but an everyday request to an assistant, not a
    # question about the business.
    values = await ask(service, str(uuid.uuid4()), "Can you add 5 and 89?")
    assert values["routing"] == "irrelevant", values["answer"]
