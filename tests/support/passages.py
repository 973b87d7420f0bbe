"""An in-memory passage index for the answering tests: Markdown pages cut by the real
chunker, embedded by the real bundled MiniLM, searched by cosine (no threshold)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from frontdesk.knowledge.embedding.embedders import make_embedder
from frontdesk.knowledge.ingest.chunker import chunk_document
from frontdesk.knowledge.ingest.loaders import parse_markdown
from frontdesk.knowledge.models import Chunk, RetrievedChunk
from frontdesk.text.embedding import Embedder


@dataclass
class PassageIndex:
    embedder: Embedder
    chunks: list[Chunk]
    vectors: np.ndarray

    def search(self, query: str, k: int = 5) -> list[RetrievedChunk]:
        scores = self.vectors @ self.embedder.embed_query(query)
        best = np.argsort(-scores)[:k]
        return [
            RetrievedChunk(
                chunk_id=self.chunks[i].chunk_id,
                doc_id=self.chunks[i].doc_id,
                title=self.chunks[i].title,
                url=self.chunks[i].url,
                content=self.chunks[i].content,
                score=float(scores[i]),
                source=self.chunks[i].source,
                chunk_index=self.chunks[i].chunk_index,
                heading_path=self.chunks[i].heading_path,
            )
            for i in best
        ]


def index_pages(pages: Iterable[Path]) -> PassageIndex:
    embedder = make_embedder("local:all-MiniLM-L6-v2")
    chunks: list[Chunk] = []
    for page in pages:
        chunks += chunk_document(parse_markdown(page.read_bytes(), page.name, page.name, page.name))
    vectors = embedder.embed_documents([chunk.indexed_text for chunk in chunks])
    return PassageIndex(embedder, chunks, vectors)
