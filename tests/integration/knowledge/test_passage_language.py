"""Each passage's language is detected once, at ingest, and stored with the chunk; a
search that weighs passages by language reads it instead of detecting it again. Chunks
stored before languages were (NULL) are still detected at search time."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, text

from frontdesk.knowledge.models import Document
from frontdesk.knowledge.search import retriever as retriever_module
from frontdesk.knowledge.service import KnowledgeBase

pytestmark = pytest.mark.integration

PAGES = [
    Document(
        "refunds.md",
        "Refunds",
        "Refunds are paid back to the card you paid with, within fourteen days of the return.",
        "markdown",
        "refunds.md",
    ),
    Document(
        "ru-refunds.md",
        "Возврат",
        "Деньги возвращаются на карту, с которой вы платили, в течение четырнадцати дней.",
        "markdown",
        "ru-refunds.md",
    ),
]


def detections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = retriever_module.passage_language

    def counting(content: str, default: str = "en") -> Any:
        seen.append(content)
        return original(content, default)

    monkeypatch.setattr(retriever_module, "passage_language", counting)
    return seen


def test_passage_languages_are_stored_at_ingest_and_read_by_searches(
    engine: Engine, kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, make_site: Any
) -> None:
    site = make_site("shop", cross_language_offset=0.05, relevance_threshold=None)
    kb.ingest_documents(site, PAGES, progress=False)
    with engine.connect() as conn:
        stored = dict(conn.execute(text("SELECT doc_id, language FROM knowledge_chunks")).all())
    assert stored == {"refunds.md": "en", "ru-refunds.md": "ru"}

    seen = detections(monkeypatch)
    result = kb.search(site, "How are refunds paid?")
    languages = {chunk.doc_id: chunk.language for chunk in result.chunks}
    assert languages == {"refunds.md": "en", "ru-refunds.md": "ru"}
    assert seen == []  # read from the chunks, not detected again

    # Chunks written before languages were stored: detected at search time, same answer.
    with engine.begin() as conn:
        conn.execute(text("UPDATE knowledge_chunks SET language = NULL"))
    older = KnowledgeBase(engine)
    result = older.search(site, "How are refunds paid?")
    assert {chunk.doc_id: chunk.language for chunk in result.chunks} == languages
    assert len(seen) == 2
