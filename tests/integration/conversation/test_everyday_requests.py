"""An everyday request near a site's topic (`knowledge/search/everyday.py`): a home-care
agency whose pages cover its carers' holiday and sick leave, through the real graph — real
SQLite, the default embedding model (multilingual-e5-small), the local engine, no threshold
calibrated. A visitor's own holiday request to a personal assistant ("did my vacation get
approved yet") reads as a known everyday request: the pages being near its topic does not
make it on-topic. A question the pages answer, in their words, is still answered."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

SITE = """\
id: hearthside
name: Hearthside Home Care
default_language: en
languages: [en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_hearthside_0001
business_hours:
  timezone: Europe/London
"""

PAGES = {
    "about.md": """# About Hearthside Home Care

Hearthside is a home-care agency in Leeds. Our carers visit older people at home to help
with washing, meals, medication and company, from 30-minute calls to live-in care.

Our office is open Monday to Friday, 9:00 to 17:00. Families pay by card, bank transfer or
direct debit.
""",
    "working-for-us.md": """# Working for Hearthside

## Paid holiday
Every carer builds up 28 days of paid holiday a year, including bank holidays. Carers ask
for holiday in the Hearthside app at least two weeks ahead; the rota team approves it.

## Sick leave
A carer who is ill calls the office before 7 am. Hearthside pays full sick pay for up to
ten working days a year, then statutory sick pay.
""",
    "families.md": """# For families

## Starting care
After a free assessment visit we write a care plan with you. Care can start within a week.

## Fees
Visits cost 28 pounds an hour on weekdays and 32 pounds an hour at weekends.
""",
}


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    sites = tmp_path / "sites"
    (sites / "kb").mkdir(parents=True)
    (sites / "hearthside.yaml").write_text(SITE, encoding="utf-8")
    for name, text in PAGES.items():
        (sites / "kb" / name).write_text(text, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites))
    site = runtime.site("hearthside")
    report = KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    assert len(report.ingested) == 3
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def turn(service: ChatService, message: str) -> dict[str, Any]:
    site = service.runtime.site("hearthside")
    session = str(uuid.uuid4())
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("hearthside", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


@pytest.mark.parametrize(
    "request_",
    [
        "did my vacation get approved yet",
        "how many vacation days do I have left this year",
        "book me three days off next week",
    ],
)
async def test_a_holiday_request_to_an_assistant_is_refused(
    service: ChatService, request_: str
) -> None:
    values = await turn(service, request_)
    support = values.get("site_support")
    assert support is not None, values["intent"]
    assert support["everyday"] is not None and support["everyday_bar"] is not None
    assert support["everyday"] >= support["everyday_bar"], support
    assert not support["supported"], support
    assert (values["route"], values["routing"]) == ("REDIRECT", "irrelevant")


async def test_what_the_pages_answer_about_holiday_is_answered(service: ChatService) -> None:
    values = await turn(service, "How many days of paid holiday does a carer get?")
    assert values["route"] == "ANSWER", (values["intent"], values.get("site_support"))
    assert values["routing"] in ("answered", "partially_answered", "low_confidence")
    assert "28 days" in values["answer"]


@pytest.mark.parametrize(
    "request_",
    ["what's the date of my next paycheck", "help with credit card points"],
)
async def test_an_everyday_request_near_one_of_the_business_facts_is_refused(
    service: ChatService, request_: str
) -> None:
    """The agency states its hours and how families pay; a visitor's own pay-day or card
    question to a personal assistant asks for neither."""
    values = await turn(service, request_)
    support = values.get("site_support")
    assert support is not None, values["intent"]
    assert support["everyday"] >= support["everyday_bar"], support
    assert support.get("fact") is None, support
    assert (values["route"], values["routing"]) == ("REDIRECT", "irrelevant"), support


async def test_a_question_for_the_business_hours_is_still_answered(
    service: ChatService,
) -> None:
    values = await turn(service, "When is your office open?")
    assert values["route"] == "ANSWER", (values["intent"], values.get("site_support"))
    assert "17:00" in values["answer"] or "5:00" in values["answer"], values["answer"]
