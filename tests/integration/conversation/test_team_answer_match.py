"""A team answer is given word for word only when it answers the question asked: its own
questions must say what the visitor asked (by the site's embedding model) and it must beat
every page. Through the real graph on a small German bike-repair shop (tests/fixtures/radwerk,
real SQLite, the default multilingual embedder, the local engine) after the team wrote one
answer about its opening hours."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.improvement.team_answers import TeamAnswerVersion
from frontdesk.improvement.team_service import reindex
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
SITE = """\
id: radwerk
name: Radwerk Kreuzberg
default_language: de
languages: [de, en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_radwerk_0002
business_hours:
  timezone: Europe/Berlin
"""
HOURS = TeamAnswerVersion(
    "de",
    ("Wann habt ihr geöffnet?", "Wie sind eure Öffnungszeiten?"),
    "Wir haben Dienstag bis Freitag von 9:30 bis 18:30 Uhr und samstags von 10 bis 14 Uhr "
    "geöffnet.",
)
STORAGE = TeamAnswerVersion(
    "de",
    ("Kann ich mein Fahrrad über Nacht bei euch lassen?", "Bewahrt ihr Räder über Nacht auf?"),
    "Ja, Räder in Reparatur bleiben über Nacht sicher in unserer abgeschlossenen Werkstatt.",
)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    sites = tmp_path / "sites"
    sites.mkdir()
    shutil.copytree(FIXTURE, sites / "kb")
    (sites / "radwerk.yaml").write_text(SITE, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites))
    site = runtime.site("radwerk")
    KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    chat = ChatService(runtime)
    reindex(chat.knowledge, site.config, "hours", [HOURS], active=True)
    reindex(chat.knowledge, site.config, "storage", [STORAGE], active=True)
    yield chat
    await chat.close()
    runtime.close()


async def ask(service: ChatService, message: str) -> dict[str, Any]:
    site = service.runtime.site("radwerk")
    session = str(uuid.uuid4())
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("radwerk", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


@pytest.mark.parametrize("question", ["Habt ihr einen Kundenparkplatz?", "Wo finde ich euch?"])
async def test_a_team_answer_about_hours_never_answers_another_question(
    service: ChatService, question: str
) -> None:
    values = await ask(service, question)
    answer = values["answer"]
    assert HOURS.answer not in answer, answer
    assert "9:30" not in answer and "18:30" not in answer, answer
    assert all(not c["doc_id"].startswith("team:") for c in values["citations"]), answer
    # The turn measured the team's questions against the visitor's and found them apart.
    match = values["team_match"]
    assert match is not None and match["bar"] is not None
    assert match["similarity"]["team:hours:de"] < match["bar"]


async def test_a_team_answer_that_answers_is_given_word_for_word(service: ChatService) -> None:
    values = await ask(service, "Kann ich mein Fahrrad über Nacht bei euch lassen?")
    assert values["answer"].startswith(STORAGE.answer), values["answer"]
    assert [c["doc_id"] for c in values["citations"]] == ["team:storage:de"]
