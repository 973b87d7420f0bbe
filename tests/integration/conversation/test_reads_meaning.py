"""A site that lets the local writer read by meaning (`engine.local_reads_meaning`): a
question whose words no sentence shares, but whose meaning one does, is answered from the
right page through the real graph (real SQLite, the default multilingual e5 embeddings,
the bundled Spanish clinic); by default the same question gets "I couldn't find this"."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.evals.dataset import ABSTAIN_ROUTINGS
from frontdesk.evals.sites import BUNDLED
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

KB = BUNDLED / "clinica_dental_es" / "kb"
SITE = """\
id: clinica
name: Clínica Dental Sonrisa Clara
default_language: es
languages: [es, en]
knowledge:
  sources: [{kb}]
widget:
  public_key: pk_test_clinica_0001
business_hours:
  timezone: Europe/Madrid
engine:
  local_reads_meaning: {reads}
"""
# No sentence of the children's page shares enough of the question's words ("bebé",
# "edad", "llevo" are in none) to be quoted; its first sentence says when the first visit
# is due ("hacia el primer año de vida").
QUESTION = "¿A qué edad llevo a mi bebé al dentista por primera vez?"
ANSWERED = ("answered", "partially_answered", "low_confidence")


async def chat(tmp_path: Path, reads: bool) -> AsyncIterator[ChatService]:
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "clinica.yaml").write_text(
        SITE.format(kb=KB, reads=str(reads).lower()), encoding="utf-8"
    )
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites))
    site = runtime.site("clinica")
    KnowledgeBase(runtime.engine).ingest_path(site.config, KB, progress=False)
    service = ChatService(runtime)
    yield service
    await service.close()
    runtime.close()


@pytest.fixture
async def reading(tmp_path: Path) -> AsyncIterator[ChatService]:
    async for service in chat(tmp_path, reads=True):
        yield service


@pytest.fixture
async def words_only(tmp_path: Path) -> AsyncIterator[ChatService]:
    async for service in chat(tmp_path, reads=False):
        yield service


async def turn(service: ChatService, message: str) -> dict[str, Any]:
    site = service.runtime.site("clinica")
    session = str(uuid.uuid4())
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("clinica", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


async def test_a_question_in_other_words_is_answered_from_the_right_page(
    reading: ChatService,
) -> None:
    values = await turn(reading, QUESTION)
    assert values["routing"] in ANSWERED, values["answer"]
    assert "primer año de vida" in values["answer"], values["answer"]
    assert [c["doc_id"] for c in values["citations"]][:1] == ["odontopediatria.md"]


async def test_by_default_the_writer_reads_words_only(words_only: ChatService) -> None:
    values = await turn(words_only, QUESTION)
    assert values["routing"] in ABSTAIN_ROUTINGS, values["answer"]
