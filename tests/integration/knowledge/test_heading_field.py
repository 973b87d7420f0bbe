"""The heading field of the embedded index: a per-site FTS5 table of each chunk's heading
path, written and deleted with its chunk, searched as the hybrid search's third list, and
built by revision 0015 for a database whose chunks were written before it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from frontdesk.knowledge.index.lexicon import fts_table, heading_table
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.text.lexical import query_terms

pytestmark = pytest.mark.integration

SiteFactory = Callable[..., SiteKnowledge]

# (title, text); the shipping page is long enough for a chunk per section at a chunk
# size of 64 (heading paths "Shipping > Delivery times" and "Shipping > Shipping abroad").
PAGES = {
    "refunds.md": (
        "Refund policy",
        "Money goes back to the card within 14 days. Shipping fees are not returned.",
    ),
    "shipping.md": (
        "Shipping",
        "## Delivery times\n\nParcels arrive in 3 to 5 working days in most regions, and a"
        " refund of the shipping fee is possible when a parcel is late by more than a week."
        "\n\n## Shipping abroad\n\nWe ship to every country of the European Union and to"
        " Switzerland and Norway, with customs paperwork prepared by our warehouse team. Orders"
        " outside Europe are not shipped yet.",
    ),
    "account.md": (
        "Your account",
        "Change your password and e-mail address on the profile page.",
    ),
}


def markdown(doc_id: str, title: str, text_: str) -> Document:
    return Document(doc_id, title, text_, "markdown", f"test:{doc_id}")


def documents() -> list[Document]:
    return [markdown(d, title, body) for d, (title, body) in PAGES.items()]


def rows(engine: Engine, table: str) -> dict[int, str]:
    with engine.connect() as conn:
        return dict(conn.execute(text(f"SELECT rowid, * FROM {table} ORDER BY rowid")).all())  # type: ignore[arg-type]


def test_heading_search_ranks_by_headings_alone(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    site = make_site("shop", relevance_threshold=0.0, chunk_size=64, chunk_overlap=8)
    kb.ingest_documents(site, documents(), progress=False)
    index = kb.index
    assert isinstance(index, SqliteKnowledgeIndex)
    # "refund" is in both pages' text but only in one heading; "delivery" only in one.
    body = {h.chunk_id for h in index.lexical_search("shop", query_terms("refund"), 10)}
    found = index.heading_search("shop", query_terms("refund"), 10)
    chunks = index.get_chunks("shop", [h.chunk_id for h in found])
    assert len(body) == 2
    assert [chunks[h.chunk_id].doc_id for h in found] == ["refunds.md"]
    delivery = index.heading_search("shop", query_terms("When is my delivery?"), 10)
    assert [index.get_chunks("shop", [delivery[0].chunk_id])[delivery[0].chunk_id].doc_id] == [
        "shipping.md"
    ]
    assert index.heading_search("shop", query_terms("password"), 10) == []  # body only
    assert index.heading_search("nobody", query_terms("refund"), 10) == []  # no table


def test_heading_rows_follow_their_chunks_without_a_rebuild(
    kb: KnowledgeBase, make_site: SiteFactory
) -> None:
    site = make_site("shop", relevance_threshold=0.0, chunk_size=64, chunk_overlap=8)
    kb.ingest_documents(site, documents(), progress=False)
    engine = kb.index.engine  # type: ignore[attr-defined]
    bodies, headings = fts_table("shop"), heading_table("shop")
    before = rows(engine, headings)
    assert set(before) == set(rows(engine, bodies))  # one heading row per chunk row
    assert "refund polici" in before.values()
    changed = markdown("account.md", "Your profile and password", PAGES["account.md"][1])
    kb.ingest_documents(site, [changed], progress=False)
    after = rows(engine, headings)
    # The other pages' rows are untouched (same rowids, same terms); the account page's
    # old row is gone and its new one (SQLite may reuse the rowid) holds the new heading.
    new = "your profil and password"
    assert {r: v for r, v in after.items() if v != new} == {
        r: v for r, v in before.items() if v != "your account"
    }
    assert list(after.values()).count(new) == 1
    assert "your account" not in after.values()
    found = kb.index.heading_search("shop", query_terms("password"), 5)
    assert [kb.index.get_chunks("shop", [h.chunk_id])[h.chunk_id].doc_id for h in found] == [
        "account.md"
    ]
    kb.remove_document(site, "account.md")
    assert kb.index.heading_search("shop", query_terms("password"), 5) == []
    assert set(rows(engine, headings)) == set(rows(engine, bodies))


def test_the_heading_list_lifts_a_page_whose_title_names_the_question(
    kb: KnowledgeBase, make_site: SiteFactory
) -> None:
    """Hybrid search with the heading list: the page titled with the question's words
    gains rank over one that only mentions them; weight 0 is the two-list fusion."""
    site = make_site("shop", relevance_threshold=0.0, chunk_size=64, chunk_overlap=8)
    kb.ingest_documents(site, documents(), progress=False)
    retriever, key = kb.retriever(site), kb.index_key(site)
    query = "refund"
    vector = retriever.embed_query(query)

    def scores(weight: float) -> dict[str, float]:
        options = SearchOptions(relevance_threshold=None, heading_weight=weight)
        result = retriever.search_with_vector(key, query, vector, options)
        return {c.doc_id: c.rank_score for c in result.chunks}

    off, on = scores(0.0), scores(0.5)
    assert on["refunds.md"] > off["refunds.md"]
    assert on["shipping.md"] == pytest.approx(off["shipping.md"])
    assert on["refunds.md"] - off["refunds.md"] == pytest.approx(0.5 / 31, abs=1e-6)


def chunk_rows(engine: Engine) -> list[dict[str, object]]:
    """Every chunk row but its language, which revision 0022 adds (a downgrade past it
    drops what ingest detected; chunks without one are detected at search time)."""
    with engine.connect() as conn:
        found = conn.execute(text("SELECT * FROM knowledge_chunks ORDER BY id")).mappings()
        return [{k: v for k, v in row.items() if k != "language"} for row in found]


def test_upgrade_builds_the_heading_field_of_existing_chunks(tmp_path: Path) -> None:
    """A database whose chunks were written before revision 0015 (no heading tables):
    the upgrade writes each site's heading rows from the stored chunks — the rows a
    fresh ingest writes — and leaves every other row as it was."""
    from alembic import command

    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import alembic_config, current_revision, head_revision, upgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine)
    kb = KnowledgeBase(engine)
    config = KnowledgeConfig(
        embedding="hash:256", relevance_threshold=0.0, chunk_size=64, chunk_overlap=8
    )
    sites = [SiteKnowledge(name, config) for name in ("shop", "другой сайт")]
    for site in sites:
        kb.ingest_documents(site, documents(), progress=False)
    keys = {s.site_id: kb.index_key(s) for s in sites}
    fresh = {s.site_id: rows(engine, heading_table(keys[s.site_id])) for s in sites}
    bodies = {s.site_id: rows(engine, fts_table(keys[s.site_id])) for s in sites}
    assert all(fresh.values())
    searched = {s.site_id: kb.search(s, "delivery times").chunks for s in sites}
    chunks = chunk_rows(engine)
    engine.dispose()

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0014")  # as the previous version left it
    with engine.connect() as conn:
        names = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))
        assert not [n for (n,) in names if n.startswith("knowledge_heading_")]
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    for site in sites:
        assert rows(engine, heading_table(keys[site.site_id])) == fresh[site.site_id]
        assert rows(engine, fts_table(keys[site.site_id])) == bodies[site.site_id]
    assert chunk_rows(engine) == chunks
    after = KnowledgeBase(engine)
    for site in sites:
        assert after.search(site, "delivery times").chunks == searched[site.site_id]
        found = after.index.heading_search(keys[site.site_id], query_terms("delivery"), 5)
        assert len(found) == 1
    engine.dispose()
