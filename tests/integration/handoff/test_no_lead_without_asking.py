"""No handoff path stores a lead without a way to reach the visitor unless the visitor was
asked for one: conversations that end in every handoff reason and every answer to the
contact question, outside business hours and with an operator online, checked after every
turn against what the team's side holds (handoffs, their deliveries, the CRM leads) and
what the visitor was told (the stored transcript)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.conversation.texts import TEXTS
from frontdesk.conversation.texts import say as text_of
from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.store.models import Handoff, Lead, OutboxItem
from frontdesk.store.repositories import ConversationRepository
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.events import Operator

pytestmark = pytest.mark.integration

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru")
SATURDAY_NIGHT = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)  # 21:00 in Berlin
TUESDAY_MORNING = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)  # 10:00 in Berlin

CONVERSATIONS: dict[str, list[str]] = {
    "explicit request, declined": ["Can I speak to someone?", "No thanks"],
    "explicit request, asked twice, goes on": [
        "I want to talk to a person",
        "why?",
        "Which integrations do you support?",
    ],
    "explicit request, address": ["Can I talk to a human?", "x@y.example"],
    "explicit request, address known": [
        "my email is known@visitor.example",
        "I want to talk to a person",
    ],
    "hot lead, yes, address": [
        "I'm the Head of Operations at a 200-person logistics company and we need to "
        "automate invoice matching before the end of Q3",
        "Yes, please",
        "ana@northwind.io",
    ],
    "high stakes, address": [
        "You charged us twice this month, I want a refund or we will cancel the contract",
        "billing@visitor.example",
    ],
    "high stakes question, yes, declined": [
        "How do I cancel my subscription?",
        "yes please",
        "no",
    ],
    "stall, accepted": [
        "Which integrations do you support?",
        "Does Tessellate integrate with Salesforce?",
        "Which regions can my data be stored in?",
        "sure, dana@acme.io",
    ],
    "German, declined": ["Ich möchte mit einem Menschen sprechen", "Nein danke"],
    "Russian, address": ["Я хочу поговорить с человеком", "ivan@example.ru"],
}


@pytest.fixture
async def chat(ingested_demo: Settings, tmp_path: Path) -> AsyncIterator[ChatService]:
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    raw["qualification"]["stall_turn_threshold"] = 3
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "demo.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    service = ChatService(build_runtime(Settings(data_dir=data, sites_dir=sites)))
    yield service
    await service.close()
    service.runtime.close()


def contact_questions(chat: ChatService) -> list[str]:
    """The contact question and its second asking, in every language and the site's tone."""
    site = chat.runtime.site("demo").config
    keys = ("contact.ask_email", "contact.ask_again_email")  # the default: an address
    return [
        text_of(key, lang, tone=site.tone) for key in keys if key in TEXTS for lang in LANGUAGES
    ]


def contact_of(data: dict[str, Any]) -> dict[str, Any]:
    """The handoff's `visitor_contact`, or what its packet says when it has none."""
    if "visitor_contact" in data:
        return dict(data["visitor_contact"])
    email = data["packet"]["visitor"].get("email")
    return {"status": "provided" if email else "not_asked", "email": email}


def team_side(chat: ChatService, session: str) -> list[tuple[str, dict[str, Any]]]:
    """Every record the team's side holds for the session: (what, its contact status)."""
    with chat.runtime.sessions() as db:
        rows: list[tuple[str, dict[str, Any]]] = []
        for handoff in db.scalars(select(Handoff).where(Handoff.session_id == session)):
            rows.append((f"handoff {handoff.reason}", contact_of(handoff.packet)))
        items = db.scalars(
            select(OutboxItem).where(OutboxItem.idempotency_key.like(f"demo:{session}:%"))
        )
        for item in items:
            rows.append((f"delivery {item.channel}", contact_of(item.payload)))
        for lead in db.scalars(select(Lead).where(Lead.session_id == session)):
            status = lead.details["lead"].get("contact_status")
            status = status or ("provided" if lead.email else "not_asked")
            rows.append(("lead", {"status": status, "email": lead.email}))
        return rows


async def deliver(chat: ChatService, later_s: float = 0.0) -> None:
    dispatcher = Dispatcher(
        chat.runtime, clock=lambda: datetime.now(UTC) + timedelta(seconds=later_s)
    )
    try:
        for _ in range(10):
            await dispatcher.run_once()
    finally:
        await dispatcher.aclose()


@pytest.mark.parametrize("operator_online", [False, True], ids=["saturday night", "operator"])
async def test_no_lead_without_a_contact_unless_the_visitor_was_asked(
    chat: ChatService, operator_online: bool
) -> None:
    if operator_online:
        chat.clock = lambda: TUESDAY_MORNING
        chat.live = TakeoverDesk(chat.runtime.sessions, clock=lambda: TUESDAY_MORNING)
        await chat.live.heartbeat("demo", Operator("op-1", "Dana"))
    else:
        chat.clock = lambda: SATURDAY_NIGHT
    questions = contact_questions(chat)
    site = chat.runtime.site("demo")
    reasons: set[str] = set()
    statuses: set[str] = set()
    for name, messages in CONVERSATIONS.items():
        session = str(uuid.uuid4())
        for message in messages:
            result = await chat.ask(site, session, message, VisitorContext())
            if result.route == "HANDOFF":
                reasons.add(chat_reason(chat, session))
            await deliver(chat)
            check(chat, session, questions, name)
        await deliver(chat, later_s=1000)  # whatever still waits for an answer goes now
        check(chat, session, questions, name)
        statuses |= {contact["status"] for _, contact in team_side(chat, session)}
    # The walk covered every way to a person and every answer to the question.
    assert {"explicit_request", "hot_lead", "high_stakes", "stall_accepted"} <= reasons
    assert {"handoff_accepted", "contact_given", "contact_declined"} <= reasons
    assert {"contact_ask_again"} <= reasons
    assert statuses == {"provided", "asked", "declined"}


def chat_reason(chat: ChatService, session: str) -> str:
    """Why the session's last turn went where it went (as the console shows it)."""
    with chat.runtime.sessions() as db:
        messages = ConversationRepository(db).messages("demo", session)
        return str((messages[-1].details or {}).get("reason"))


def check(chat: ChatService, session: str, questions: list[str], name: str) -> None:
    transcript = chat.transcripts.history("demo", session)
    said = [m["content"] for m in transcript if m["role"] == "assistant"]
    asked = any(question in reply for reply in said for question in questions)
    for what, contact in team_side(chat, session):
        if contact["status"] == "provided":
            assert contact.get("email") or contact.get("phone"), (name, what)
            continue
        assert contact["status"] in ("asked", "declined"), (name, what, contact)
        assert asked, f"{name}: {what} without a contact, and the visitor was never asked"
