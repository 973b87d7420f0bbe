"""Rebuilding a document from its stored chunks (re-embed of uploads and crawled pages)."""

from __future__ import annotations

import pytest

from frontdesk.knowledge.ingest.chunker import chunk_document
from frontdesk.knowledge.ingest.reembed import _StoredPiece, text_from_chunks
from frontdesk.knowledge.models import Document

pytestmark = pytest.mark.unit

SENTENCES = [f"Sentence number {n} explains one more step of the setup." for n in range(60)]
TEXT = (
    "# Guide\n\n## Install\n\n"
    + " ".join(SENTENCES[:30])
    + "\n\n## Configure\n\n"
    + " ".join(SENTENCES[30:])
)


def test_chunks_with_overlap_rebuild_the_text_once_with_its_headings() -> None:
    document = Document("guide.md", "Guide", TEXT, "markdown", "upload:guide.md")
    chunks = chunk_document(document, chunk_size=120, chunk_overlap=30, min_tokens=5)
    assert len(chunks) > 4
    stored = [_StoredPiece(c.chunk_index, c.content, c.heading_path) for c in chunks]
    rebuilt = text_from_chunks("Guide", list(reversed(stored)))  # order comes from the index
    for sentence in SENTENCES:
        assert rebuilt.count(sentence) == 1, sentence  # the overlaps are not repeated
    assert rebuilt.index("## Install") < rebuilt.index(SENTENCES[0])
    assert (
        rebuilt.index(SENTENCES[29]) < rebuilt.index("## Configure") < rebuilt.index(SENTENCES[30])
    )
    again = chunk_document(
        Document("guide.md", "Guide", rebuilt, "markdown", "upload:guide.md"),
        chunk_size=120,
        chunk_overlap=30,
        min_tokens=5,
    )
    assert again[0].heading_path == ("Guide", "Install")
    assert {c.heading_path for c in again} == {c.heading_path for c in chunks}
