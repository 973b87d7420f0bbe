"""A price asked in another language than the site's, through the real graph (real SQLite,
the default multilingual embedder, the local engine): a Valencia hair salon lists its
prices in Spanish; an English visitor asks for one. The service's label is scored with the
model's cross-language offset, as passages are, so the English name of a listed service
finds its Spanish row; a service the list does not name still finds none."""

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
id: salon
name: Salón Brisa
default_language: es
languages: [es, en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_salon_brisa_0001
business_hours:
  timezone: Europe/Madrid
"""

PAGES = {
    "precios.md": """# Precios

| Servicio | Precio |
|---|---|
| Corte de señora | 28 € |
| Corte de caballero | 16 € |
| Corte infantil | 11 € |
| Tinte raíz | 35 € |
| Peinado de fiesta | 40 € |
""",
    "salon.md": """# Salón Brisa

Peluquería de barrio en el centro de Valencia desde 2009. Cortes, color y peinados para
toda la familia. Pide cita por teléfono o pásate por el salón.
""",
}


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    sites = tmp_path / "sites"
    (sites / "kb").mkdir(parents=True)
    (sites / "salon.yaml").write_text(SITE, encoding="utf-8")
    for name, text in PAGES.items():
        (sites / "kb" / name).write_text(text, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites))
    site = runtime.site("salon")
    report = KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    assert len(report.ingested) == 2
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def turn(service: ChatService, message: str) -> dict[str, Any]:
    site = service.runtime.site("salon")
    session = str(uuid.uuid4())
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("salon", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


async def test_an_english_question_finds_the_spanish_price_row(service: ChatService) -> None:
    values = await turn(service, "How much is a men's haircut?")
    reply = values.get("fact_reply")
    assert reply is not None and reply["kind"] == "price", values.get("site_support")
    assert [fact["label"] for fact in reply["facts"]] == ["Corte de caballero"]
    assert "16" in values["answer"], values["answer"]


async def test_the_same_question_in_spanish_still_finds_it(service: ChatService) -> None:
    values = await turn(service, "¿Cuánto cuesta un corte de caballero?")
    assert "16" in values["answer"], values["answer"]
