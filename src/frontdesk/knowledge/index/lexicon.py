"""The embedded lexical index: SQLite FTS5 tables per site, ranked by FTS5's bm25().

Rows are the chunks' pre-stemmed text (`frontdesk.text.lexical`, each document
stemmed in its own language), written in the same transaction as the chunk rows, with
rowid = `knowledge_chunks.id`. A write costs only its own postings: nothing is rebuilt.

A second table per site holds the heading field: each chunk's heading path (title and
headings, `lexical.heading_terms`), with its own BM25 statistics (document frequencies
and lengths of headings alone) — the third list of the hybrid search. It is a table of
its own rather than a column of the first: FTS5's bm25() normalises by the whole row's
length and counts a term's rows over every column, so a heading column would neither
rank headings alone nor leave the body's ranking as it is.

A table per site keeps a query on that site's postings and its BM25 statistics (document
count, average length, document frequencies) the site's own.

FTS5 scores every row a query matches before it sorts (no top-k pruning), so a query of
common words ("how", "do", "i") on a large site would score most of it: ~2 µs a row,
200–350 ms for a term in all of 100,000 chunks. Like Lucene's common-terms query (cutoff
frequency), the rarest terms are searched first and a term is left out once the matched
postings would exceed `POSTINGS_BUDGET`. A left-out term occurs in so many chunks that
its BM25 weight is small; chunks it alone matches rank last anyway. When every term is
past the budget, the query asks for all of them (a conjunction, as Lucene does for a
query of only common terms); when even the chunks holding all of them exceed the budget,
the words are too common to rank the site by and the lexical list is empty (the dense
list ranks alone). Document frequencies for that choice are counted up to the budget (a
term past it is "common", however common) and cached per process (`DF_TTL_S`): they
steer which terms are asked, not the scores.

A conjunction that matches few chunks can still be costly to rank: bm25() weighs each
term by its document frequency, which FTS5 counts per query by reading the term's whole
posting list (~0.1–0.2 µs a posting: ~85 ms for a query of words in most of 1M chunks).
So a conjunction is ranked only when its terms' postings add up to at most
`RANKING_BUDGET`; past that, its words are too common to rank the site by, as above.
Those frequencies are counted once up to the ranking budget and cached like the others.
A query with any term under `POSTINGS_BUDGET` is searched and ranked as before.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence

from sqlalchemy import Connection, bindparam, text

FTS_OPTIONS = "tokenize = 'unicode61 remove_diacritics 2'"
POSTINGS_BUDGET = 2_000
RANKING_BUDGET = 50_000  # postings bm25() may read to weigh a conjunction's terms
DF_TTL_S = 60.0
_DF_CACHE_SIZE = 200_000


def fts_table(site_id: str) -> str:
    """The site's FTS5 table name: a digest of the exact id, so ids never collide."""
    return "knowledge_fts_" + hashlib.sha256(site_id.encode("utf-8")).hexdigest()[:16]


def site_key(site_id: str) -> str:
    """The per-site token of the shared FTS table before revision 0007 (downgrades)."""
    return "k" + hashlib.sha256(site_id.encode("utf-8")).hexdigest()[:32]


def heading_table(site_id: str) -> str:
    """The site's FTS5 table of heading paths (same digest as `fts_table`)."""
    return "knowledge_heading_" + hashlib.sha256(site_id.encode("utf-8")).hexdigest()[:16]


def create_statements(table: str, column: str = "body") -> list[str]:
    """The site's FTS5 table (one text column)."""
    return [f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5({column}, {FTS_OPTIONS})"]


def budgeted_terms(
    terms: Sequence[str], frequencies: dict[str, int], budget: int
) -> tuple[list[str], bool]:
    """(terms to ask for, whether all of them are required): the rarest known terms while
    their matches fit `budget`; when even the rarest is past it, all known terms as a
    conjunction (the caller checks that it fits), when there are two or more; else none.
    The common-terms policy of both indexes (see the module docstring)."""
    known = sorted((t for t in terms if frequencies.get(t)), key=lambda t: frequencies[t])
    chosen: list[str] = []
    total = 0
    for term in known:
        if total + frequencies[term] > budget:
            break
        chosen.append(term)
        total += frequencies[term]
    if chosen or len(known) < 2:
        return chosen, False
    return known, True


class FrequencyCache:
    """Per-process document frequencies, counted up to a budget, kept `DF_TTL_S`: they
    steer which terms are asked, not the scores. Terms no row has are not kept (they may
    arrive with the next write)."""

    def __init__(self) -> None:
        self._df: dict[tuple[str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def get(self, scope: str, terms: Sequence[str]) -> tuple[dict[str, int], list[str]]:
        """(cached frequencies, terms to count)."""
        now = time.monotonic()
        found: dict[str, int] = {}
        missing: list[str] = []
        for term in terms:
            cached = self._df.get((scope, term))
            if cached is not None and now - cached[0] < DF_TTL_S:
                found[term] = cached[1]
            else:
                missing.append(term)
        return found, missing

    def put(self, scope: str, counted: dict[str, int]) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._df) > _DF_CACHE_SIZE:
                self._df.clear()
            for term, count in counted.items():
                if count:
                    self._df[(scope, term)] = (now, count)


def quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class Lexicon:
    """Writes and searches one field's per-site FTS5 tables of one SQLite database:
    the chunks' bodies (the default) or, with `heading_table` and "heading", their
    heading paths."""

    def __init__(
        self,
        budget: int = POSTINGS_BUDGET,
        ranking_budget: int = RANKING_BUDGET,
        *,
        table_of: Callable[[str], str] = fts_table,
        column: str = "body",
    ) -> None:
        self.budget = budget
        self.ranking_budget = ranking_budget
        self.table_of = table_of
        self.column = column
        self._tables: set[str] = set()
        self._df = FrequencyCache()
        self._postings = FrequencyCache()  # counted up to the ranking budget

    def ensure_table(self, conn: Connection, site_id: str) -> str:
        table = self.table_of(site_id)
        if table not in self._tables:
            for statement in create_statements(table, self.column):
                conn.execute(text(statement))
            self._tables.add(table)
        return table

    def _exists(self, conn: Connection, site_id: str) -> str | None:
        table = self.table_of(site_id)
        if table in self._tables:
            return table
        found = conn.execute(
            text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"),
            {"name": table},
        ).scalar()
        if found is None:
            return None
        self._tables.add(table)
        return table

    def add(self, conn: Connection, site_id: str, rows: Sequence[tuple[int, str]]) -> None:
        if not rows:
            return
        table = self.ensure_table(conn, site_id)
        conn.execute(
            text(f"INSERT INTO {table} (rowid, {self.column}) VALUES (:id, :body)"),
            [{"id": row_id, "body": body} for row_id, body in rows],
        )

    def remove(self, conn: Connection, site_id: str, row_ids: Sequence[int]) -> None:
        """Delete the FTS rows of these chunk rows (in the transaction deleting them)."""
        table = self._exists(conn, site_id)
        if table is None or not row_ids:
            return
        statement = text(f"DELETE FROM {table} WHERE rowid IN :ids").bindparams(
            bindparam("ids", expanding=True)
        )
        for start in range(0, len(row_ids), 500):
            conn.execute(statement, {"ids": list(row_ids[start : start + 500])})

    def search(
        self, conn: Connection, site_id: str, terms: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """(chunk row id, BM25 score: higher is better) of the best `limit` rows."""
        distinct = list(dict.fromkeys(terms))
        if not distinct or limit <= 0:
            return []
        table = self._exists(conn, site_id)
        if table is None:
            return []
        expression = self.match_expression(conn, table, distinct)
        if expression is None:
            return []
        rows = conn.exec_driver_sql(
            f"SELECT rowid, bm25({table}) AS rank FROM {table} WHERE {table} MATCH ?"
            " ORDER BY rank LIMIT ?",
            (expression, limit),
        ).all()
        # FTS5's bm25() is negative: more negative is better.
        return [(int(row[0]), -float(row[1])) for row in rows]

    def match_expression(self, conn: Connection, table: str, terms: list[str]) -> str | None:
        """The FTS5 query whose matches fit the budget: the rarest terms OR-ed, or all
        of them AND-ed when each is past the budget and their postings fit the ranking
        budget; None when nothing fits (or no term is known: unknown terms match
        nothing)."""
        frequencies = self._frequencies(conn, table, terms)
        chosen, conjunction = budgeted_terms(terms, frequencies, self.budget)
        if not conjunction:
            return " OR ".join(quoted(term) for term in chosen) if chosen else None
        if not self._rankable(conn, table, chosen):
            return None
        expression = " AND ".join(quoted(term) for term in chosen)
        fits = self._count(conn, table, expression, self.budget + 1) <= self.budget
        return expression if fits else None

    def _count(self, conn: Connection, table: str, expression: str, cap: int) -> int:
        """Rows matching `expression`, counted up to `cap` (FTS5 stops there; an exact
        count of a common word walks its whole posting list)."""
        return int(
            conn.exec_driver_sql(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                (expression, cap),
            ).scalar_one()
        )

    def _frequencies(self, conn: Connection, table: str, terms: list[str]) -> dict[str, int]:
        found, missing = self._df.get(table, terms)
        # Counted up to the budget only: fts5vocab's exact count walks the whole
        # posting list, milliseconds for a common word on a large site.
        counted = {
            term: self._count(conn, table, quoted(term), self.budget + 1) for term in missing
        }
        self._df.put(table, counted)
        return found | counted

    def _rankable(self, conn: Connection, table: str, terms: list[str]) -> bool:
        """Whether bm25() would read at most `ranking_budget` postings to weigh these
        terms. Each is counted up to the ranking budget (cached), and counting stops
        once their sum is past it."""
        found, _ = self._postings.get(table, terms)
        total = 0
        for term in sorted(terms, key=lambda t: (t not in found, found.get(t, 0))):
            if term not in found:
                found[term] = self._count(conn, table, quoted(term), self.ranking_budget + 1)
                self._postings.put(table, {term: found[term]})
            total += found[term]
            if total > self.ranking_budget:
                return False
        return True
