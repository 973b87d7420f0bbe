"""Learning a website: a real HTTP server on loopback serving a generated 320-page site.

What must survive: a crawl that fails halfway changes nothing (the previous index keeps
answering); an unchanged page costs no embedding; a page is removed only after it stays
gone on two syncs; private addresses are refused unless the source allows them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np
import pytest
from sqlalchemy import Engine

from frontdesk.knowledge.embedding.embedders import make_embedder
from frontdesk.knowledge.ingest.ingestor import Ingestor
from frontdesk.knowledge.models import content_hash
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.knowledge.web import CrawlAborted, CrawlStore, SiteSync
from frontdesk.knowledge.web.sync import CrawlSummary
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource
from frontdesk.text.embedding import Embedder
from tests.support.website import LoopbackWebsite, page_marker, page_path

pytestmark = pytest.mark.integration

PAGES = 320


class CountingEmbedder:
    """The real (hashing) embedder, counting the texts it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:  # type: ignore[type-arg]
        self.texts.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:  # type: ignore[type-arg]
        return self.inner.embed_query(text)


@pytest.fixture
def website() -> Iterator[LoopbackWebsite]:
    with LoopbackWebsite(PAGES, slow_s=1.5, oversized_bytes=300_000) as site:
        yield site


def source_for(website: LoopbackWebsite, **overrides: object) -> WebSource:
    rules: dict[str, object] = {
        "url": website.url + "/",
        "allow_private_network": True,
        "timeout_s": 0.6,
        "max_page_bytes": 200_000,
        "politeness": {"concurrency": 8},
    }
    return WebSource.model_validate(rules | overrides)


class Harness:
    def __init__(self, engine: Engine, website: LoopbackWebsite) -> None:
        self.kb = KnowledgeBase(engine)
        self.site = SiteKnowledge("acme", KnowledgeConfig(embedding="hash:256"))
        self.embedder = CountingEmbedder(make_embedder("hash:256"))
        ingestor = Ingestor(self.kb.index, self.embedder, self.site.ingest_options(progress=False))
        self.sync = SiteSync(engine, ingestor)
        self.website = website

    def crawl(self, **overrides: object) -> CrawlSummary:
        self.embedder.texts.clear()
        source = source_for(self.website, **overrides)
        return asyncio.run(self.sync.sync("acme", source))

    def doc_ids(self) -> set[str]:
        return {doc.doc_id for doc in self.kb.list_documents("acme")}

    def top_doc(self, query: str) -> str | None:
        result = self.kb.search(self.site, query)
        return result.chunks[0].doc_id if result.chunks else None


def test_crawl_resync_remove_and_failed_crawl(engine: Engine, website: LoopbackWebsite) -> None:
    harness = Harness(engine, website)
    base = website.url
    first = harness.crawl()

    docs = harness.doc_ids()
    pages = {base + page_path(n) for n in range(PAGES)}
    assert pages <= docs, "every page of the sitemap index (plain and gzip) is learned"
    # Robots, canonical duplicates, mirrors and redirects add nothing of their own.
    assert not any("/private/" in doc or "?print" in doc or "/mirror/" in doc for doc in docs)
    assert base + "/old/start" not in docs and base + "/old/middle" not in docs
    assert first.skipped[base + "/private/secret.html"] == "disallowed by robots.txt"
    assert first.skipped[base + "/docs/page-7.html?print=1"].startswith("canonical is")
    assert first.skipped[base + "/mirror/page-8.html"] == f"duplicate of {base}/docs/page-8.html"
    assert first.skipped[base + "/old/start"] == f"redirects to {base}/docs/page-5.html"
    # The 429 was retried after its Retry-After, the 503 after a backoff; the slow and
    # oversized pages failed.
    assert base + "/busy.html" in docs and base + "/flaky.html" in docs
    assert first.failed[base + "/slow.html"] == "timed out"
    assert "byte limit" in first.failed[base + "/huge.html"]
    assert first.failed[base + "/docs/missing-1.html"] == "HTTP 404"
    assert base + "/docs/missing-page.html" in first.failed  # the footer's dead link
    assert not any("elsewhere.example" in url for url in [*docs, *first.failed])
    # PDF, Markdown, text and the Windows-1251 page are read, the last one decoded right.
    for path, word in (
        ("/files/guide.pdf", "zzpdfzz"),
        ("/notes/readme.md", "zzmdzz"),
        ("/notes/hours.txt", "zztxtzz"),
        ("/intl/ru.html", "zzcyrzz"),
    ):
        assert harness.top_doc(word) == base + path
    ru = harness.kb.search(harness.site, "Счета выставляются ежемесячно")
    assert ru.chunks[0].doc_id == base + "/intl/ru.html"
    assert "Счета выставляются ежемесячно" in ru.chunks[0].content
    # Citations link to the page (and to the heading's anchor under a heading).
    hit = harness.kb.search(harness.site, page_marker(12)).chunks[0]
    assert hit.url.startswith(base + page_path(12))
    assert first.changed == len(docs) and first.chunks_embedded > 0

    # Re-sync after editing 5 pages: only those pages are extracted and embedded again.
    edited = [3, 50, 101, 202, 299]
    for number in edited:
        website.edit(number)
    second = harness.crawl()
    assert second.changed == 5 and second.removed == 0
    assert second.unchanged >= PAGES - 5
    assert harness.embedder.texts, "the edited pages are embedded"
    for text in harness.embedder.texts:
        assert any(page_marker(n, 1) in text or f"Guide {n} " in text for n in edited), text
    assert {
        n for n in edited if any(page_marker(n, 1) in t for t in harness.embedder.texts)
    } == set(edited)
    assert harness.top_doc(page_marker(50, 1)) == base + page_path(50)

    # Deleted pages (404 and dropped from the sitemap) disappear after two syncs.
    website.delete(10)
    website.delete(11)
    third = harness.crawl()
    assert third.removed == 0 and {base + page_path(10), base + page_path(11)} <= harness.doc_ids()
    fourth = harness.crawl()
    assert fourth.removed == 2
    assert base + page_path(10) not in harness.doc_ids()
    assert harness.embedder.texts == []  # nothing changed: nothing embedded

    # The server dies mid-crawl: the sync fails and the previous index keeps answering.
    before = {doc.doc_id: doc.fingerprint for doc in harness.kb.list_documents("acme")}
    for number in (60, 61, 62):
        website.edit(number)
    website.die_after = website.requests + 40
    with pytest.raises(CrawlAborted):
        harness.crawl(timeout_s=0.3)
    after = {doc.doc_id: doc.fingerprint for doc in harness.kb.list_documents("acme")}
    assert after == before, "never half a site"
    assert harness.top_doc(page_marker(60, 0)) == base + page_path(60)
    runs = CrawlStore(engine).runs("acme")
    assert [run.status for run in runs[:2]] == ["failed", "succeeded"]
    assert runs[0].error


def test_private_addresses_are_refused_unless_allowed(
    engine: Engine, website: LoopbackWebsite
) -> None:
    harness = Harness(engine, website)
    with pytest.raises(CrawlAborted, match="not a public address"):
        harness.crawl(allow_private_network=False)
    assert harness.doc_ids() == set()


def test_include_exclude_depth_and_max_pages(engine: Engine, website: LoopbackWebsite) -> None:
    base = website.url
    patterns = Harness(engine, website)
    patterns.crawl(include=[r"/docs/page-1\d\.html$"], exclude=[r"page-15"])
    expected = {base + page_path(n) for n in range(10, 20) if n != 15}
    assert patterns.doc_ids() == expected | {base + "/"}  # the start URL is always read
    # Pages no longer reached (here: newly excluded) stay one sync, go on the second.
    narrower = {"include": [r"/docs/page-1\d\.html$"], "exclude": [r"page-1[0-4]\."]}
    assert patterns.crawl(**narrower).removed == 0
    assert patterns.doc_ids() == expected | {base + page_path(15), base + "/"}
    assert patterns.crawl(**narrower).removed == 5
    assert patterns.doc_ids() == {base + page_path(n) for n in range(15, 20)} | {base + "/"}

    shallow = Harness(engine, website)
    shallow.site = SiteKnowledge("shallow", shallow.site.config)
    summary = asyncio.run(
        shallow.sync.sync("shallow", source_for(website, sitemap=base + "/none.xml", max_depth=1))
    )
    docs = {doc.doc_id for doc in shallow.kb.list_documents("shallow")}
    assert base + page_path(0) in docs  # one hop from the start
    assert base + page_path(1) not in docs  # two hops
    assert summary.found < 30

    capped = Harness(engine, website)
    assert asyncio.run(capped.sync.sync("capped", source_for(website, max_pages=20))).found == 20


def test_a_site_crawled_before_titles_counted_gets_them_from_its_next_crawl(
    engine: Engine, website: LoopbackWebsite
) -> None:
    """A crawl never re-ingests an unchanged page, so a site crawled before page titles
    ranked its searches (`knowledge/search/titles.py`) gets its titles from the next crawl's
    title pass: every page title is embedded once, and no passage again."""
    kb = KnowledgeBase(engine)
    site = SiteKnowledge("acme", KnowledgeConfig(embedding="hash:256", title_weight=0.5))
    embedder = CountingEmbedder(make_embedder("hash:256"))
    source = source_for(website)
    older = replace(site.ingest_options(progress=False), title_vectors=False)
    asyncio.run(SiteSync(engine, Ingestor(kb.index, embedder, older)).sync("acme", source))
    titles = {doc.title.strip() for doc in kb.list_documents("acme") if doc.title.strip()}
    hashes = [content_hash(title) for title in titles]
    assert len(titles) > 100 and kb.index.cached_vectors("hash:256", hashes) == {}

    embedder.texts.clear()
    current = Ingestor(kb.index, embedder, site.ingest_options(progress=False))
    summary = asyncio.run(SiteSync(engine, current).sync("acme", source))
    assert summary.chunks_embedded == 0
    assert sorted(embedder.texts) == sorted(titles)
    assert len(kb.index.cached_vectors("hash:256", hashes)) == len(titles)
    embedder.texts.clear()
    asyncio.run(SiteSync(engine, current).sync("acme", source))
    assert embedder.texts == []  # kept in the cache: the next crawl reads them, once
