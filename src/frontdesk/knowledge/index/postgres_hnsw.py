"""How broad pgvector's HNSW lists are: the graph's build list and a search's candidate
list (`ef_search_for`), by the rows a search asks for and the rows in the graph."""

from __future__ import annotations

DEFAULT_EF_SEARCH = 40  # the floor under the search list's length
# The HNSW graph's build list (pgvector's default is 64). 128 lifts recall@10 (top 10 of
# a hybrid search's 50 candidates, ef_search 50) in 500-chunk clouds of near-ties from
# 0.948 to 0.990 at 100k chunks and from 0.886 to 0.977 at 300k, for a bulk build
# 1.2-1.3x longer (docs/knowledge.md). pgvector reads it from the index's
# options at every insert, so revision 0016 sets it on existing indexes too.
HNSW_EF_CONSTRUCTION = 128
MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search
# How much broader than its LIMIT a search's list is, by the rows in the graph (all
# sites share one graph a dimension). Recall@10 of a hybrid search's 50 candidates on
# graphs built at 128 (docs/knowledge.md): 0.990 at 100k with a list of
# 50; at 300k 0.977 with 50, 0.999 with 100; at 1M 0.918 with 50, 0.975 with 100, 0.995
# with 200. Each step costs a few ms of CPU, paid only where the graph needs it.
LIST_BREADTH: tuple[tuple[int, int], ...] = ((600_000, 4), (200_000, 2))


def ef_search_for(limit: int, floor: int, graph_rows: int = 0) -> int:
    """The HNSW candidate list for a search asking for `limit` rows: at least `limit`
    (pgvector's advice: a list shorter than the LIMIT cannot hold the best rows), wider
    on a large graph (`LIST_BREADTH`), at least the configured `floor`, at most pgvector's
    bound."""
    breadth = next((times for rows, times in LIST_BREADTH if graph_rows >= rows), 1)
    return max(1, min(MAX_EF_SEARCH, max(limit * breadth, floor)))
