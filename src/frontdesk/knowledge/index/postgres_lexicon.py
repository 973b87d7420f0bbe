"""What a lexical search asks PostgreSQL: the query's terms under the postings budget,
and the site's BM25 statistics.

BM25 in SQL reads the tsvector of every chunk the query matches. A term in most chunks
of a large site ("how", "the", a product's name) made that every chunk: ~0.1 ms a row,
seconds at 100,000 chunks. The query therefore follows the SQLite index's common-terms
policy (`frontdesk.knowledge.index.lexicon`): the rarest terms while their matches fit
`POSTINGS_BUDGET`, else all of them required when that fits, else no lexical list.
Document frequencies (counted up to the budget through the GIN index) and the site's
chunk count and average length are cached per process for `DF_TTL_S`: they steer which
terms are asked and weigh BM25's idf and length norm; a minute-old count changes neither
noticeably, where a count per query would scan the site.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from sqlalchemy import Connection, text

from frontdesk.knowledge.index.lexicon import (
    DF_TTL_S,
    POSTINGS_BUDGET,
    FrequencyCache,
    budgeted_terms,
)
from frontdesk.knowledge.index.postgres_sql import tsquery_literal

_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM knowledge_chunks WHERE site_id = :site"
    " AND {column} @@ CAST(:tsq AS tsquery) LIMIT :cap) AS found"
)
_STATS = (
    "SELECT count(*), COALESCE(NULLIF(avg({length}), 0), 1) FROM knowledge_chunks"
    " WHERE site_id = :site"
)


class PgLexicon:
    """Chooses a lexical query's terms and holds the site statistics BM25 needs, for one
    tsvector field: the chunks' bodies (`lexical`, the default) or their heading paths
    (`heading`, `heading_length`)."""

    def __init__(
        self,
        budget: int = POSTINGS_BUDGET,
        *,
        column: str = "lexical",
        length: str = "lexical_length",
    ) -> None:
        self.budget = budget
        self._count_sql = _COUNT.format(column=column)
        self._stats_sql = _STATS.format(length=length)
        self._df = FrequencyCache()
        self._stats: dict[str, tuple[float, int, float]] = {}
        self._lock = threading.Lock()

    def query(self, conn: Connection, site_id: str, terms: Sequence[str]) -> tuple[str, list[str]]:
        """(tsquery literal, its terms) to search; ("", []) when no term fits the budget."""
        distinct = list(dict.fromkeys(terms))
        if not distinct:
            return "", []
        found, missing = self._df.get(site_id, distinct)
        counted = {term: self._count(conn, site_id, tsquery_literal([term])) for term in missing}
        self._df.put(site_id, counted)
        chosen, conjunction = budgeted_terms(distinct, found | counted, self.budget)
        if not conjunction:
            return tsquery_literal(chosen), chosen
        everything = " & ".join(tsquery_literal([term]) for term in chosen)
        if self._count(conn, site_id, everything) <= self.budget:
            return everything, chosen
        return "", []

    def stats(self, conn: Connection, site_id: str) -> tuple[int, float]:
        """(chunks, average lexical length) of the site, at most `DF_TTL_S` old."""
        now = time.monotonic()
        cached = self._stats.get(site_id)
        if cached is not None and now - cached[0] < DF_TTL_S:
            return cached[1], cached[2]
        count, average = conn.execute(text(self._stats_sql), {"site": site_id}).one()
        with self._lock:
            self._stats[site_id] = (now, int(count), float(average))
        return int(count), float(average)

    def _count(self, conn: Connection, site_id: str, tsquery: str) -> int:
        value = conn.execute(
            text(self._count_sql), {"site": site_id, "tsq": tsquery, "cap": self.budget + 1}
        ).scalar_one()
        return int(value)
