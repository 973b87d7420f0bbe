"""Knowledge index backends behind the `KnowledgeIndex` protocol."""

from frontdesk.knowledge.index.base import Hit, KnowledgeIndex, StoredChunk, StoredDocument
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex

__all__ = ["Hit", "KnowledgeIndex", "SqliteKnowledgeIndex", "StoredChunk", "StoredDocument"]
