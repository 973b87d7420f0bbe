"""One register per site: the same German bike shop (tests/fixtures/radwerk) with `tone:
formal` and `tone: informal`, through the real graph (real SQLite, the default embedder,
the local engine) and the widget's config endpoint. Every reply, suggestion and widget
text of the formal site says "Sie", of the informal one "du" — never both in one reply —
and a suggestion is a question a visitor would ask, never a page's title."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from frontdesk.api.app import create_app
from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.register import Tone, address_forms
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
ORIGIN = "https://radwerk.example"
SITE = """\
id: radwerk-{tone}
name: Radwerk Kreuzberg
default_language: de
languages: [de, en]
tone: {tone}
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_radwerk_{tone}
  allowed_origins: ["{origin}"]
business_hours:
  timezone: Europe/Berlin
"""
TONES: tuple[Tone, ...] = ("formal", "informal")
# Messages that reach the catalog's replies: an answer, a request for a person, a
# question the pages do not answer, a booking.
MESSAGES = (
    "Wie lange dauert eine Reparatur?",
    "Ich möchte bitte mit einem Menschen sprechen.",
    "Kann ich bei euch ein Lastenrad für eine Hochzeit in Hamburg mieten?",
    "Ich möchte einen Termin buchen.",
)


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("tone")
    sites = root / "sites"
    sites.mkdir()
    shutil.copytree(FIXTURE, sites / "kb")
    for tone in TONES:
        (sites / f"radwerk-{tone}.yaml").write_text(
            SITE.format(tone=tone, origin=ORIGIN), encoding="utf-8"
        )
    settings = Settings(data_dir=root / "data", sites_dir=sites)
    runtime = build_runtime(settings)
    for tone in TONES:
        site = runtime.site(f"radwerk-{tone}")
        report = KnowledgeBase(runtime.engine).ingest_path(
            site.config, sites / "kb", progress=False
        )
        assert len(report.ingested) == 7
    runtime.close()
    return settings


@pytest.fixture
async def service(settings: Settings) -> AsyncIterator[ChatService]:
    chat = ChatService(build_runtime(settings))
    yield chat
    await chat.close()
    chat.runtime.close()


async def ask(service: ChatService, site_id: str, session: str, message: str) -> dict[str, Any]:
    site = service.runtime.site(site_id)
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id(site_id, session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


def titles(service: ChatService, site_id: str) -> set[str]:
    knowledge = KnowledgeBase(service.runtime.engine)
    return {d.title for d in knowledge.list_documents(service.runtime.site(site_id).config)}


async def test_every_reply_and_chip_speaks_in_the_sites_register(service: ChatService) -> None:
    replies: dict[Tone, list[str]] = {"formal": [], "informal": []}
    for tone in TONES:
        site_id = f"radwerk-{tone}"
        pages = titles(service, site_id)
        for message in MESSAGES:
            values = await ask(service, site_id, str(uuid.uuid4()), message)
            answer = values["answer"]
            other = "informal" if tone == "formal" else "formal"
            assert other not in address_forms(answer, "de"), (tone, message, answer)
            replies[tone].append(answer)
            for chip in [*values.get("suggested_follow_ups", [])]:
                assert chip.endswith("?"), chip
                assert chip not in pages and not any(f"„{t}“" in chip for t in pages), chip
                assert other not in address_forms(chip, "de"), (tone, chip)
    # The two sites do differ: each register is actually spoken.
    assert any("formal" in address_forms(text, "de") for text in replies["formal"])
    assert any("informal" in address_forms(text, "de") for text in replies["informal"])
    assert replies["formal"] != replies["informal"]


async def test_follow_up_chips_never_dress_up_a_page_name(service: ChatService) -> None:
    for tone in TONES:
        site_id = f"radwerk-{tone}"
        values = await ask(service, site_id, str(uuid.uuid4()), "Wie lange dauert eine Reparatur?")
        chips = values.get("suggested_follow_ups", [])
        # The pages' own names (their titles and top headings) are not questions.
        names = ("FAQ", "Häufige Fragen", "Unsere Leistungen", "Willkommen", "Preise", "Kontakt")
        assert not any(name in chip for name in names for chip in chips), chips


def test_the_widget_config_follows_the_sites_register(settings: Settings) -> None:
    runtime = build_runtime(settings)
    try:
        app = create_app(settings, runtime)
        with TestClient(app) as client:
            bodies = {
                tone: client.get(
                    "/v1/widget/config",
                    params={"key": f"pk_test_radwerk_{tone}"},
                    headers={"Origin": ORIGIN},
                ).json()
                for tone in TONES
            }
            script = client.get("/widget.js").text
    finally:
        runtime.close()
    formal, informal = bodies["formal"], bodies["informal"]
    assert formal["site"]["tone"] == "formal" and informal["site"]["tone"] == "informal"
    assert "Fragen Sie mich" in formal["greeting"]["de"], formal["greeting"]["de"]
    assert "Frag mich" in informal["greeting"]["de"], informal["greeting"]["de"]
    for tone, body in bodies.items():
        other = "informal" if tone == "formal" else "formal"
        assert other not in address_forms(body["greeting"]["de"], "de")
        # No question-shaped page title in German here: no chip is better than "FAQ".
        for chip in body["suggestions"]["de"]:
            assert chip.endswith("?"), chip
    # The widget's own strings travel in its script, both registers.
    assert "Schreiben Sie uns" in script and "Schreib uns" in script
    assert "/*@frontdesk-strings@*/" not in script
