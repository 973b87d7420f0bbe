"""The cross-lingual acceptance checks on PostgreSQL + pgvector, with the default
embedding (multilingual-e5-small): the same checks as on SQLite
(tests/integration/knowledge/test_multilingual.py), on another invented company's pages."""

from __future__ import annotations

import pytest

from frontdesk.knowledge.companion import companion_key
from frontdesk.knowledge.index.postgres import PostgresKnowledgeIndex
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade
from tests.support.pages import page

pytestmark = [pytest.mark.postgres, pytest.mark.integration, pytest.mark.timeout(600)]


# A small ferry operator's help pages in English, one of them also in Russian.
ENGLISH = [
    page(
        "tickets.md",
        "Buying tickets",
        "Tickets are sold online and at the harbour office. You pay by card or with Apple"
        " Pay; groups of ten or more can ask for an invoice.",
    ),
    page(
        "luggage.md",
        "Luggage and bicycles",
        "Each passenger may bring two bags and one bicycle free of charge. Surfboards and"
        " kayaks travel on the car deck for a small fee.",
    ),
    page(
        "pets.md",
        "Travelling with pets",
        "Dogs and cats are welcome on the outer deck and in the pet lounge; keep dogs on a"
        " lead. Guide dogs may stay with their owner everywhere.",
    ),
    page(
        "weather.md",
        "Cancellations because of weather",
        "When a crossing is cancelled because of storms, your ticket is moved to the next"
        " sailing or refunded in full; we send a text message two hours before departure.",
    ),
]
RUSSIAN = [
    page(
        "ru-tickets.md",
        "Покупка билетов",
        "Билеты продаются на сайте и в кассе порта. Оплатить можно картой или Apple Pay;"
        " группы от десяти человек могут запросить счёт.",
    ),
]


def test_cross_lingual_search_on_postgres(pgvector_url: str) -> None:
    engine = make_engine(pgvector_url)
    try:
        upgrade(engine)
        kb = KnowledgeBase(engine)
        assert isinstance(kb.index, PostgresKnowledgeIndex)
        # A Russian question finds the Russian page and the English one.
        mixed = SiteKnowledge("ferry-mixed", KnowledgeConfig(relevance_threshold=None))
        kb.ingest_documents(mixed, ENGLISH + RUSSIAN, progress=False)
        result = kb.search(mixed, "Как оплатить билет картой?", top_k=3)
        found = [chunk.doc_id for chunk in result.chunks]
        assert result.status == "ok" and found[0] in {"ru-tickets.md", "tickets.md"}, found
        assert {"ru-tickets.md", "tickets.md"} <= set(found[:3]), found
        # A German question on an English-only site finds the right page (the site's
        # threshold as the product sets it).
        # With the English second index its owner can turn on (`knowledge/companion.py`).
        second_model = "local:all-MiniLM-L6-v2"
        english = SiteKnowledge("ferry-en", KnowledgeConfig(english_embedding=second_model))
        kb.ingest_documents(english, ENGLISH, progress=False)
        for question, expected in [
            ("Darf ich mein Fahrrad mitnehmen?", "luggage.md"),
            ("Was passiert, wenn die Fähre wegen Sturm ausfällt?", "weather.md"),
            ("Können Hunde mitfahren?", "pets.md"),
        ]:
            result = kb.search(english, question)
            assert result.status == "ok", (question, result.reason, result.top_score)
            assert result.chunks[0].doc_id == expected, (question, result.chunks[0].doc_id)
        # The second index (MiniLM) lives in the same pgvector tables and ranks English
        # questions with e5.
        second = companion_key("ferry-en", second_model)
        assert len(kb.index.list_documents(second)) == len(ENGLISH)
        assert kb.companions.in_sync(english, "ferry-en", second, second_model)
        result = kb.search(english, "Can I take my kayak on board?")
        assert result.status == "ok" and result.chunks[0].doc_id == "luggage.md"
        # Turned off: the next ingest drops it from PostgreSQL too.
        assert kb.index.index_keys("ferry-en#") == [second]
        off = SiteKnowledge("ferry-en", KnowledgeConfig(english_embedding=None))
        kb.ingest_documents(off, ENGLISH, progress=False)
        assert kb.index.index_keys("ferry-en#") == [] and kb.index.list_documents(second) == []
    finally:
        engine.dispose()
