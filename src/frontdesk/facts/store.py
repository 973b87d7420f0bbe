"""The facts of each site's documents in the app store (`site_facts`, revision 0017) and the
team's corrections of them (`site_fact_corrections`, revision 0019)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from frontdesk.facts.corrections import Correction, CorrectionAction
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
fact_corrections = sa.Table(
    "site_fact_corrections",
    _metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("site_id", sa.String(255), nullable=False),
    sa.Column("key", sa.String(512), nullable=False),
    sa.Column("revision", sa.Integer(), nullable=False),
    sa.Column("action", sa.String(16), nullable=False),
    sa.Column("fact", sa.Text(), nullable=False),
    sa.Column("author", sa.String(320), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
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


class CorrectionConflict(Exception):
    """Someone else corrected the same fact since the form was shown: nothing was saved."""

    def __init__(self, current: Correction | None) -> None:
        super().__init__("changed meanwhile")
        self.current = current


class CorrectionStore:
    """The team's corrections per site: appended, never rewritten, newest revision wins."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def history(self, site_id: str) -> list[Correction]:
        """Every correction of the site, oldest first."""
        query = (
            sa.select(fact_corrections)
            .where(fact_corrections.c.site_id == site_id)
            .order_by(fact_corrections.c.key, fact_corrections.c.revision)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [_correction(row) for row in rows]

    def revision(self, site_id: str, key: str) -> int:
        """The newest revision of `key` (0: never corrected)."""
        with self.engine.connect() as conn:
            return _revision(conn, site_id, key)

    def correct(
        self,
        site_id: str,
        key: str,
        action: CorrectionAction,
        fact: SiteFact | None,
        *,
        author: str,
        expected: int,
        now: datetime | None = None,
    ) -> Correction:
        """Record a correction made from revision `expected` of `key`; CorrectionConflict
        when another correction of that key landed first (the unique revision decides a
        race: exactly one of two concurrent corrections from the same revision is kept)."""
        at = now or datetime.now(UTC)
        stored = replace(fact, corrects=key) if fact is not None else None
        try:
            with self.engine.begin() as conn:
                current = _revision(conn, site_id, key)
                if current != expected:
                    raise CorrectionConflict(self._latest(conn, site_id, key))
                conn.execute(
                    fact_corrections.insert().values(
                        site_id=site_id,
                        key=key,
                        revision=current + 1,
                        action=action,
                        fact=stored.to_json() if stored is not None else "",
                        author=author,
                        created_at=at,
                    )
                )
        except IntegrityError:
            with self.engine.connect() as conn:
                raise CorrectionConflict(self._latest(conn, site_id, key)) from None
        return Correction(key, expected + 1, action, stored, author, at)

    @staticmethod
    def _latest(conn: sa.Connection, site_id: str, key: str) -> Correction | None:
        row = (
            conn.execute(
                sa.select(fact_corrections)
                .where(fact_corrections.c.site_id == site_id, fact_corrections.c.key == key)
                .order_by(fact_corrections.c.revision.desc())
                .limit(1)
            )
            .mappings()
            .first()
        )
        return _correction(row) if row is not None else None


def _revision(conn: sa.Connection, site_id: str, key: str) -> int:
    found = conn.execute(
        sa.select(sa.func.max(fact_corrections.c.revision)).where(
            fact_corrections.c.site_id == site_id, fact_corrections.c.key == key
        )
    ).scalar()
    return int(found or 0)


def _correction(row: sa.RowMapping) -> Correction:
    at: datetime = row["created_at"]
    if at.tzinfo is None:  # SQLite hands back naive UTC
        at = at.replace(tzinfo=UTC)
    fact = SiteFact.from_json(row["fact"], doc_id="", url="", title="") if row["fact"] else None
    return Correction(row["key"], row["revision"], row["action"], fact, row["author"], at)
