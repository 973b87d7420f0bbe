"""Live takeover inside the conversation graph (real `ChatService`, real SQLite, the
local engine): the bot is silent while a person owns the conversation, the human
exchange is in the assistant's memory after release, and an accepted handoff rings
operators in business hours or takes the asynchronous path — with a frozen clock."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from frontdesk.api.visitor_sessions import start_session
from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.analytics import AnalyticsRepository
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.events import Operator

pytestmark = pytest.mark.integration

ANNA = Operator("op-anna", "Anna")
VISITOR = VisitorContext()


class FrozenClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
async def chat(tmp_path: Path, sites_dir: Path) -> AsyncIterator[ChatService]:
    service = ChatService(build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites_dir)))
    yield service
    await service.close()
    service.runtime.close()


def local_time(site: LoadedSite, day: str, hour: int) -> datetime:
    """A wall-clock time on the team's side: day is "wednesday" or "sunday"."""
    zone = ZoneInfo(site.config.business_hours.timezone)
    date = {"wednesday": (2026, 11, 25), "sunday": (2026, 11, 29)}[day]
    return datetime(*date, hour, 0, tzinfo=zone).astimezone(UTC)


def frozen_desk(chat: ChatService, now: datetime) -> tuple[TakeoverDesk, FrozenClock]:
    clock = FrozenClock(now)
    desk = TakeoverDesk(chat.runtime.sessions, clock=clock)
    chat.live = desk  # the turns ring through it
    return desk, clock


def new_session(chat: ChatService, site: LoadedSite) -> str:
    return start_session(chat.runtime, site.config, None).session_id


async def thread_messages(chat: ChatService, site: LoadedSite, session_id: str) -> list[AnyMessage]:
    graph = await chat.graph()
    config = {"configurable": {"thread_id": thread_id(site.config.id, session_id)}}
    return list((await graph.aget_state(config)).values.get("messages", []))


async def test_bot_is_silent_while_a_person_owns_it_and_remembers_the_exchange(
    chat: ChatService,
) -> None:
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, _ = frozen_desk(chat, local_time(site, "wednesday", 11))

    first = await chat.ask(site, session_id, "Hello there", VISITOR)
    assert first.route != "HUMAN" and first.answer  # the bot answers before anyone joins
    before = await thread_messages(chat, site, session_id)

    await desk.join(site.config, session_id, ANNA)
    relayed = await chat.ask(site, session_id, "Do you have an office in Lisbon?", VISITOR)
    assert relayed.route == "HUMAN" and relayed.answer == ""  # no bot text at all
    log = await desk.session_log("demo", session_id)
    assert [(e.kind, e.data.get("text")) for e in log][-1] == (
        "visitor_message",
        "Do you have an office in Lisbon?",
    )
    # Nothing was added to the bot's window while the person owns the conversation.
    assert len(await thread_messages(chat, site, session_id)) == len(before)
    history = await chat.history(site, session_id)
    # The transcript keeps the visitor's message; the bot's side of that turn is empty.
    assert [(m["role"], m["content"], m.get("route")) for m in history[-2:]] == [
        ("user", "Do you have an office in Lisbon?", None),
        ("assistant", "", "HUMAN"),
    ]

    await desk.reply(site.config, session_id, ANNA, "Yes: our Lisbon office is at Rua Augusta 12.")
    _, exchange = await desk.hand_back(site.config, session_id, ANNA, close=False)
    assert await chat.remember_exchange(site, session_id, exchange) == 2

    after = await chat.ask(site, session_id, "What was the street again?", VISITOR)
    assert after.route != "HUMAN" and after.answer  # the bot is back
    messages = await thread_messages(chat, site, session_id)
    tail = messages[len(before) :]
    assert isinstance(tail[0], HumanMessage)
    assert tail[0].content == "Do you have an office in Lisbon?"
    assert isinstance(tail[1], AIMessage) and "Rua Augusta 12" in str(tail[1].content)
    assert isinstance(tail[2], HumanMessage) and tail[2].content == "What was the street again?"
    assert isinstance(tail[3], AIMessage)  # the bot's own answer, after the human exchange

    # Analytics: the relayed turn is the person's, not an answer of the bot's.
    today = datetime.now(UTC).date()
    with chat.runtime.sessions() as db:
        outcomes = AnalyticsRepository(db).site("demo", today, today).outcomes
    assert outcomes["with a person"] == 1, outcomes
    assert outcomes["answered"] + outcomes["other"] + outcomes["refused"] == 2


async def ask_for_a_person(chat: ChatService, site: LoadedSite, session_id: str) -> None:
    proposed = await chat.ask(site, session_id, "I want to talk to a person", VISITOR)
    assert proposed.handoff is not None and proposed.handoff.status == "proposed"
    accepted = await chat.ask(site, session_id, "yes please, I'm at dana@example.org", VISITOR)
    assert accepted.handoff is not None and accepted.handoff.status == "accepted"


async def test_accepted_handoff_rings_in_hours_then_goes_async_after_the_wait_limit(
    chat: ChatService,
) -> None:
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, clock = frozen_desk(chat, local_time(site, "wednesday", 11))
    await desk.heartbeat("demo", ANNA)  # Anna has the console open

    await ask_for_a_person(chat, site, session_id)
    waiting = [e for e in await desk.session_log("demo", session_id, for_visitor=True)]
    assert [e.kind for e in waiting] == ["handoff_waiting"]
    wait_s = site.config.handoff.live_wait_seconds
    assert waiting[0].data["expected_wait_seconds"] == wait_s == 120
    assert (await desk.ownership("demo", session_id)).state == "waiting"

    clock.advance(wait_s - 1)
    assert await desk.expire_waits() == []  # still ringing
    clock.advance(2)
    expired = await desk.expire_waits()
    assert [(e.kind, e.data["reason"]) for e in expired] == [("handoff_async", "no_operator")]
    assert await desk.expire_waits() == []  # exactly once
    assert (await desk.ownership("demo", session_id)).state == "bot"
    # The bot answers again (never silence), and the handoff went out as today.
    again = await chat.ask(site, session_id, "Thanks", VISITOR)
    assert again.route != "HUMAN" and again.answer


async def test_joining_while_ringing_stops_the_wait_limit(chat: ChatService) -> None:
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, clock = frozen_desk(chat, local_time(site, "wednesday", 11))
    await desk.heartbeat("demo", ANNA)
    await ask_for_a_person(chat, site, session_id)
    await desk.join(site.config, session_id, ANNA)
    clock.advance(site.config.handoff.live_wait_seconds * 2)
    assert await desk.expire_waits() == []
    assert (await desk.ownership("demo", session_id)).state == "human"


async def test_after_hours_the_handoff_takes_the_asynchronous_path(chat: ChatService) -> None:
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, _ = frozen_desk(chat, local_time(site, "sunday", 11))
    await desk.heartbeat("demo", ANNA)  # online, but it is Sunday
    await ask_for_a_person(chat, site, session_id)
    events = await desk.session_log("demo", session_id, for_visitor=True)
    assert [(e.kind, e.data.get("reason")) for e in events] == [("handoff_async", "after_hours")]
    assert events[0].data["contact"] == "email"  # what the widget's notice asks for
    assert (await desk.ownership("demo", session_id)).state == "bot"


async def test_in_hours_with_nobody_online_the_handoff_goes_async(chat: ChatService) -> None:
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, clock = frozen_desk(chat, local_time(site, "wednesday", 11))
    await desk.heartbeat("demo", ANNA)
    clock.advance(desk.presence_ttl_s + 1)  # Anna's heartbeat expired: she is not online
    await ask_for_a_person(chat, site, session_id)
    events = await desk.session_log("demo", session_id, for_visitor=True)
    assert [(e.kind, e.data.get("reason")) for e in events] == [("handoff_async", "no_operator")]


async def test_erasing_a_session_erases_its_live_log(chat: ChatService) -> None:
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, _ = frozen_desk(chat, local_time(site, "wednesday", 11))
    await chat.ask(site, session_id, "Hello", VISITOR)
    await desk.join(site.config, session_id, ANNA)
    await desk.reply(site.config, session_id, ANNA, "Hi!")
    assert await chat.erase(site, session_id)
    assert await desk.session_log("demo", session_id) == []
    assert (await desk.ownership("demo", session_id)).state == "bot"
    assert str(uuid.UUID(session_id)) == session_id


async def test_suggest_drafts_an_answer_from_the_knowledge_base(
    ingested_demo: Settings, tmp_path: Path
) -> None:
    import shutil

    data = tmp_path / "ingested"
    shutil.copytree(ingested_demo.data_dir, data)
    service = ChatService(build_runtime(Settings(data_dir=data, sites_dir=ingested_demo.sites_dir)))
    try:
        site = service.runtime.sites["demo"]
        question = site.config.starter_questions["en"][0]  # a question the site's pages answer
        draft = await service.draft_reply(site, str(uuid.uuid4()), question)
        assert draft["draft"].strip()
        assert draft["sources"] and all(source["title"] for source in draft["sources"])
        # Drafting sends and stores nothing.
        assert await service.history(site, str(uuid.uuid4())) == []
    finally:
        await service.close()
        service.runtime.close()


@pytest.fixture
async def shop_chat(tmp_path: Path, sites_dir: Path) -> AsyncIterator[ChatService]:
    """The demo site with a shop's hours: a lunch break and Saxony's public holidays."""
    import yaml

    demo = sites_dir / "demo.yaml"
    raw = yaml.safe_load(demo.read_text(encoding="utf-8"))
    raw["business_hours"] = {
        "timezone": "Europe/Berlin",
        "weekly": {"tue-fri": ["09:30-13:00", "14:00-18:30"], "sat": ["10:00-14:00"]},
        "holidays": "DE-SN",
    }
    demo.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    service = ChatService(build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites_dir)))
    yield service
    await service.close()
    service.runtime.close()


@pytest.mark.parametrize(
    ("berlin_time", "expected"),
    [
        (datetime(2026, 12, 8, 13, 30), ("handoff_async", "after_hours")),  # lunch break
        (datetime(2026, 10, 31, 11, 0), ("handoff_async", "after_hours")),  # Reformation Day
        (datetime(2026, 12, 8, 14, 30), ("handoff_waiting", None)),
        (datetime(2026, 12, 12, 11, 0), ("handoff_waiting", None)),  # Saturday
    ],
)
async def test_operators_are_rung_only_when_the_shop_is_open(
    shop_chat: ChatService, berlin_time: datetime, expected: tuple[str, str | None]
) -> None:
    site = shop_chat.runtime.sites["demo"]
    session_id = new_session(shop_chat, site)
    now = berlin_time.replace(tzinfo=ZoneInfo("Europe/Berlin")).astimezone(UTC)
    desk, _ = frozen_desk(shop_chat, now)
    shop_chat.clock = lambda: now
    await desk.heartbeat("demo", ANNA)  # online all along
    await ask_for_a_person(shop_chat, site, session_id)
    events = await desk.session_log("demo", session_id, for_visitor=True)
    assert [(e.kind, e.data.get("reason")) for e in events] == [expected]


JANA = Operator("op-jana", "Jana Krüger")
SUGGESTION = "Ich schlage vor, dass Sie mit dem Starter-Tarif und 14 Tagen Probezeit beginnen."


@pytest.fixture
async def ingested_chat(ingested_demo: Settings, tmp_path: Path) -> AsyncIterator[ChatService]:
    import shutil

    data = tmp_path / "ingested"
    shutil.copytree(ingested_demo.data_dir, data)
    service = ChatService(build_runtime(Settings(data_dir=data, sites_dir=ingested_demo.sites_dir)))
    yield service
    await service.close()
    service.runtime.close()


async def test_after_hand_back_the_bot_answers_from_what_the_team_member_said(
    ingested_chat: ChatService,
) -> None:
    chat = ingested_chat
    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, _ = frozen_desk(chat, local_time(site, "wednesday", 11))
    await chat.ask(site, session_id, "Hallo, ich brauche Hilfe bei der Einrichtung", VISITOR)
    await desk.join(site.config, session_id, JANA)
    await chat.ask(site, session_id, "Womit soll ich anfangen?", VISITOR)
    await desk.reply(site.config, session_id, JANA, SUGGESTION)
    _, exchange = await desk.hand_back(site.config, session_id, JANA, close=False)
    assert await chat.remember_exchange(site, session_id, exchange) == 2

    for question in ("Was hat Jana vorgeschlagen?", "What did Jana suggest again?"):
        reply = await chat.ask(site, session_id, question, VISITOR)
        assert reply.route != "HUMAN"
        assert SUGGESTION in reply.answer and "Jana Krüger" in reply.answer, reply.answer
        assert "nicht gefunden" not in reply.answer
        # The team member's words are theirs, never a page of the knowledge base.
        assert reply.citations == []

    # The bot's window knows the reply is the team member's, not its own.
    from frontdesk.conversation.nodes.common import history_turns

    turns = history_turns([*await thread_messages(chat, site, session_id), HumanMessage("?")], 9)
    assert [turn.assistant for turn in turns if turn.team == "Jana Krüger"] == [SUGGESTION]

    # Another visitor asking the same hears nothing of this conversation.
    other = new_session(chat, site)
    for question in ("Was hat Jana vorgeschlagen?", "What did Jana Krüger write?"):
        stranger = await chat.ask(site, other, question, VISITOR)
        assert "Starter-Tarif" not in stranger.answer and "Jana" not in stranger.answer
        assert all("Starter-Tarif" not in str(c) for c in stranger.citations)


async def test_the_llm_writer_reads_the_team_members_words_as_theirs(chat: ChatService) -> None:
    """The scripted chat model stands in for the paid API: the writer's prompt carries the
    remembered reply labelled with the team member's name."""
    from frontdesk.conversation.nodes.common import history_turns
    from frontdesk.engines.base import AnswerRequest
    from frontdesk.engines.llm.prompts import PromptBook
    from frontdesk.engines.llm.writer import LLMAnswerWriter
    from tests.support.scripted import ScriptedChatModel

    site = chat.runtime.sites["demo"]
    session_id = new_session(chat, site)
    desk, _ = frozen_desk(chat, local_time(site, "wednesday", 11))
    await desk.join(site.config, session_id, JANA)
    await chat.ask(site, session_id, "Womit soll ich anfangen?", VISITOR)
    await desk.reply(site.config, session_id, JANA, SUGGESTION)
    _, exchange = await desk.hand_back(site.config, session_id, JANA, close=False)
    await chat.remember_exchange(site, session_id, exchange)

    question = "Gibt es den Tarif auch jährlich?"
    messages = [*await thread_messages(chat, site, session_id), HumanMessage(question)]
    model = ScriptedChatModel(outcomes=["Ja."])
    writer = LLMAnswerWriter(PromptBook(site.config.name, ""), model)
    request = AnswerRequest(
        question=question,
        search_query=question,
        language="de",
        chunks=[],
        history=history_turns(messages, 4),
    )
    assert "".join([piece async for piece in writer.write(request)]) == "Ja."
    prompt = [str(message.content) for message in model.seen[0]]
    assert f"Jana Krüger (team): {SUGGESTION}" in prompt
