"""A small English tea room (tests/fixtures/tea_room, three HTML pages with a shared footer)
through the real graph: real SQLite, the default multilingual embedder, the local engine.
Hours in a definition list with a "through" range and am/pm times, days closed stated in a
sentence, holidays and a month stated in prose, prices in a sentence, and the contact
questions visitors ask in a few words in any language."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.service import ChatService
from tests.support.site_chat import chat_service, ingested_site, site_turn

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "tea_room"
SITE = """\
id: marram
name: Marram Tea Room
default_language: en
languages: [en, de, fr, es, it, nl, pt, ru]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_marram_0001
business_hours:
  timezone: Europe/London
"""


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    async for chat in chat_service(ingested_site(tmp_path, SITE, FIXTURE)):
        yield chat


async def ask(service: ChatService, message: str, session: str = "") -> dict[str, Any]:
    return await site_turn(service, "marram", session or str(uuid.uuid4()), message)


def text(values: dict[str, Any]) -> str:
    return str(values["answer"]).replace("\u202f", " ")


async def test_a_through_range_with_am_pm_times(service: ChatService) -> None:
    values = await ask(service, "What are your opening hours?")
    answer = text(values)
    for day in ("Thursday", "Friday", "Saturday", "Sunday"):
        assert f"{day}: 9:30 AM–12:00 PM, 1:00 PM–4:30 PM" in answer, answer
    assert "Tuesday: 2:00 PM–5:00 PM" in answer, answer
    assert "closed on Mondays" in answer, answer  # the page's own sentence
    assert "20 December to 3 January" in answer, answer  # the holidays on the same page


async def test_a_day_closed_in_a_sentence(service: ChatService) -> None:
    values = await ask(service, "Are you open on Mondays?")
    assert values["fact_reply"]["days"] == [0]
    assert "Monday: The tea room is closed on Mondays" in text(values), text(values)


async def test_a_date_is_answered_from_the_holidays(service: ChatService) -> None:
    values = await ask(service, "Are you open on 24 December?")
    answer = text(values)
    assert "20 December to 3 January" in answer, answer
    assert "Thursday:" not in answer, answer


async def test_a_month_is_answered_from_its_special_hours(service: ChatService) -> None:
    values = await ask(service, "What are your hours in August?")
    answer = text(values)
    assert "regatta in August we open every day from 9am to 6pm" in answer, answer


async def test_where_are_you_is_a_question_about_the_business(service: ChatService) -> None:
    for question in ("Where are you?", "What's your email address?", "What's your phone number?"):
        values = await ask(service, question)
        assert values["route"] == "ANSWER", (question, values.get("route_reason"))
    values = await ask(service, "What's your email address?")
    assert "tea@marram.example" in text(values), text(values)
    values = await ask(service, "What's your phone number?")
    assert "+441947600123" in text(values), text(values)


async def test_the_price_of_an_item_named_in_a_sentence(service: ChatService) -> None:
    values = await ask(service, "How much is a fruit scone?")
    answer = text(values)
    assert "A fruit scone with clotted cream is £4.20" in answer, answer
