"""Knowledge base: loaders, chunker, embeddings, per-site hybrid index and search.

Entry point for the rest of Frontdesk: `KnowledgeBase` (ingest, list, remove, search)
returning `IngestReport` and `RetrievalResult`.
"""

from frontdesk.knowledge.models import (
    Chunk,
    Document,
    IngestReport,
    RetrievalResult,
    RetrievedChunk,
)
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge

__all__ = [
    "Chunk",
    "Document",
    "IngestReport",
    "KnowledgeBase",
    "RetrievalResult",
    "RetrievedChunk",
    "SiteKnowledge",
]
