"""What the team receives, in the team's language: a whole conversation on the demo site
(real graph, local engine, real SQLite) ends in a handoff outside opening hours; the
webhook (a loopback HTTP receiver) and the e-mail (a loopback SMTP receiver: Slack fails,
so the fallback e-mail goes out) say in plain words what happened — the contact first,
the visitor's question and the assistant's last answer quoted — in German for a team
with `team_language: de`, in English for one without."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.store.models import OutboxItem
from tests.support.loopback import HttpReceiver, SmtpReceiver

pytestmark = pytest.mark.integration

VISITOR = VisitorContext(page_url="https://tessellate.example/integrations")
# Saturday 5 December 2026, 21:00 in Berlin: the demo site's team is off until Monday.
SATURDAY_NIGHT = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)
ALL_ATTEMPTS_FAIL = ("500", "500", "500", "500")  # 1 + 3 retries


@pytest.fixture
def http() -> Iterator[HttpReceiver]:
    with HttpReceiver(slow_s=1.0) as receiver:
        yield receiver


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
async def chat(
    request: pytest.FixtureRequest,
    ingested_demo: Settings,
    tmp_path: Path,
    http: HttpReceiver,
    smtp: SmtpReceiver,
) -> AsyncIterator[ChatService]:
    """The demo site on a Saturday night with Slack, a webhook and the fallback inbox on
    loopback; the fixture's parameter is the site's `team_language` (None: not set)."""
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    raw["handoff"].update(
        slack_webhook_url=http.url("/slack"),
        webhooks=[{"url": http.url("/hook"), "secret": "s3cret"}],
        retry_delays_s=[0.01, 0.01, 0.01],
    )
    if request.param:
        raw["team_language"] = request.param
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "demo.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    settings = Settings(
        data_dir=data,
        sites_dir=sites,
        smtp_host="127.0.0.1",
        smtp_port=smtp.port,
        smtp_from="frontdesk@tessellate.test",
        smtp_timeout_s=5,
        handoff_http_timeout_s=0.3,
        public_url="https://chat.tessellate.example",
    )
    service = ChatService(build_runtime(settings))
    service.clock = lambda: SATURDAY_NIGHT
    yield service
    await service.close()
    service.runtime.close()


async def say(chat: ChatService, session: str, text: str) -> TurnResult:
    return await chat.ask(chat.runtime.site("demo"), session, text, VISITOR)


async def deliver(chat: ChatService) -> None:
    """Deliver everything due, retries and the fallback e-mail included."""
    dispatcher = Dispatcher(chat.runtime)
    try:
        for _ in range(200):
            await dispatcher.run_once()
            with chat.runtime.sessions() as db:
                due = db.scalar(select(OutboxItem.id).where(OutboxItem.status == "pending"))
            if due is None:
                return
            await asyncio.sleep(0.02)
    finally:
        await dispatcher.aclose()


async def hand_off(chat: ChatService, http: HttpReceiver, *turns: str) -> tuple[str, TurnResult]:
    """A conversation: a question, a request for a person, the visitor's e-mail; Slack
    fails every attempt, so the team also gets the fallback e-mail."""
    session = str(uuid.uuid4())
    question, request, contact = turns
    answered = await say(chat, session, question)
    assert answered.route == "ANSWER"
    asked = await say(chat, session, request)
    assert asked.route == "HANDOFF" and asked.handoff is not None
    assert asked.handoff.reason == "explicit_request"
    await say(chat, session, contact)
    http.fail_next("/slack", *ALL_ATTEMPTS_FAIL)
    await deliver(chat)
    return session, answered


def hook_data(http: HttpReceiver, session: str) -> dict[str, Any]:
    (data,) = [
        r.json()["data"]
        for r in http.received_on("/hook")
        if r.json()["data"].get("session_id") == session
    ]
    return dict(data)


@pytest.mark.parametrize("chat", ["de"], indirect=True)
async def test_a_german_team_reads_the_handoff_in_plain_german(
    chat: ChatService, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    session, answered = await hand_off(
        chat,
        http,
        "Welche Integrationen unterstützt Tessellate?",
        "Ich möchte mit einem Menschen sprechen",
        "jana@example.org",
    )
    answer = " ".join(answered.answer.split())[:80]

    data = hook_data(http, session)
    lines = data["summary"].split("\n")
    assert lines[0] == "Kontakt: jana@example.org"  # the contact first
    assert lines[1].startswith("möchte mit einer Person sprechen — außerhalb der Öffnungszeiten — ")
    assert lines[1].endswith("Nachrichten geschrieben")
    assert lines[2] == "Frage: „Welche Integrationen unterstützt Tessellate?“"
    assert lines[3].startswith("Letzte Antwort des Assistenten: „" + answer)
    assert "Antworten bis: 07.12.2026, 09:00 CET" in lines  # Monday's opening, Berlin
    # The machine-readable fields stay as they were: consumers keep working.
    assert data["packet"]["handoff_reason"] == "explicit_request"
    assert data["packet"]["lead_level"] in ("cold", "warm", "hot")
    assert data["business_hours"] is False
    assert data["visitor_contact"]["email"] == "jana@example.org"
    assert data["question"] == "Welche Integrationen unterstützt Tessellate?"
    assert data["team_language"] == "de"
    assert "summary" in data["unverified"] and "question" in data["unverified"]

    (mail,) = [m for m in smtp.mails if session in m.message["X-Frontdesk-Idempotency-Key"]]
    assert mail.subject.startswith(
        "Übergabe aus dem Chat — Tessellate: möchte mit einer Person sprechen — "
        "außerhalb der Öffnungszeiten"
    )
    assert "jana@" not in mail.subject
    body = mail.body
    assert body.startswith("Kontakt: jana@example.org\nmöchte mit einer Person sprechen")
    assert "Frage: „Welche Integrationen unterstützt Tessellate?“" in body
    assert "Letzte Antwort des Assistenten: „" + answer in body
    assert "Letzte Nachricht: „jana@example.org“" in body  # the answer that completed it
    assert (
        "Gespräch öffnen: https://chat.tessellate.example/console/sites/demo/conversations/"
        f"{session}" in body
    )
    # The plain words come before any internal label.
    assert body.index("Kontakt:") < body.index("explicit_request")


@pytest.mark.parametrize("chat", [None], indirect=True)
async def test_an_english_team_reads_the_handoff_in_plain_english(
    chat: ChatService, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    session, answered = await hand_off(
        chat,
        http,
        "Which integrations do you support?",
        "Can I speak to someone?",
        "lena@example.org",
    )
    answer = " ".join(answered.answer.split())[:80]
    data = hook_data(http, session)
    lines = data["summary"].split("\n")
    assert lines[0] == "Contact: lena@example.org"
    assert lines[1].startswith("wants to talk to a person — outside opening hours — wrote ")
    assert lines[2] == "Question: “Which integrations do you support?”"
    assert lines[3].startswith("Last answer of the assistant: “" + answer)
    assert data["team_language"] == "en"

    (mail,) = [m for m in smtp.mails if session in m.message["X-Frontdesk-Idempotency-Key"]]
    assert mail.subject.startswith(
        "Chat handoff — Tessellate: wants to talk to a person — outside opening hours"
    )
    assert mail.body.startswith("Contact: lena@example.org\nwants to talk to a person")
    assert "Question: “Which integrations do you support?”" in mail.body
