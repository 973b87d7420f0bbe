"""Citation markers are renumbered while streaming and never point at a missing chunk."""

import pytest

from frontdesk.conversation.nodes.citations import CitationRenumberer
from frontdesk.knowledge.models import RetrievedChunk

pytestmark = pytest.mark.unit


def stream(pieces: list[str], chunks: int) -> tuple[str, CitationRenumberer]:
    renumber = CitationRenumberer(chunks)
    out = "".join(renumber.feed(p) for p in pieces) + renumber.flush()
    return out, renumber


def test_first_cited_becomes_one_in_order_of_use() -> None:
    text, renumber = stream(["SSO is on Enterprise [3]. SCIM too [3]. Okta works [1]."], 4)
    assert text == "SSO is on Enterprise [1]. SCIM too [1]. Okta works [2]."
    assert renumber.order == [3, 1]


def test_markers_split_across_pieces_are_rewritten() -> None:
    text, _ = stream(["Uptime is 99.9% ", "[", "2", "]", " and credits apply [", "1]."], 2)
    assert text == "Uptime is 99.9% [1] and credits apply [2]."


def test_markers_for_missing_chunks_are_dropped_and_brackets_kept() -> None:
    text, renumber = stream(["Fact [7]. Array a[i] and [note] stay; [2] ok [0]."], 2)
    assert text == "Fact . Array a[i] and [note] stay; [1] ok ."
    assert renumber.order == [2]


def test_unfinished_marker_is_flushed_verbatim() -> None:
    text, _ = stream(["trailing [12"], 20)
    assert text == "trailing [12"


def test_reorder_puts_cited_chunks_first_in_visible_order() -> None:
    chunks = [
        RetrievedChunk(
            chunk_id=f"c{i}",
            doc_id=f"d{i}",
            title="t",
            url="",
            content="x",
            score=0.5,
            source="s",
            chunk_index=0,
        )
        for i in range(1, 5)
    ]
    _, renumber = stream(["a [3] b [1]"], 4)
    assert [c.chunk_id for c in renumber.reorder(chunks)] == ["c3", "c1", "c2", "c4"]
