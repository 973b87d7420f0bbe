"""How broad pgvector's HNSW list is for a search (pure: no database)."""

from __future__ import annotations

import pytest

from frontdesk.knowledge.index.postgres_hnsw import MAX_EF_SEARCH, ef_search_for


@pytest.mark.parametrize(
    ("graph_rows", "expected"),
    [(0, 50), (199_999, 50), (200_000, 100), (599_999, 100), (600_000, 200), (5_000_000, 200)],
)
def test_a_larger_graph_gets_a_broader_list(graph_rows: int, expected: int) -> None:
    """A hybrid search's 50 candidates: the list is the LIMIT on a graph under 200k rows,
    twice it to 600k, four times it beyond (recall@10 >= 0.98 on each, docs/knowledge.md)."""
    assert ef_search_for(50, 40, graph_rows) == expected


def test_the_floor_and_pgvectors_bound_still_hold() -> None:
    assert ef_search_for(10, 40, 0) == 40  # the configured floor
    assert ef_search_for(10, 40, 1_000_000) == 40  # 4 x 10 is still under the floor
    assert ef_search_for(400, 40, 1_000_000) == MAX_EF_SEARCH  # 1,600 capped
    assert ef_search_for(0, 0, 0) == 1
