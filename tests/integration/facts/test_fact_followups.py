"""The hours asked the common Italian way, then a weekday on its own ("E il sabato?"), on
an Italian physiotherapy practice whose hours are only in its home page's schema.org
JSON-LD, through the real graph (SQLite, the default multilingual embedder, the local
engine). Read against English descriptions only, "Quali sono gli orari dello studio?"
was not clearly a question about the hours."""

from __future__ import annotations

import shutil
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

PAGES = (
    Path(__file__).resolve().parents[3]
    / "benchmarks"
    / "data"
    / "small_business"
    / "fisio-bologna"
    / "pages"
)
SITE = """\
id: fisio
name: Fisioterapia Santo Stefano
default_language: it
languages: [it, en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_fisio_0001
business_hours:
  timezone: Europe/Rome
  weekly:
    mon-fri: ["08:00-20:00"]
"""


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    sites = tmp_path / "sites"
    sites.mkdir()
    shutil.copytree(PAGES, sites / "kb")
    (sites / "fisio.yaml").write_text(SITE, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites))
    KnowledgeBase(runtime.engine).ingest_path(
        runtime.site("fisio").config, sites / "kb", progress=False
    )
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def ask(service: ChatService, session: str, message: str) -> dict[str, Any]:
    site = service.runtime.site("fisio")
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("fisio", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


async def test_saturday_asked_on_its_own_after_the_hours(service: ChatService) -> None:
    session = str(uuid.uuid4())
    values = await ask(service, session, "Quali sono gli orari dello studio?")
    assert (values.get("fact_reply") or {}).get("kind") == "hours", values["answer"]
    values = await ask(service, session, "E il sabato?")
    assert (values.get("fact_reply") or {}).get("kind") == "hours", values["answer"]
    assert "sabato: 09:00–12:30" in values["answer"], values["answer"]
    assert "lunedì" not in values["answer"], values["answer"]
