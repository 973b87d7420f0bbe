"""Citation markers as the visitor sees them: `[n]` renumbered in order of first use while
the answer streams, and the citation list built from the final text."""

from __future__ import annotations

import re

from frontdesk.conversation.state import ChatUpdate
from frontdesk.conversation.substates import CitationDump, Evaluation, Verification, chunk_dump
from frontdesk.engines.local.answering.text import passage_language
from frontdesk.knowledge.models import RetrievedChunk

CITATION = re.compile(r"\[(\d+)\]")


class CitationRenumberer:
    """Rewrites `[n]` markers while the answer streams, so the visitor sees [1], [2], ...
    in order of first use. `n` indexes the retrieved chunks; markers that point at no
    chunk are dropped. Works on any split of the text (an LLM may send "[", "2", "]")."""

    def __init__(self, chunk_count: int) -> None:
        self.chunk_count = chunk_count
        self.order: list[int] = []  # original chunk numbers, in order of first citation
        self._pending = ""

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for char in piece:
            if self._pending:
                self._pending += char
                if char == "]":
                    out.append(self._resolve(self._pending))
                    self._pending = ""
                elif not char.isdigit() or len(self._pending) > 5:
                    out.append(self._pending)
                    self._pending = ""
            elif char == "[":
                self._pending = char
            else:
                out.append(char)
        return "".join(out)

    def flush(self) -> str:
        rest, self._pending = self._pending, ""
        return rest

    def _resolve(self, marker: str) -> str:
        digits = marker[1:-1]
        if not digits.isdigit():
            return marker
        number = int(digits)
        if not 1 <= number <= self.chunk_count:
            return ""
        if number not in self.order:
            self.order.append(number)
        return f"[{self.order.index(number) + 1}]"

    def reorder(self, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
        """Chunks so that position n-1 is the chunk the visitor sees as [n]; uncited after."""
        cited = [chunks[n - 1] for n in self.order]
        return cited + [c for i, c in enumerate(chunks, 1) if i not in self.order]


def citations_of(
    answer: str, chunks: list[RetrievedChunk], *, language: str = "", translates: bool = False
) -> list[CitationDump]:
    """The passages `[n]` cites. With the reply's `language`: each says the language its
    passage is written in, and whether the writer translated it (an LLM writer wording the
    reply in the visitor's language) or quoted it as written (`translated` false)."""
    cited: list[CitationDump] = []
    for number in sorted({int(n) for n in CITATION.findall(answer)}):
        if 1 <= number <= len(chunks):
            chunk = chunks[number - 1]
            excerpt = chunk.content if len(chunk.content) <= 280 else chunk.content[:277] + "…"
            cited.append(
                {
                    "index": number,
                    "doc_id": chunk.doc_id,
                    "title": chunk.title,
                    "url": chunk.url,
                    "excerpt": excerpt,
                    "chunk_id": chunk.chunk_id,
                }
            )
            if language:
                written = passage_language(f"{chunk.title}\n{chunk.content}", language)
                cited[-1]["language"] = written
                cited[-1]["translated"] = translates and written != language
    return cited


def trusted_answer(answer: str, sources: list[RetrievedChunk], source_kind: str) -> ChatUpdate:
    """The update of a reply whose words come from a trusted source as they stand (the
    team's answer, the site's facts, a team member's message): nothing to verify, full
    marks, cited to `sources` (none for a message of the conversation)."""
    return {
        "answer": answer,
        "citations": citations_of(answer, sources),
        "graded_chunks": [chunk_dump(chunk) for chunk in sources],
        "low_confidence": False,
        "verification": Verification(claims=[], factuality_score=1.0),
        "evaluation": Evaluation(
            quality=1.0, relevance=1.0, coverage="full", reasoning=source_kind, after="auto"
        ),
        "routing": "answered",
    }
