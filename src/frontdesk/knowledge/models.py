"""Values that cross the knowledge module's boundary: documents, chunks and retrieval results."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from frontdesk.facts.model import SiteFact
from frontdesk.knowledge.injection.instructions import WithheldPassage

DocumentKind = Literal["markdown", "text", "html", "pdf"]
RetrievalStatus = Literal["ok", "no_result", "error"]


def content_hash(text: str) -> str:
    """SHA-256 hex digest of `text`; the identity of a chunk's or document's content."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Document:
    """One source document after loading: text with light Markdown structure (`#` headings,
    `-` list items, blank lines between paragraphs), whatever the original format was."""

    doc_id: str
    title: str
    text: str
    kind: DocumentKind
    source: str
    url: str = ""
    # Passages kept out of the index (hidden text, instructions to the assistant, requests
    # for secrets: `knowledge/injection/hidden.py`, `instructions.py`), shown to the team, never to
    # visitors.
    withheld: tuple[WithheldPassage, ...] = ()
    # (heading text, fragment id) of a web page's headings: a passage under a heading
    # cites `url#id`, so the visitor lands on the section, not the top of the page.
    anchors: tuple[tuple[str, str], ...] = ()
    # What a web page states in structure (`frontdesk.facts`), read from the whole page
    # before main-content extraction drops its header and footer.
    facts: tuple[SiteFact, ...] = ()

    @property
    def content_hash(self) -> str:
        anchors = "".join(f"\x1f{text}#{id_}" for text, id_ in self.anchors)
        return content_hash(f"{self.title}\x1f{self.url}\x1f{self.text}{anchors}")

    def link_for(self, heading_path: tuple[str, ...]) -> str:
        """The URL a passage under `heading_path` cites: the nearest heading's anchor."""
        if not self.url or not self.anchors:
            return self.url
        ids = {" ".join(text.split()).casefold(): id_ for text, id_ in self.anchors}
        for heading in reversed(heading_path):
            id_ = ids.get(" ".join(heading.split()).casefold())
            if id_:
                return f"{self.url.split('#', 1)[0]}#{id_}"
        return self.url


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a document.

    `content` is the passage as the visitor may see it; `heading_path` is the document
    title followed by the headings above the passage. Embeddings and the lexical index
    use `indexed_text`, which prepends the heading path (title-prepended).
    """

    chunk_id: str
    doc_id: str
    chunk_index: int
    content: str
    heading_path: tuple[str, ...]
    title: str = ""
    url: str = ""
    source: str = ""
    # The passage's own language, detected at ingest ("" before: detected at search).
    language: str = ""

    @property
    def indexed_text(self) -> str:
        path = " > ".join(part for part in self.heading_path if part)
        return f"{path}\n\n{self.content}" if path else self.content

    @property
    def content_hash(self) -> str:
        return content_hash(self.indexed_text)


class RetrievedChunk(BaseModel):
    """One passage returned by a search (`RetrievedChunk`)."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    doc_id: str
    title: str
    url: str
    content: str
    score: float = Field(
        description="Relevance to the query: the cosine similarity, plus the model's "
        "cross-language offset when the chunk is in another language than the query."
    )
    source: str = Field(description="Document source: file path, URL or upload name.")
    chunk_index: int
    heading_path: tuple[str, ...] = ()
    rank_score: float = Field(default=0.0, description="Fused (RRF) ranking score.")
    cosine: float | None = Field(default=None, description="Cosine similarity to the query.")
    language: str | None = Field(
        default=None, description="The chunk's language, when the search needed it."
    )


class RetrievalResult(BaseModel):
    """What a search returns to the assistant (`RetrievalResult`).

    `status` is `ok` with at least one chunk, `no_result` with a `reason` such as
    `below_threshold`, `empty_index` or `empty_query`, or `error` with a `reason` such as
    `embedding_failure` or `search_failure`. `top_score` is the best relevance seen, kept for
    logging and calibration even when nothing passes the threshold.
    """

    model_config = ConfigDict(frozen=True)

    status: RetrievalStatus
    chunks: list[RetrievedChunk] = Field(default_factory=list)
    reason: str | None = None
    top_score: float | None = None
    threshold: float | None = None
    proactive_case_study: bool = False

    @classmethod
    def no_result(
        cls, reason: str, *, top_score: float | None = None, threshold: float | None = None
    ) -> RetrievalResult:
        return cls(status="no_result", reason=reason, top_score=top_score, threshold=threshold)

    @classmethod
    def error(cls, reason: str) -> RetrievalResult:
        return cls(status="error", reason=reason)


@dataclass
class IngestReport:
    """Summary of one ingest run: what happened to each document."""

    ingested: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    chunks_embedded: int = 0
    chunks_total: int = 0
    units_embedded: int = 0  # sentences and rows embedded for the local writer
    withheld: dict[str, list[WithheldPassage]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed

    def summary(self) -> str:
        return (
            f"ingested {len(self.ingested)}, updated {len(self.updated)}, "
            f"skipped {len(self.skipped)} (unchanged), removed {len(self.removed)}, "
            f"failed {len(self.failed)}; {self.chunks_embedded} chunks embedded"
            + (
                f"; {sum(map(len, self.withheld.values()))} passages withheld (planted"
                " instructions, requests for secrets, hidden text)"
                if self.withheld
                else ""
            )
        )
