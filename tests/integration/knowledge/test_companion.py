"""An English site's second index (`knowledge/companion.py`), with the real models:
multilingual-e5-small answers, all-MiniLM-L6-v2 (onnxruntime) helps rank English
questions; other languages and other sites are searched as before."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from frontdesk.knowledge.companion import behind, companion_key
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.knowledge.web import site_sync
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource
from tests.support.website import LoopbackWebsite

pytestmark = pytest.mark.integration
MINILM = "local:all-MiniLM-L6-v2"

PAGES = [
    Document(
        "password.md",
        "Resetting your password",
        "Open Settings, choose Security and click 'Reset password'. A link is e-mailed to "
        "you; it works for one hour.",
        "markdown",
        "password.md",
    ),
    Document(
        "shipping.md",
        "Shipping",
        "We ship to every EU country within three business days. Shipping costs 5 EUR and "
        "is free above 50 EUR.",
        "markdown",
        "shipping.md",
    ),
    Document(
        "refunds.md",
        "Refunds",
        "Refunds are paid to the card you paid with, within 14 days of receiving the return.",
        "markdown",
        "refunds.md",
    ),
]


def searched_keys(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    keys: list[str] = []
    original = Retriever.search

    def spy(self: Retriever, site_id: str, query: str, options: Any = None) -> Any:
        keys.append(site_id)
        return original(self, site_id, query, options)

    monkeypatch.setattr(Retriever, "search", spy)
    return keys


def test_an_english_site_keeps_both_indexes_and_searches_both_for_english_questions(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = SiteKnowledge("shop", KnowledgeConfig(english_embedding=MINILM), language="en")
    kb.ingest_documents(site, PAGES, progress=False)
    second = companion_key("shop", MINILM)
    assert {d.doc_id for d in kb.index.list_documents(second)} == {d.doc_id for d in PAGES}
    kb.topic_profile(site)  # the site's calibrated threshold: probes of the default index
    keys = searched_keys(monkeypatch)

    result = kb.search(site, "How can I reset my password?")
    assert result.status == "ok" and result.chunks[0].doc_id == "password.md"
    assert keys == ["shop", second]
    # The default model's threshold still decides: the returned scores are its cosines.
    assert result.threshold is not None
    assert all(chunk.score >= result.threshold for chunk in result.chunks)

    keys.clear()
    russian = kb.search(site, "Как сбросить пароль?")
    assert russian.status == "ok" and russian.chunks[0].doc_id == "password.md"
    assert keys == ["shop"]  # another language: the default index alone

    kb.remove_document(site, "refunds.md")
    assert "refunds.md" not in {d.doc_id for d in kb.index.list_documents(second)}


def test_other_languages_and_sites_that_turn_it_off_get_no_second_index(
    kb: KnowledgeBase,
) -> None:
    russian = SiteKnowledge("ru-shop", KnowledgeConfig(english_embedding=MINILM), language="ru")
    off = SiteKnowledge("plain", KnowledgeConfig(english_embedding=None), language="en")
    for site in (russian, off):
        kb.ingest_documents(site, PAGES[:1], progress=False)
        assert kb.search(site, "reset my password").status == "ok"
        assert kb.index.list_documents(companion_key(site.site_id, MINILM)) == []


def test_documents_written_around_the_knowledge_base_are_caught_up(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A web sync writes the default index with its ingestor alone: the first search
    finds the companion behind, answers from the default index and syncs it."""
    site = SiteKnowledge("synced", KnowledgeConfig(english_embedding=MINILM), language="en")
    kb.ingestor(site, progress=False).ingest_documents("synced", PAGES)
    second = companion_key("synced", MINILM)
    kb.topic_profile(site)
    keys = searched_keys(monkeypatch)
    assert kb.search(site, "How much is shipping?").status == "ok"
    assert keys == ["synced"]
    for thread in list(kb.companions._syncs.values()):
        thread.join(timeout=60)
    assert {d.doc_id for d in kb.index.list_documents(second)} == {d.doc_id for d in PAGES}
    keys.clear()
    result = kb.search(site, "How much does shipping cost?")
    assert result.chunks[0].doc_id == "shipping.md" and keys == ["synced", second]


def test_a_crawl_brings_the_second_index_level_before_any_search(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An English site on the defaults (second model `auto`): the crawl, not the next
    visitor's search, writes MiniLM's index, and a re-crawl keeps it level."""
    site = SiteKnowledge("crawled", KnowledgeConfig(), language="en")
    second = companion_key("crawled", MINILM)

    def level() -> bool:
        primary = kb.index.list_documents("crawled")
        return bool(primary) and behind(primary, kb.index.list_documents(second)) == []

    with LoopbackWebsite(6, slow_s=0.1) as website:
        source = WebSource.model_validate({"url": website.url + "/", "allow_private_network": True})
        crawl = site_sync(kb.index.engine, kb, site)  # type: ignore[attr-defined]
        assert asyncio.run(crawl.sync("crawled", source)).changed >= 6
        assert level()
        website.edit(2)
        assert asyncio.run(crawl.sync("crawled", source)).changed == 1
        assert level()
    kb.topic_profile(site)  # its probes are searches of their own
    syncs = dict(kb.companions._syncs)  # the crawl's own, finished
    keys = searched_keys(monkeypatch)
    assert kb.search(site, "How do I set up the guide for workspace 2?").status == "ok"
    assert keys == ["crawled", second]  # both read at once: nothing left to catch up
    assert kb.companions._syncs == syncs


def test_a_second_index_the_site_stops_using_is_dropped_and_no_other_sites(
    kb: KnowledgeBase,
) -> None:
    """Turned off (or the site no longer English): the next ingest drops the old second
    index, and only this site's: `shop2` (whose id begins like it) keeps its own."""
    site = SiteKnowledge("shop", KnowledgeConfig(english_embedding=MINILM), language="en")
    neighbour = SiteKnowledge("shop2", KnowledgeConfig(english_embedding=MINILM), language="en")
    for each in (site, neighbour):
        kb.ingest_documents(each, PAGES[:2], progress=False)
    second = companion_key("shop", MINILM)
    assert kb.index.index_keys("shop#") == [second]

    off = SiteKnowledge("shop", KnowledgeConfig(english_embedding=None), language="en")
    kb.ingest_documents(off, PAGES, progress=False)
    assert kb.index.list_documents(second) == []
    assert kb.index.index_keys("shop#") == []
    assert {d.doc_id for d in kb.index.list_documents("shop")} == {d.doc_id for d in PAGES}
    kept = kb.index.list_documents(companion_key("shop2", MINILM))
    assert {d.doc_id for d in kept} == {d.doc_id for d in PAGES[:2]}
    assert kb.search(off, "How can I reset my password?").chunks[0].doc_id == "password.md"

    # Back on. Writing an older generation (another model, MiniLM itself here) keeps it:
    # what counts is the site's setting. A crawl's ingestor of the site turned off drops it.
    kb.ingest_documents(site, PAGES, progress=False)
    kb.ingestor(site.with_model(MINILM), progress=False)
    assert kb.index.index_keys("shop#") == [second]
    kb.ingestor(off, progress=False)
    assert kb.index.index_keys("shop#") == []

    # Back on, then the site's language changes: dropped as well.
    kb.ingest_documents(site, PAGES, progress=False)
    assert kb.index.index_keys("shop#") == [second]
    german = SiteKnowledge("shop", KnowledgeConfig(english_embedding=MINILM), language="de")
    assert kb.companions.prune(german) == [second]
    assert kb.index.index_keys("shop#") == []


def test_an_ingest_survives_a_failing_cleanup_of_old_second_indexes(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    site = SiteKnowledge("shop", KnowledgeConfig(english_embedding=MINILM), language="en")

    def broken(prefix: str) -> list[str]:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(kb.index, "index_keys", broken)
    report = kb.ingest_documents(site, PAGES, progress=False)
    assert sorted(report.ingested) == sorted(d.doc_id for d in PAGES)
    assert "companion_prune_failed site=shop" in caplog.text
    # Both indexes were still written.
    for key in ("shop", companion_key("shop", MINILM)):
        assert {d.doc_id for d in kb.index.list_documents(key)} == {d.doc_id for d in PAGES}
