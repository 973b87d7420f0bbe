"""Small Markdown pages for knowledge-base tests."""

from __future__ import annotations

from frontdesk.knowledge.models import Document


def page(doc_id: str, title: str, text: str) -> Document:
    """A Markdown page as the loaders make one, stored under `kb/<doc_id>`."""
    return Document(doc_id, title, text, "markdown", f"kb/{doc_id}")
