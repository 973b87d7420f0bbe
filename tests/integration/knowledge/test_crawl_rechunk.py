"""A page crawled before the chunker withheld planted and hidden text is judged again.

A page author planted a note to AI systems and hidden paragraphs on a page that an older
chunker indexed as it was (simulated: the withholding steps off and the chunker version
before). The page never changes, so the server answers the next crawl with 304s; that
crawl still reads it in full, because its document was cut by an older chunker, and the
planted text leaves the index. The crawl after that is back to 304s and embeds nothing.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine

from frontdesk.knowledge.embedding.embedders import make_embedder
from frontdesk.knowledge.ingest import ingestor as ingest
from frontdesk.knowledge.ingest.ingestor import Ingestor
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.knowledge.web import SiteSync, extract
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource
from tests.integration.knowledge.test_crawl_planted import PLANTED_PAGE
from tests.support.website import LoopbackWebsite, page_path

pytestmark = pytest.mark.integration

OLDER_CHUNKER = "4"


def test_a_page_cut_by_an_older_chunker_is_read_again_though_unchanged(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = KnowledgeBase(engine)
    site = SiteKnowledge("acme", KnowledgeConfig(embedding="hash:256"))
    ingestor = Ingestor(kb.index, make_embedder("hash:256"), site.ingest_options(progress=False))
    sync = SiteSync(engine, ingestor)

    def index_text() -> str:
        return " ".join(chunk.content for chunk in kb.search(site, "refunds evil").chunks)

    with LoopbackWebsite(3, slow_s=0.1, oversized_bytes=50_000) as website:
        website._put(page_path(1), PLANTED_PAGE)
        source = WebSource.model_validate(
            {"url": website.url + "/", "allow_private_network": True, "timeout_s": 2.0}
        )
        # The older chunker: nothing withheld, hidden paragraphs kept.
        monkeypatch.setattr(ingest, "CHUNKER_VERSION", OLDER_CHUNKER)
        monkeypatch.setattr(ingest, "withhold_instructions", lambda text, own_hosts: (text, []))
        monkeypatch.setattr(extract, "drop_hidden", lambda tree: [])
        asyncio.run(sync.sync("acme", source))
        assert "evil.example" in index_text()  # what the older chunker let through
        monkeypatch.undo()

        upgraded = asyncio.run(sync.sync("acme", source))
        after = asyncio.run(sync.sync("acme", source))

    url = website.url + page_path(1)
    documents = {doc.doc_id: doc for doc in kb.list_documents("acme")}
    reasons = {w.reason for w in documents[url].withheld}
    assert {"addressed_to_assistant", "hidden_font_size", "hidden_display_none"} <= reasons
    assert "evil" not in index_text() and "zzrefundzz" in index_text()
    assert upgraded.changed == len(documents), upgraded  # every page cut again, once
    assert all(ingest.chunked_by_current_chunker(doc.fingerprint) for doc in documents.values())
    # Judged once: the next crawl is conditional again (304s), nothing read or embedded.
    assert after.fetched == 0 and after.changed == 0 and after.chunks_embedded == 0
