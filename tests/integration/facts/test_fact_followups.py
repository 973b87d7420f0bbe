"""The hours asked the common Italian way, then a weekday on its own ("E il sabato?"), on
an Italian physiotherapy practice whose hours are only in its home page's schema.org
JSON-LD, through the real graph (SQLite, the default multilingual embedder, the local
engine). Read against English descriptions only, "Quali sono gli orari dello studio?"
was not clearly a question about the hours."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.service import ChatService
from tests.support.site_chat import chat_service, ingested_site, site_turn

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
    async for chat in chat_service(ingested_site(tmp_path, SITE, PAGES)):
        yield chat


async def ask(service: ChatService, session: str, message: str) -> dict[str, Any]:
    return await site_turn(service, "fisio", session, message)


async def test_saturday_asked_on_its_own_after_the_hours(service: ChatService) -> None:
    session = str(uuid.uuid4())
    values = await ask(service, session, "Quali sono gli orari dello studio?")
    assert (values.get("fact_reply") or {}).get("kind") == "hours", values["answer"]
    values = await ask(service, session, "E il sabato?")
    assert (values.get("fact_reply") or {}).get("kind") == "hours", values["answer"]
    assert "sabato: 09:00–12:30" in values["answer"], values["answer"]
    assert "lunedì" not in values["answer"], values["answer"]
