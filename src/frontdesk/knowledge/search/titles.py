"""Page titles in the dense ranking.

A page's title says in a few words what the page is about, and on help centres and FAQs
it is the very question the page answers ("How do I download a YouTube video?"). A
visitor's paraphrase ("store youtube videos to my disk") can be nearer to that title than
to the passage under it, where the title is a few tokens among hundreds. So the dense
list is ordered by the passage's cosine plus `weight` × the cosine of its page's title
(both embedded as passages), measured in docs/knowledge.md ("Page titles in the dense
ranking"). Only the order changes: every hit keeps its passage cosine, which thresholds,
the site's support bar and citations read, so nothing calibrated on cosines moves.

The title is the chunk's first heading (the page title the chunker put at the top of its
heading path), else its stored title. Sections' own headings are not used: on sites
whose pages share templated sections ("What are the symptoms of X?" on every disease
page) they reward the question's type over its subject.

Title vectors are kept in the embedding cache (keyed by the title's hash, like any text
embedded), written at ingest and read at search time through an in-process LRU. A site
indexed before titles counted ranks by passages alone until its next ingest, which
re-chunks every page once (the fingerprint changed; chunk vectors come from the cache)
and embeds the titles, or its next crawl, which ends by embedding the titles of pages it
did not re-ingest (`Ingestor.embed_page_titles`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from frontdesk.knowledge.index.base import Hit, KnowledgeIndex, StoredChunk, Vector
from frontdesk.knowledge.models import content_hash
from frontdesk.knowledge.search.query_cache import LruCache

# Measured for the default model only (docs/knowledge.md); other models rank by the
# passage alone unless a site sets `knowledge.title_weight`.
DEFAULT_TITLE_WEIGHTS: dict[str, float] = {"local:multilingual-e5-small": 0.5}
TITLE_CACHE_SIZE = 8192


def default_title_weight(model: str) -> float:
    return DEFAULT_TITLE_WEIGHTS.get(model, 0.0)


def page_title(heading_path: Sequence[str], title: str) -> str:
    """Pure: the title of a chunk's page: its heading path's first entry, else its title."""
    first = next((part for part in heading_path if part.strip()), "")
    return (first or title).strip()


def blend_by_title(
    dense: Sequence[Hit], title_cosines: Mapping[str, float], weight: float
) -> list[Hit]:
    """Pure: `dense` ordered by cosine + `weight` × its page title's cosine. A hit whose
    page has no title counts its own cosine in the title's place. Scores stay the
    passage cosines; ties keep the order they came in."""
    if weight <= 0:
        return list(dense)

    def blended(hit: Hit) -> float:
        return hit.score + weight * title_cosines.get(hit.chunk_id, hit.score)

    return sorted(dense, key=blended, reverse=True)


class TitleVectors:
    """Title vectors of one model, read from the index's embedding cache (filled at
    ingest) through an in-process LRU. A search never embeds or writes: a title not in
    the cache (a page indexed before titles counted, until its site's next ingest) is
    left out, and its chunks rank by their own cosine. Thread-safe."""

    def __init__(self, index: KnowledgeIndex, model: str, max_items: int = TITLE_CACHE_SIZE):
        self.index = index
        self.model = model
        self.memory: LruCache[str, Vector] = LruCache(max_items)

    def vectors(self, titles: Sequence[str]) -> dict[str, Vector]:
        found: dict[str, Vector] = {}
        missing: list[str] = []
        for title in dict.fromkeys(t for t in titles if t):
            vector = self.memory.get(title)
            if vector is None:
                missing.append(title)
            else:
                found[title] = vector
        if missing:
            hashes = {content_hash(title): title for title in missing}
            for digest, vector in self.index.cached_vectors(self.model, list(hashes)).items():
                found[hashes[digest]] = vector
                self.memory.put(hashes[digest], vector)
        return found

    def cosines(self, chunks: Mapping[str, StoredChunk], vector: Vector) -> dict[str, float]:
        """Cosine of `vector` (a unit query vector) with each chunk's page title."""
        titles = {
            chunk_id: page_title(chunk.heading_path, chunk.title)
            for chunk_id, chunk in chunks.items()
        }
        vectors = self.vectors(list(titles.values()))
        return {
            chunk_id: float(np.dot(vectors[title], vector))
            for chunk_id, title in titles.items()
            if title in vectors
        }


def title_texts(titles: Sequence[str]) -> dict[str, str]:
    """Pure: titles to embed at ingest, by the hash the embedding cache keys them with."""
    return {content_hash(title): title for title in dict.fromkeys(titles) if title}
