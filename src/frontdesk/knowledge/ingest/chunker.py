"""Structure-aware chunking: headings, paragraphs, lists and code blocks.

Rules:
- A document that fits in one chunk stays one chunk: short FAQ entries keep question and
  answer together, which is what retrieval needs.
- Otherwise each section (text under a heading) is packed block by block up to
  `chunk_size` tokens; a block that is too long is split at sentence boundaries (and a
  sentence that is still too long, at word boundaries).
- Consecutive chunks of one section overlap by up to `chunk_overlap` tokens of whole
  sentences.
- A piece smaller than `min_tokens` is merged into its neighbour when the two fit.
- Every chunk carries its heading path (document title, then headings), which is
  prepended to the text that is embedded and indexed.

Tokens are counted with the embedding model's own tokenizer when ingestion passes one
(`tokens=embedder.count_tokens`, `max_tokens=` its input window): then no chunk's indexed
text (heading path + content, as the model reads it) is longer than the window, and dense
search sees every word. Without a tokenizer, tokens are words and punctuation marks, a
model-independent approximation that errs on the small side.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from frontdesk.knowledge.models import Chunk, Document

_TOKEN = re.compile(r"\w+|[^\w\s]")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?…。])[\"'»”)\]]*\s+(?=[\"'«“(\[]?[A-ZА-ЯЁÀ-ÖØ-Þ0-9¿¡])")

DEFAULT_MIN_TOKENS = 50
TokenCounter = Callable[[str], int]


def count_tokens(text: str) -> int:
    """Words and punctuation marks: the approximation used without a model tokenizer."""
    return len(_TOKEN.findall(text))


@dataclass
class _Block:
    units: list[str]  # paragraphs: one unit; lists: one unit per item; code: one unit
    joiner: str = "\n"

    @property
    def text(self) -> str:
        return self.joiner.join(self.units)


@dataclass
class _Section:
    path: tuple[str, ...]
    blocks: list[_Block] = field(default_factory=list)


@dataclass
class _Piece:
    path: tuple[str, ...]
    text: str


def parse_sections(text: str) -> list[_Section]:
    """Split Markdown-ish text into sections (heading path + blocks)."""
    sections = [_Section(path=())]
    headings: list[tuple[int, str]] = []
    paragraph: list[str] = []
    items: list[str] = []
    fence: list[str] | None = None

    def flush() -> None:
        if paragraph:
            sections[-1].blocks.append(_Block([" ".join(paragraph)]))
            paragraph.clear()
        if items:
            sections[-1].blocks.append(_Block(list(items)))
            items.clear()

    for line in text.splitlines():
        if fence is not None:
            fence.append(line)
            if _FENCE.match(line):
                sections[-1].blocks.append(_Block(["\n".join(fence)]))
                fence = None
            continue
        if _FENCE.match(line):
            flush()
            fence = [line]
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            headings = [(lvl, name) for lvl, name in headings if lvl < level]
            headings.append((level, heading.group(2).strip()))
            sections.append(_Section(path=tuple(name for _, name in headings)))
            continue
        if not line.strip():
            flush()
            continue
        if _LIST_ITEM.match(line):
            if paragraph:
                sections[-1].blocks.append(_Block([" ".join(paragraph)]))
                paragraph.clear()
            items.append(line.strip())
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
        else:
            if items:
                sections[-1].blocks.append(_Block(list(items)))
                items.clear()
            paragraph.append(line.strip())
    if fence is not None:
        sections[-1].blocks.append(_Block(["\n".join(fence)]))
    flush()
    return [section for section in sections if section.blocks]


def split_sentences(text: str) -> list[str]:
    parts: list[str] = []
    for line in text.split("\n"):
        parts.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return parts


def _split_word(word: str, size: int, count: TokenCounter) -> list[str]:
    """A "word" longer than `size` tokens (a URL, an encoded script, a hash) cut in halves
    until each part fits: nothing else can split it, and a chunk over the model's window
    would fail the whole document."""
    if count(word) <= size or len(word) < 2:
        return [word]
    middle = len(word) // 2
    return _split_word(word[:middle], size, count) + _split_word(word[middle:], size, count)


def _split_words(text: str, size: int, count: TokenCounter) -> list[str]:
    words = [part for word in text.split() for part in _split_word(word, size, count)]
    out: list[str] = []
    current: list[str] = []
    tokens = 0
    for word in words:
        word_tokens = count(word)
        if current and tokens + word_tokens > size:
            out.append(" ".join(current))
            current, tokens = [], 0
        current.append(word)
        tokens += word_tokens
    if current:
        out.append(" ".join(current))
    return out


def _fit_units(block: _Block, size: int, count: TokenCounter) -> list[tuple[str, str]]:
    """The block as (unit, separator-before) pairs, each unit no larger than `size`.

    A long unit is split into sentences (then words) that are rejoined with spaces; items
    of one list are separated by a newline; blocks by a blank line.
    """
    out: list[tuple[str, str]] = []
    for position, unit in enumerate(block.units):
        separator = "\n" if position else "\n\n"
        if count(unit) <= size:
            out.append((unit, separator))
            continue
        parts: list[str] = []
        for sentence in split_sentences(unit):
            if count(sentence) <= size:
                parts.append(sentence)
            else:
                parts.extend(_split_words(sentence, size, count))
        out.extend((part, separator if i == 0 else " ") for i, part in enumerate(parts))
    return out


def _tail(units: list[str], overlap: int, count: TokenCounter) -> list[str]:
    """The last whole units of a chunk that fit in `overlap` tokens."""
    tail: list[str] = []
    tokens = 0
    for unit in reversed(units):
        unit_tokens = count(unit)
        if tokens + unit_tokens > overlap:
            break
        tail.insert(0, unit)
        tokens += unit_tokens
    return tail


def _pack_section(section: _Section, size: int, overlap: int, count: TokenCounter) -> list[_Piece]:
    units = [pair for block in section.blocks for pair in _fit_units(block, size, count)]
    pieces: list[_Piece] = []
    current: list[tuple[str, str]] = []
    tokens = 0
    fresh = 0  # units in `current` that are not overlap from the previous piece

    def text_of(parts: list[tuple[str, str]]) -> str:
        return "".join((sep if i else "") + unit for i, (unit, sep) in enumerate(parts))

    for unit, sep in units:
        unit_tokens = count(unit)
        if current and fresh and tokens + unit_tokens > size:
            pieces.append(_Piece(section.path, text_of(current)))
            kept = _tail([u for u, _ in current], overlap, count) if overlap else []
            kept = [u for u in kept if count(u) + unit_tokens <= size]
            current = current[len(current) - len(kept) :] if kept else []
            tokens = sum(count(u) for u, _ in current)
            fresh = 0
        current.append((unit, sep))
        tokens += unit_tokens
        fresh += 1
    if current and fresh:
        pieces.append(_Piece(section.path, text_of(current)))
    return pieces


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    prefix: list[str] = []
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        prefix.append(left)
    return tuple(prefix)


def _with_heading(piece: _Piece, keep: tuple[str, ...]) -> str:
    """The piece's text with the headings that the merged path drops written inline."""
    dropped = piece.path[len(keep) :]
    return "\n".join([*dropped, piece.text]) if dropped else piece.text


def _merge_tiny(
    pieces: list[_Piece], size: int, min_tokens: int, count: TokenCounter
) -> list[_Piece]:
    merged: list[_Piece] = []
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if count(piece.text) < min_tokens:
            following = pieces[index + 1] if index + 1 < len(pieces) else None
            if following is not None and count(piece.text) + count(following.text) <= size:
                path = _common_prefix(piece.path, following.path)
                text = _with_heading(piece, path) + "\n\n" + _with_heading(following, path)
                pieces[index + 1] = _Piece(path, text)
                index += 1
                continue
            if merged and count(merged[-1].text) + count(piece.text) <= size:
                previous = merged[-1]
                path = _common_prefix(previous.path, piece.path)
                text = _with_heading(previous, path) + "\n\n" + _with_heading(piece, path)
                merged[-1] = _Piece(path, text)
                index += 1
                continue
        merged.append(piece)
        index += 1
    return merged


def chunk_id_for(doc_id: str, chunk_index: int, chunk_hash: str) -> str:
    """Stable id: the same document content always yields the same chunk ids."""
    digest = hashlib.sha256(f"{doc_id}\x1f{chunk_index}\x1f{chunk_hash}".encode()).hexdigest()
    return digest[:24]


def _heading_path(title: str, path: tuple[str, ...]) -> tuple[str, ...]:
    if path and title and path[0].casefold() == title.casefold():
        path = path[1:]
    return (title, *path) if title else path


def _within_limit(
    pieces: list[_Piece], title: str, max_tokens: int, count: TokenCounter
) -> list[_Piece]:
    """Pieces whose indexed text (heading path + content) fits in `max_tokens`: a piece
    that does not is split again with the room its headings leave."""
    out: list[_Piece] = []
    for piece in pieces:
        probe = Chunk("", "", 0, piece.text, _heading_path(title, piece.path))
        over = count(probe.indexed_text) - max_tokens
        if over <= 0:
            out.append(piece)
            continue
        room = count(piece.text) - over - 8  # 8: joins between parts tokenize differently
        if room < 16:
            raise ValueError(
                f"the headings of a section leave no room in the model's {max_tokens}-token"
                f" window ({' > '.join(probe.heading_path)[:80]!r})"
            )
        again = _pack_section(_Section(piece.path, [_Block([piece.text])]), room, 0, count)
        if [part.text for part in again] == [piece.text]:
            raise ValueError(f"a passage cannot be split under {max_tokens} tokens")
        out.extend(_within_limit(again, title, max_tokens, count))
    return out


def chunk_document(
    document: Document,
    *,
    chunk_size: int = 512,
    chunk_overlap: int = 64,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    tokens: TokenCounter | None = None,
    max_tokens: int | None = None,
) -> list[Chunk]:
    """Chunks of `document` in reading order (see module docstring for the rules).

    `tokens` counts tokens (default: words and punctuation); `max_tokens` bounds the
    indexed text of every chunk as `tokens` counts it (the embedding model's window)."""
    if chunk_overlap >= chunk_size:
        raise ValueError("chunk_overlap must be smaller than chunk_size")
    count: TokenCounter = lru_cache(maxsize=8192)(tokens or count_tokens)
    title = document.title.strip()
    sections = parse_sections(document.text)
    if not sections:
        return []
    if count(document.text) <= chunk_size:
        pieces = [_Piece((), document.text.strip())]
    else:
        pieces = []
        for section in sections:
            pieces.extend(_pack_section(section, chunk_size, chunk_overlap, count))
        pieces = _merge_tiny(pieces, chunk_size, min(min_tokens, chunk_size // 4), count)
    if max_tokens is not None:
        pieces = _within_limit(pieces, title, max_tokens, count)
    chunks: list[Chunk] = []
    for index, piece in enumerate(pieces):
        heading_path = _heading_path(title, piece.path)
        draft = Chunk("", document.doc_id, index, piece.text, heading_path)
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(document.doc_id, index, draft.content_hash),
                doc_id=document.doc_id,
                chunk_index=index,
                content=piece.text,
                heading_path=heading_path,
                title=title,
                url=document.link_for(heading_path),
                source=document.source,
            )
        )
    return chunks
