"""Ingestion into a real SQLite index: incremental re-ingest, failures, uploads, cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, text

from frontdesk.knowledge.index.lexicon import fts_table
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge

pytestmark = pytest.mark.integration

SiteFactory = Callable[..., SiteKnowledge]


def section(name: str, sentences: int) -> str:
    body = " ".join(
        f"The {name} step {i} explains one detail of the {name} setup." for i in range(sentences)
    )
    return f"## {name.title()}\n\n{body}\n\n"


def write_kb(root: Path) -> None:
    (root / "guides").mkdir(parents=True)
    (root / "guides" / "setup.md").write_text(
        "# Setup guide\n\n"
        + section("install", 20)
        + section("network", 20)
        + section("backup", 20),
        encoding="utf-8",
    )
    (root / "opening-hours.txt").write_text("We are open from 9 to 17 on weekdays.", "utf-8")
    (root / "pricing.html").write_text(
        "<html><head><title>Pricing</title></head><body><nav>Menu</nav><main><h1>Pricing</h1>"
        "<p>The team plan bills monthly.</p></main><footer>Legal</footer></body></html>",
        encoding="utf-8",
    )


def test_reingest_is_incremental(
    kb: KnowledgeBase, engine: Engine, tmp_path: Path, make_site: SiteFactory
) -> None:
    root = tmp_path / "kb"
    write_kb(root)
    site = make_site("acme", chunk_size=96, chunk_overlap=16)

    first = kb.ingest_path(site, root, progress=False)
    assert sorted(first.ingested) == ["guides/setup.md", "opening-hours.txt", "pricing.html"]
    assert first.failed == {}
    setup_chunks = next(d for d in kb.list_documents(site) if d.doc_id == "guides/setup.md")
    assert setup_chunks.chunk_count >= 6
    assert first.chunks_embedded == first.chunks_total

    again = kb.ingest_path(site, root, progress=False)
    assert sorted(again.skipped) == sorted(first.ingested)
    assert again.ingested == again.updated == again.removed == []
    assert again.chunks_embedded == 0

    guide = root / "guides" / "setup.md"
    guide.write_text(guide.read_text("utf-8").replace("backup step 19", "backup step 99"), "utf-8")
    (root / "pricing.html").unlink()
    changed = kb.ingest_path(site, root, progress=False)
    assert changed.updated == ["guides/setup.md"]
    assert changed.removed == ["pricing.html"]
    assert sorted(changed.skipped) == ["opening-hours.txt"]
    # Only the edited chunk is embedded again; the others come from the cache.
    assert 1 <= changed.chunks_embedded < setup_chunks.chunk_count

    assert [d.doc_id for d in kb.list_documents(site)] == ["guides/setup.md", "opening-hours.txt"]
    result = kb.search(site, "team plan bills monthly")
    assert all(chunk.doc_id != "pricing.html" for chunk in result.chunks)
    with engine.connect() as conn:
        fts = conn.execute(text(f"SELECT count(*) FROM {fts_table(site.site_id)}")).scalar_one()
        chunks = conn.execute(text("SELECT count(*) FROM knowledge_chunks")).scalar_one()
    assert fts == chunks  # no orphaned lexical rows


def test_changed_chunking_options_rechunk_everything(
    kb: KnowledgeBase, tmp_path: Path, make_site: SiteFactory
) -> None:
    root = tmp_path / "kb"
    write_kb(root)
    kb.ingest_path(make_site("acme", chunk_size=96, chunk_overlap=16), root, progress=False)
    report = kb.ingest_path(
        make_site("acme", chunk_size=200, chunk_overlap=16), root, progress=False
    )
    assert sorted(report.updated) == ["guides/setup.md", "opening-hours.txt", "pricing.html"]


def test_broken_and_unsupported_files_fail_alone(
    kb: KnowledgeBase, tmp_path: Path, make_site: SiteFactory
) -> None:
    root = tmp_path / "kb"
    write_kb(root)
    (root / "guides" / "manual.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    (root / "slides.key").write_bytes(b"binary")
    site = make_site("acme")
    report = kb.ingest_path(site, root, progress=False)
    assert len(report.ingested) == 3
    assert set(report.failed) == {str(root / "guides" / "manual.pdf"), str(root / "slides.key")}
    assert (
        "guides/manual.pdf: not a readable PDF"
        in report.failed[str(root / "guides" / "manual.pdf")]
    )
    assert "failed 2" in report.summary()
    assert not report.ok


def test_single_file_and_upload(kb: KnowledgeBase, tmp_path: Path, make_site: SiteFactory) -> None:
    site = make_site("acme")
    path = tmp_path / "refunds.md"
    path.write_text("# Refunds\n\nRefunds are issued within 30 days.", "utf-8")
    assert kb.ingest_path(site, path, progress=False).ingested == ["refunds.md"]
    upload = kb.ingest_upload(site, b"# Shipping\n\nWe ship worldwide in 5 days.", "shipping.md")
    assert upload.ingested == ["shipping.md"]
    docs = {d.doc_id: d for d in kb.list_documents(site)}
    assert docs["shipping.md"].source == "upload:shipping.md"
    assert docs["refunds.md"].title == "Refunds"
    bad = kb.ingest_upload(site, b"\x00\x01", "archive.zip")
    assert "archive.zip: unsupported file type" in bad.failed["archive.zip"]
    assert kb.search(site, "ship worldwide").chunks[0].doc_id == "shipping.md"
    assert kb.remove_document(site, "shipping.md")
    assert not kb.remove_document(site, "shipping.md")
    assert [d.doc_id for d in kb.list_documents(site)] == ["refunds.md"]


def test_embedding_cache_is_shared_by_content_hash(
    kb: KnowledgeBase, tmp_path: Path, make_site: SiteFactory
) -> None:
    root = tmp_path / "kb"
    write_kb(root)
    first = kb.ingest_path(make_site("one"), root, progress=False)
    second = kb.ingest_path(make_site("two"), root, progress=False)
    assert first.chunks_embedded > 0
    assert second.chunks_embedded == 0
    assert second.chunks_total == first.chunks_total


def test_an_encoded_blob_is_shown_but_not_embedded(
    kb: KnowledgeBase, tmp_path: Path, make_site: SiteFactory
) -> None:
    """A page's bookmarklet stays in the passage a visitor reads, but the vector is the
    page's words alone: the same page without it embeds nothing new (one cache key)."""
    blob = "javascript:(function()%7Bvar%20v%3Ddocument.querySelector(%22video%22)%3B" * 4
    words = "# Saving videos\n\nDrag this link to your bookmarks bar, then click it on a video."
    with_blob, without = tmp_path / "with", tmp_path / "without"
    for root, page in [(with_blob, f"{words}\n\n{blob}\n"), (without, f"{words}\n\n")]:
        root.mkdir()
        (root / "save.md").write_text(page, "utf-8")

    first = kb.ingest_path(make_site("one"), with_blob, progress=False)
    second = kb.ingest_path(make_site("two"), without, progress=False)
    assert first.chunks_embedded == first.chunks_total == 1
    assert second.chunks_total == 1 and second.chunks_embedded == 0
    shown = kb.search(make_site("one"), "bookmarks bar video").chunks[0].content
    assert blob in shown


def test_migration_creates_and_drops_the_knowledge_tables(engine: Engine) -> None:
    from alembic import command

    from frontdesk.store.migrate import alembic_config

    tables = set(inspect(engine).get_table_names())
    assert {
        "knowledge_documents",
        "knowledge_chunks",
        "knowledge_embedding_cache",
        "knowledge_sites",
        "knowledge_changes",
    } <= tables
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0001")
    assert not {t for t in inspect(engine).get_table_names() if t.startswith("knowledge_")}
