"""SQL of the PostgreSQL knowledge index, and the literals it binds (vectors, tsvector,
tsquery). One statement fuses dense and lexical candidates by reciprocal rank."""

from __future__ import annotations

from collections.abc import Sequence

from frontdesk.knowledge.index.base import Vector


def vector_literal(vector: Vector) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def tsquery_literal(terms: Sequence[str]) -> str:
    """An OR of quoted lexemes (`'a' | 'b'`); terms are already stemmed."""
    quoted = []
    for term in dict.fromkeys(terms):
        escaped = term.replace("\\", "\\\\").replace("'", "''")
        quoted.append(f"'{escaped}'")
    return " | ".join(quoted)


def tsvector_literal(body: str) -> tuple[str, int]:
    """A tsvector literal of space-separated terms with their positions, and the length."""
    positions: dict[str, list[int]] = {}
    words = body.split()
    for i, word in enumerate(words, start=1):
        positions.setdefault(word, []).append(min(i, 16383))
    parts = []
    for word, where in positions.items():
        escaped = word.replace("\\", "\\\\").replace("'", "''")
        parts.append(f"'{escaped}':" + ",".join(str(p) for p in where[:256]))
    return " ".join(parts), len(words)


HYBRID = """
WITH dense AS MATERIALIZED (
  SELECT chunk_id, 1 - (embedding_vec::vector({d}) <=> CAST(:vec AS vector({d}))) AS cosine
  FROM knowledge_chunks
  WHERE site_id = :site AND embedding_model = :model AND embedding_dim = {d}
  ORDER BY embedding_vec::vector({d}) <=> CAST(:vec AS vector({d})) LIMIT :limit
), dense_ranked AS (
  SELECT chunk_id, cosine, row_number() OVER (ORDER BY cosine DESC, chunk_id) AS rank
  FROM dense
), lexical AS MATERIALIZED ({bm25}), headings AS MATERIALIZED ({bm25_heading}), fused AS (
  SELECT chunk_id, sum(part) AS rank_score FROM (
    SELECT chunk_id, CAST(:wd AS float8) / (:k + rank) AS part FROM dense_ranked
    UNION ALL
    SELECT chunk_id, CAST(:wl AS float8) / (:k + row_number() OVER (ORDER BY score DESC,
      chunk_id)) FROM lexical
    UNION ALL
    SELECT chunk_id, CAST(:wh AS float8) / (:k + row_number() OVER (ORDER BY score DESC,
      chunk_id)) FROM headings
  ) parts GROUP BY chunk_id
)
SELECT f.chunk_id, f.rank_score,
  COALESCE(d.cosine, CASE WHEN c.embedding_model = :model AND c.embedding_dim = {d}
    THEN 1 - (c.embedding_vec::vector({d}) <=> CAST(:vec AS vector({d}))) END) AS cosine
FROM fused f
JOIN knowledge_chunks c ON c.site_id = :site AND c.chunk_id = f.chunk_id
LEFT JOIN dense_ranked d ON d.chunk_id = f.chunk_id
ORDER BY f.rank_score DESC, f.chunk_id
"""


# Term frequencies of the asked terms only: `setweight` marks them, `ts_filter` keeps
# them, so a matched chunk's tsvector is unnested to a few entries instead of all its
# lexemes. `:n` and `:avgdl` are the site's chunk count and average length (cached by
# `PgLexicon`: a count per query would scan the site).
_BM25 = """
WITH matches AS MATERIALIZED (
  SELECT c.chunk_id, c.{length} AS dl, u.lexeme, cardinality(u.positions) AS tf
  FROM knowledge_chunks c,
    unnest(ts_filter(setweight(c.{column}, 'A', CAST(:{p}terms AS text[])), '{{a}}')) u
  WHERE :{p}has_terms AND c.site_id = :site AND c.{column} @@ CAST(:{p}tsq AS tsquery)
), df AS (
  SELECT lexeme, count(*) AS df FROM matches GROUP BY lexeme
)
SELECT m.chunk_id, sum({idf} * m.tf
  * 2.2 / (m.tf + 1.2 * (1 - 0.75 + 0.75 * m.dl / CAST(:{p}avgdl AS float8)))) AS score
FROM matches m JOIN df USING (lexeme)
GROUP BY m.chunk_id ORDER BY score DESC, m.chunk_id LIMIT :limit
"""


# Lucene's idf (never negative), and FTS5's: log((N - n + 0.5) / (n + 0.5)), 1e-6 when
# that is not positive — so a heading word in most of a site's titles ("how") weighs
# next to nothing, as it does in the SQLite index's heading list.
_IDF_LUCENE = "ln(1 + (CAST(:{p}n AS float8) - df.df + 0.5) / (df.df + 0.5))"
_IDF_FTS5 = "GREATEST(ln((CAST(:{p}n AS float8) - df.df + 0.5) / (df.df + 0.5)), 0.000001)"


def bm25_sql(column: str, length: str, prefix: str = "", *, idf: str = _IDF_LUCENE) -> str:
    """BM25 over one tsvector field (`lexical` or `heading`) and its length column; its
    parameters (`:terms`, `:tsq`, `:has_terms`, `:n`, `:avgdl`) carry `prefix`."""
    return _BM25.format(column=column, length=length, p=prefix, idf=idf.format(p=prefix))


HEADING_PREFIX = "h_"
BM25 = bm25_sql("lexical", "lexical_length")
BM25_HEADING = bm25_sql("heading", "heading_length", HEADING_PREFIX, idf=_IDF_FTS5)
