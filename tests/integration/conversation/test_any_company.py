"""A company that is not the demo: a three-page bike-subscription site through the real
graph — real SQLite, real MiniLM, the real local engine, the product's defaults (no
threshold calibrated, nothing tuned). Its plain questions are answered from its pages,
however everyday their phrasing sounds to the intent classifier; everyday requests are
still refused as off-topic; a question its pages do not answer abstains."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.evals.dataset import ABSTAIN_ROUTINGS
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

SITE = """\
id: velotrove
name: Velotrove
default_language: en
languages: [en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_velotrove_0001
business_hours:
  timezone: Europe/Amsterdam
"""

PAGES = {
    "about.md": """# About Velotrove

Velotrove is a bike subscription service. For a fixed monthly fee you get a city bike or
an e-bike, maintenance, repairs and theft cover included. We deliver bikes in Amsterdam,
Rotterdam, Utrecht and The Hague.

## Plans
We offer two plans: Classic, a city bike for 19 euros a month, and Electric, an e-bike for
59 euros a month. Both include free repairs within 48 hours.
""",
    "membership.md": """# Your membership

## Cancelling your membership
You can cancel your membership every month. Log in, open Membership, choose Cancel and
pick a date to return the bike. The notice period is one month.

## Taking the bike on holiday
You can take the bike on holiday inside the Netherlands. Outside the Netherlands theft
cover does not apply, so tell us before you travel abroad with it.
""",
    "theft.md": """# When your bike is stolen

If your bike is stolen, report the theft to the police within 24 hours and send us the
police report number. If the bike was locked with both locks, you pay a 60 euro excess and
get a replacement bike within three working days.
""",
}


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    sites = tmp_path / "sites"
    (sites / "kb").mkdir(parents=True)
    (sites / "velotrove.yaml").write_text(SITE, encoding="utf-8")
    for name, text in PAGES.items():
        (sites / "kb" / name).write_text(text, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites))
    site = runtime.site("velotrove")
    report = KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    assert len(report.ingested) == 3
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def turn(service: ChatService, message: str) -> dict[str, Any]:
    """One message as the first of a fresh session; the graph's state after it."""
    site = service.runtime.site("velotrove")
    session = str(uuid.uuid4())
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("velotrove", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


@pytest.mark.parametrize(
    "question",
    [
        "What is Velotrove?",
        "How do I cancel my membership?",
        "What happens if my bike is stolen?",
        "Can I take the bike on holiday?",
        "What plans do you offer?",
        "Which cities do you deliver to?",
    ],
)
async def test_what_the_pages_answer_is_never_refused_as_off_topic(
    service: ChatService, question: str
) -> None:
    values = await turn(service, question)
    assert values["route"] != "REDIRECT", (values["intent"], values.get("site_support"))
    assert values["routing"] not in ("irrelevant", "nonsense")


async def test_a_question_phrased_like_trivia_is_answered_from_the_pages(
    service: ChatService,
) -> None:
    values = await turn(service, "What is Velotrove?")
    assert values["route"] == "ANSWER"
    assert values["routing"] in ("answered", "partially_answered", "low_confidence")
    assert "subscription" in values["answer"].lower()


@pytest.mark.parametrize(
    "request_",
    [
        "What's the weather going to be like in Paris tomorrow?",
        "Give me a recipe for lasagna",
        "Set an alarm for 7 am",
        "Who won the football game last night?",
    ],
)
async def test_everyday_requests_are_still_refused(service: ChatService, request_: str) -> None:
    values = await turn(service, request_)
    assert (values["route"], values["routing"]) == ("REDIRECT", "irrelevant")
    support = values.get("site_support")
    assert support is not None and not support["supported"]


async def test_a_question_the_pages_do_not_answer_abstains(service: ChatService) -> None:
    values = await turn(service, "Do you rent out cargo bikes for weddings in Berlin?")
    assert values["routing"] in ABSTAIN_ROUTINGS or values["route"] == "HANDOFF"
