"""The German bike shop (tests/fixtures/radwerk) through the real graph, for questions its
site facts do not cover: the local writer chooses sentences and table rows by meaning as
well as by words (compounds, German nouns that are no names), answers a question in
English from the German pages with a lead-in that names their language, and an LLM writer
(a scripted chat model standing in for the paid API) translates; the citations say which.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.engines.factory import build_engines
from frontdesk.engines.llm.models import ModelSet
from frontdesk.engines.llm.schemas import (
    EvaluationOutput,
    QueryOutput,
    SuggestionsOutput,
    VerificationOutput,
)
from frontdesk.engines.local.answering.meaning import unit_texts
from frontdesk.knowledge.models import content_hash
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from tests.support.scripted import ScriptedChatModel

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
LLM_ENGINE = """\
engine:
  name: llm
  roles: {main: "openai:gpt-4.1-mini"}
  routing_mode: hybrid
"""


def build(root: Path, engine: str = "") -> tuple[Runtime, Settings]:
    sites = root / "sites"
    sites.mkdir()
    shutil.copytree(FIXTURE, sites / "kb")
    (sites / "radwerk.yaml").write_text(SITE + engine, encoding="utf-8")
    settings = Settings(data_dir=root / "data", sites_dir=sites)
    runtime = build_runtime(settings)
    report = KnowledgeBase(runtime.engine).ingest_path(
        runtime.site("radwerk").config, sites / "kb", progress=False
    )
    assert len(report.ingested) == 7
    return runtime, settings


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    runtime, _ = build(tmp_path)
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def ask(service: ChatService, message: str) -> dict[str, Any]:
    session = str(uuid.uuid4())
    site = service.runtime.site("radwerk")
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("radwerk", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


def cited_urls(values: dict[str, Any]) -> set[str]:
    return {citation["url"] for citation in values["citations"]}


async def test_a_german_noun_is_not_a_missing_name(service: ChatService) -> None:
    # "Motor" is capitalised because German capitalises nouns: no passage names it, and
    # the passages were dropped as being about something else.
    values = await ask(service, "Repariert ihr E-Bikes mit Bosch-Motor?")
    assert "zertifizierter Bosch-Partner" in values["answer"], values["answer"]
    assert "https://radwerk.example/leistungen.html" in cited_urls(values)


async def test_a_compound_finds_its_parts_in_a_table_row(service: ChatService) -> None:
    values = await ask(service, "Macht ihr einen Kettenwechsel?")
    assert "Kette wechseln" in values["answer"] and "18 €" in values["answer"], values["answer"]
    assert cited_urls(values) == {"https://radwerk.example/preise.html"}
    assert "Sprache" not in values["answer"]  # a German page for a German question


async def test_an_english_question_quotes_the_german_page_by_meaning(
    service: ChatService,
) -> None:
    values = await ask(service, "How long does a repair take?")
    answer = values["answer"]
    assert answer.startswith("Our page on this is in German; it says:"), answer
    assert "Kleine Reparaturen meist am selben Tag" in answer, answer
    assert cited_urls(values) == {"https://radwerk.example/faq.html"}
    citation = values["citations"][0]
    assert citation["language"] == "de" and citation["translated"] is False

    values = await ask(service, "Do you sell bikes?")
    assert "Nein, wir verkaufen keine neuen Räder" in values["answer"], values["answer"]
    assert "E-Bike-Service" not in values["answer"]  # shares "bikes", says nothing of selling


async def test_a_pages_sentences_are_embedded_once_then_read_from_the_cache(
    service: ChatService,
) -> None:
    knowledge = service.knowledge
    site = service.runtime.site("radwerk").config
    faq = next(
        chunk
        for chunk in (await knowledge.asearch(site, "Wie lange dauert eine Reparatur?")).chunks
        if chunk.url.endswith("faq.html")
    )
    texts = unit_texts(faq.title, faq.heading_path, faq.content)
    model = knowledge.serving_embedder(site).name
    keys = [content_hash(text) for text in texts]
    assert not knowledge.index.cached_vectors(model, keys)
    await ask(service, "How long does a repair take?")
    assert len(knowledge.index.cached_vectors(model, keys)) == len(set(texts))


class ByJob(ScriptedChatModel):
    """Answers each structured job by its prompt, so parallel nodes can't race a list."""

    replies: dict[str, Any] = Field(default_factory=dict)

    def _next(self, messages: list[Any]) -> Any:
        self.seen.append(list(messages))
        system = messages[0].text
        for marker, reply in self.replies.items():
            if marker in system:
                return reply
        raise AssertionError(f"unexpected prompt: {system[:120]}")


async def test_an_llm_writer_translates_and_the_citation_says_so(tmp_path: Path) -> None:
    runtime, settings = build(tmp_path, LLM_ENGINE)
    fast = ByJob(
        model_name="gpt-4.1-nano",
        replies={
            "standalone search query": QueryOutput(
                reasoning="as is", query="How long does a repair take?"
            ),
            "Extract up to ten": VerificationOutput(reasoning="no claims", claims=[]),
            "Critique the drafted answer": EvaluationOutput(
                reasoning="good", quality=90, coverage="full"
            ),
            "Suggest three": SuggestionsOutput(reasoning="next", questions=["Do you sell bikes?"]),
        },
    )
    writer = ScriptedChatModel(
        outcomes=["Small repairs are usually done the same day [1]."], model_name="gpt-4.1-mini"
    )
    engines = build_engines(
        runtime.site("radwerk").config,
        settings,
        models=ModelSet(fast=fast, main=writer, judge=fast),
    )
    chat = ChatService(runtime, engines=engines)
    try:
        values = await ask(chat, "How long does a repair take?")
    finally:
        await chat.close()
        runtime.close()
    assert values["answer"].startswith("Small repairs are usually done the same day [1]")
    system = writer.seen[0][0].text
    assert 'language with code "en"' in system and "translated" in system
    citation = values["citations"][0]
    assert citation["url"] == "https://radwerk.example/faq.html"
    assert citation["language"] == "de" and citation["translated"] is True
