"""Changing a site's embedding model: the old index answers until the new one is complete,
then searches switch to it at once; a failed re-embed changes nothing (real SQLite)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence

import pytest
from sqlalchemy import Engine, text

from frontdesk.knowledge.embedding import embedders as embeddings
from frontdesk.knowledge.embedding.embedders import HashingEmbedder
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.knowledge.web import site_sync
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource
from frontdesk.text.embedding import Matrix
from tests.support.website import LoopbackWebsite, page_marker, page_path

pytestmark = pytest.mark.integration


class GatedEmbedder(HashingEmbedder):
    """A real hashing model whose document embedding waits for the test to open a gate
    (or fails), so the test can search while the re-embed is half-way."""

    def __init__(self, dim: int, gate: threading.Event, fail: bool = False) -> None:
        super().__init__(dim)
        self.gate = gate
        self.fail = fail
        self.started = threading.Event()

    @property
    def name(self) -> str:
        return f"gated:{self.dim}"

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.started.set()
        assert self.gate.wait(30), "the test never opened the gate"
        if self.fail:
            raise RuntimeError("model crashed half-way")
        return super().embed_documents(texts)


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, GatedEmbedder]]:
    models: dict[str, GatedEmbedder] = {}

    def factory(model: str) -> GatedEmbedder:
        return models[model]

    monkeypatch.setitem(embeddings._FACTORIES, "gated", factory)
    embeddings.make_embedder.cache_clear()
    yield models
    embeddings.make_embedder.cache_clear()


DOCS = [
    Document(
        "refunds.md",
        "Refunds",
        "Refunds are paid within 14 days to the card used.",
        "markdown",
        "t:r",
    ),
    Document(
        "hours.md",
        "Opening hours",
        "The shop opens at 9:00 and closes at 18:00.",
        "markdown",
        "t:h",
    ),
]


def site(model: str) -> SiteKnowledge:
    return SiteKnowledge("shop", KnowledgeConfig(embedding=model, relevance_threshold=0.05))


def test_old_index_answers_until_the_new_one_is_complete_then_switches(
    kb: KnowledgeBase, engine: Engine, gated: dict[str, GatedEmbedder]
) -> None:
    kb.ingest_documents(site("hash:256"), DOCS, progress=False)
    assert kb.search(site("hash:256"), "when are refunds paid").chunks[0].doc_id == "refunds.md"

    gate = threading.Event()
    gated["128"] = GatedEmbedder(128, gate)
    changed = site("gated:128")
    # The first search after the change starts the re-embed and is answered by the old index.
    during = kb.search(changed, "when are refunds paid")
    assert during.status == "ok" and during.chunks[0].doc_id == "refunds.md"
    assert gated["128"].started.wait(10)
    serving = kb.generations.get("shop")
    assert serving is not None
    assert (serving.index_key, serving.embedding_model) == ("shop", "hash:256")
    assert (serving.pending_key, serving.pending_model) == ("shop@1", "gated:128")
    # Still the old index, however many searches come in meanwhile.
    assert kb.search(changed, "opening hours").chunks[0].doc_id == "hours.md"
    # The writer reads meaning with the model the site's support bar was measured with.
    assert kb.serving_embedder(changed).name == kb.embedder(site("hash:256")).name

    gate.set()
    thread = kb.start_reembed(changed)
    if thread is not None:
        thread.join(30)
    serving = kb.generations.get("shop")
    assert serving is not None
    assert (serving.index_key, serving.embedding_model) == ("shop@1", "gated:128")
    assert serving.pending_key is None
    assert kb.search(changed, "when are refunds paid").chunks[0].doc_id == "refunds.md"
    assert {d.doc_id for d in kb.list_documents(changed)} == {"refunds.md", "hours.md"}
    assert kb.serving_embedder(changed) is gated["128"]
    with engine.connect() as conn:
        models = dict(
            conn.execute(
                text("SELECT site_id, MIN(embedding_model) FROM knowledge_chunks GROUP BY site_id")
            ).all()
        )
    assert models == {"shop@1": "gated:128"}  # the old generation is gone, no mixed rows


def test_a_failed_re_embed_leaves_the_old_index_answering(
    kb: KnowledgeBase, gated: dict[str, GatedEmbedder]
) -> None:
    kb.ingest_documents(site("hash:256"), DOCS, progress=False)
    gate = threading.Event()
    gate.set()
    gated["64"] = GatedEmbedder(64, gate, fail=True)
    report = kb.reembed(site("gated:64"), progress=False)
    assert report is not None and not report.switched
    serving = kb.generations.get("shop")
    assert serving is not None
    assert (serving.index_key, serving.embedding_model, serving.pending_key) == (
        "shop",
        "hash:256",
        None,
    )
    assert kb.search(site("gated:64"), "opening hours").chunks[0].doc_id == "hours.md"


def test_documents_ingested_during_a_re_embed_are_in_the_new_index(
    kb: KnowledgeBase, gated: dict[str, GatedEmbedder]
) -> None:
    kb.ingest_documents(site("hash:256"), DOCS, progress=False)
    gate = threading.Event()
    gated["32"] = GatedEmbedder(32, gate)
    changed = site("gated:32")
    thread = kb.start_reembed(changed)
    assert thread is not None and gated["32"].started.wait(10)
    late = Document(
        "parking.md", "Parking", "Customers park for free behind the shop.", "markdown", "t:p"
    )
    ingest = threading.Thread(target=kb.ingest_documents, args=(changed, [late]), daemon=True)
    ingest.start()
    gate.set()
    ingest.join(30)
    thread.join(30)
    assert kb.index_key("shop") == "shop@1"
    found = kb.search(changed, "where can customers park")
    assert found.chunks[0].doc_id == "parking.md"


def crawler(kb: KnowledgeBase, website: LoopbackWebsite) -> Callable[[SiteKnowledge], int]:
    """Crawls `website` into the site "shop" as the product does; returns pages changed."""
    source = WebSource.model_validate({"url": website.url + "/", "allow_private_network": True})
    engine = kb.index.engine  # type: ignore[attr-defined]

    def crawl(site: SiteKnowledge) -> int:
        return asyncio.run(site_sync(engine, kb, site).sync("shop", source)).changed

    return crawl


def test_crawls_after_a_change_of_model_write_the_generation_that_answers(
    kb: KnowledgeBase,
) -> None:
    """After a re-embed the site answers from `shop@1`: a crawl writes its pages there
    (it used to write under the site id, which no search reads), and a page the crawl
    state knows but the serving index lacks is read again in full."""
    old = SiteKnowledge("shop", KnowledgeConfig(embedding="hash:256"), language="en")
    new = SiteKnowledge("shop", KnowledgeConfig(embedding="hash:128"), language="en")
    with LoopbackWebsite(4, slow_s=0.1) as website:
        crawl = crawler(kb, website)

        def found(marker: str) -> bool:
            return any(marker in c.content for c in kb.search(new, marker, top_k=20).chunks)

        assert crawl(old) > 0
        thread = kb.start_reembed(new)
        assert thread is not None
        thread.join(60)
        assert kb.index_key(new) == "shop@1" and found(page_marker(2, 0))

        website.edit(2)
        assert crawl(new) == 1
        assert found(page_marker(2, 1)) and not found(page_marker(2, 0))
        assert kb.index.list_documents("shop") == []  # nothing written where no one reads

        page = website.url + page_path(3)
        kb.index.remove_documents("shop@1", [page])  # as a crawl under the old key left it
        assert not found(page_marker(3, 0))
        assert crawl(new) == 1
        assert found(page_marker(3, 0))


def test_what_a_crawl_changes_during_a_re_embed_is_in_the_new_index(
    kb: KnowledgeBase, gated: dict[str, GatedEmbedder]
) -> None:
    """A crawl while the new model embeds writes the generation that answers; the re-embed
    copies what it changed and drops what it removed before it switches, so the edit is
    not lost at the switch (the next crawl finds the page unchanged and would not read
    it again)."""
    old = SiteKnowledge("shop", KnowledgeConfig(embedding="hash:256"), language="en")
    gate = threading.Event()
    gated["32"] = GatedEmbedder(32, gate)
    new = SiteKnowledge("shop", KnowledgeConfig(embedding="gated:32"), language="en")
    with LoopbackWebsite(4, slow_s=0.1) as website:
        crawl = crawler(kb, website)
        assert crawl(old) > 0
        thread = kb.start_reembed(new)
        assert thread is not None and gated["32"].started.wait(10)
        website.edit(2)
        assert crawl(new) == 1  # written to "shop", the generation that answers
        gone = website.url + page_path(3)
        kb.index.remove_documents("shop", [gone])  # as a crawl removes a page gone twice
        gate.set()
        thread.join(60)

    assert kb.index_key(new) == "shop@1"
    contents = [c.content for c in kb.search(new, page_marker(2, 1), top_k=20).chunks]
    assert any(page_marker(2, 1) in text for text in contents)
    assert not any(page_marker(2, 0) in text for text in contents)
    assert gone not in {doc.doc_id for doc in kb.index.list_documents("shop@1")}
