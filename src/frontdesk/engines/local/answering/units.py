"""A passage read as units (sentences, list items, table rows, headings) and an answer
read as claims: what the local answering jobs quote, compare and verify.

Tables arrive flattened by the crawler (`| a | b |  | c | d |`) or cut mid-row by the
chunker; each row becomes one unit that names its columns. Units of a passage are cached:
every job of a turn reads the same few chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from frontdesk.engines.local.answering.text import plain, split_sentences, words

_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE_SEPARATOR = re.compile(r"^:?-{3,}:?$")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LINK_ONLY = re.compile(r"^\W*(?:!?\[[^\]]*\]\([^)]*\)\W*)+$")


@dataclass(frozen=True)
class Unit:
    """A piece of a passage: a sentence, a list item, a table row, or a heading line.

    `context` is the heading line written inside the passage above the unit (merged
    FAQ entries keep their questions inline), empty when there is none.
    """

    text: str
    kind: str  # "sentence" | "item" | "row" | "heading" | "question"
    position: int
    context: str = ""

    @property
    def quotable(self) -> bool:
        return self.kind in {"sentence", "item", "row"} and not self.text.endswith(":")


def _table_rows(line: str) -> list[list[str]]:
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    width = next((i for i, cell in enumerate(cells) if _TABLE_SEPARATOR.match(cell)), len(cells))
    if 0 < width < len(cells) and not cells[width - 1]:
        width -= 1  # the empty joint between the header row and the separator row
    if width == len(cells) or width == 0:  # no separator row: one row
        width = len(cells)
    # Flattened rows are `c1 | c2 | … | cN |  | c1 | …`: N cells then an empty joint.
    rows = [cells[i : i + width] for i in range(0, len(cells), width + 1)]
    return [row for row in rows if row and not all(_TABLE_SEPARATOR.match(c) for c in row)]


def _render_row(header: list[str], row: list[str]) -> str:
    if not any(header) or len(header) != len(row):  # no header, or an empty one
        return " — ".join(cell for cell in row if cell)
    pairs = [f"{name}: {value}" for name, value in zip(header[1:], row[1:], strict=True) if value]
    return f"{row[0]} — " + "; ".join(pairs) if pairs else row[0]


def _is_heading(line: str) -> bool:
    if line.endswith("?"):
        return True
    return not line.endswith((".", "!", ":", ";", "…", ")", '"')) and len(line.split()) <= 12


def _is_table(line: str) -> bool:
    return line.startswith("|") and line.endswith("|") and line.count("|") >= 3


def _is_table_tail(line: str) -> bool:
    """The rest of a table cut by the chunker mid-row: flattened rows, no leading pipe."""
    return line.count("|") >= 6 and "|  |" in line.replace("| |", "|  |")


def _tail_rows(line: str) -> list[list[str]]:
    """Rows of a table tail, split at the empty joints; the cut first row is dropped."""
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    rows: list[list[str]] = [[]]
    for cell in cells:
        if cell:
            rows[-1].append(cell)
        elif rows[-1]:
            rows.append([])
    return [row for row in rows[1:] if len(row) >= 2]


def _join_table_lines(lines: list[str]) -> list[str]:
    """Stripped lines, with a table written one row per line joined into one line."""
    joined: list[str] = []
    for line in (raw.strip() for raw in lines):
        if joined and _is_table(line) and _is_table(joined[-1]):
            joined[-1] = f"{joined[-1]} {line}"
        else:
            joined.append(line)
    return joined


def passage_units(content: str) -> tuple[Unit, ...]:
    return _passage_units(content)


@lru_cache(maxsize=512)
def _passage_units(content: str) -> tuple[Unit, ...]:
    units: list[Unit] = []
    context = ""

    def add(text: str, kind: str) -> None:
        if len(words(text)) >= 2 or kind == "heading":
            units.append(Unit(text, kind, len(units), context))

    for line in _join_table_lines(content.split("\n")):
        if not line or line.startswith(("```", "~~~")) or _LINK_ONLY.match(line):
            continue  # a bare link ("Learn more") is navigation, not content
        line = _LINK.sub(r"\1", line)
        if _MARKDOWN_HEADING.match(line):
            context = _MARKDOWN_HEADING.sub("", line).strip()
            add(context, "heading")
            continue
        if _is_table(line):
            rows = _table_rows(line)
            header, body = (rows[0], rows[1:]) if len(rows) > 1 else ([], rows)
            for row in body:
                add(_render_row(header, row), "row")
        elif _is_table_tail(line):
            for row in _tail_rows(line):
                add(_render_row([], row), "row")
        elif _BULLET.match(line):
            add(_BULLET.sub("", line), "item")
        else:
            sentences = split_sentences(line)
            if len(sentences) == 1 and _is_heading(plain(line)):
                context = line
                add(line, "heading")
                continue
            for sentence in sentences:
                add(sentence, "question" if sentence.endswith("?") else "sentence")
    return tuple(units)


# A citation closes a quote even when the quote has no full stop: a passage's sentence
# may end in a link or a code ("…in the Shorts section: https://rutube.ru/feeds/shorts/
# [1] The algorithm…"). Read as one sentence, two quotes of two passages made a claim
# that neither passage supports, and a verbatim answer was judged unfounded.
_AFTER_CITATION = re.compile(
    r"(?:(?<=\[\d\])|(?<=\[\d\d\]))\s+(?=[*_`]*[\"'«“(]?[*_`]*[A-ZА-ЯЁÀ-ÖØ-Þ0-9¿¡])"
)


def split_claims(text: str) -> list[str]:
    """Sentences and list lines of an answer, citations kept; a citation followed by a
    new sentence ends its claim."""
    parts: list[str] = []
    for line in text.split("\n"):
        line = _BULLET.sub("", line.strip())
        if line:
            for sentence in split_sentences(line):
                parts.extend(p.strip() for p in _AFTER_CITATION.split(sentence) if p.strip())
    return parts
