"""The facts of each site's documents in the app store (`site_facts`, revision 0017)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from frontdesk.facts.model import SiteFact, SiteFacts, deduplicated

_metadata = sa.MetaData()
# Like the knowledge index's tables, written by a hand-made revision (its foreign key
# points at `knowledge_documents`, which has no ORM model): a Core table, not a mapped class.
site_facts = sa.Table(
    "site_facts",
    _metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("site_id", sa.String(255), nullable=False),
    sa.Column("doc_id", sa.String(1024), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("position", sa.Integer(), nullable=False),
    sa.Column("fact", sa.Text(), nullable=False),
)
_documents = sa.table(
    "knowledge_documents",
    sa.column("site_id"),
    sa.column("doc_id"),
    sa.column("url"),
    sa.column("title"),
)


class FactStore:
    """Facts per document: replaced with the document, read per site."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def replace_document(self, site_id: str, doc_id: str, facts: Sequence[SiteFact]) -> None:
        """The document's facts become `facts` (an empty list clears them)."""
        with self.engine.begin() as conn:
            conn.execute(
                site_facts.delete().where(
                    site_facts.c.site_id == site_id, site_facts.c.doc_id == doc_id
                )
            )
            if facts:
                conn.execute(
                    site_facts.insert(),
                    [
                        {
                            "site_id": site_id,
                            "doc_id": doc_id,
                            "kind": fact.kind,
                            "position": fact.position,
                            "fact": fact.to_json(),
                        }
                        for fact in facts
                    ],
                )

    def for_site(self, site_id: str) -> SiteFacts:
        """Every fact of the site, each once, with the page it came from."""
        query = (
            sa.select(site_facts.c.doc_id, site_facts.c.fact, _documents.c.url, _documents.c.title)
            .join(
                _documents,
                sa.and_(
                    _documents.c.site_id == site_facts.c.site_id,
                    _documents.c.doc_id == site_facts.c.doc_id,
                ),
            )
            .where(site_facts.c.site_id == site_id)
            .order_by(sa.func.length(site_facts.c.doc_id), site_facts.c.doc_id, site_facts.c.id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return deduplicated(
            [
                SiteFact.from_json(fact, doc_id=doc_id, url=url or "", title=title or "")
                for doc_id, fact, url, title in rows
            ]
        )
