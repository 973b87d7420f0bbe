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
