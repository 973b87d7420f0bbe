"""Machine-encoded runs (percent-encoding, base64) left out of what the embedding model
reads of a chunk (`embedding_text`)."""

from __future__ import annotations

import re
from itertools import pairwise

from frontdesk.knowledge.models import Chunk

ENCODED_RUN_CHARS = 64
_WORD = re.compile(r"\S+")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_DATA_URI = re.compile(r"data:[\w/.+-]*;base64,")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+=*")


def is_encoded_run(word: str) -> bool:
    """Whether a space-free run of text is machine encoding, not language: percent-encoded
    (a bookmarklet, a tracking URL) or base64 (an inline image, a key, a certificate's
    lines). Addresses with ids in them are kept for their words; scripts written without
    spaces (Chinese, Japanese, Thai) are never caught, both patterns being ASCII."""
    if len(word) < ENCODED_RUN_CHARS:
        return False
    escapes = len(_PERCENT_ESCAPE.findall(word))
    if escapes >= 8 and 3 * escapes >= 0.2 * len(word):
        return True
    if _DATA_URI.search(word):
        return True
    return bool(_BASE64.fullmatch(word)) and _switches_case_often(word)


def _switches_case_often(run: str) -> bool:
    """Base64 changes between capitals, small letters and digits at ~60 % of neighbouring
    characters; words, paths and file names (Janssen-Prep-and-Admin-Summary.pdf) at a few."""
    kinds = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in run if c.isalnum()]
    switches = sum(a != b for a, b in pairwise(kinds))
    return switches >= 0.3 * max(len(kinds) - 1, 1)


def embedding_text(chunk: Chunk) -> str:
    """What the embedding model reads of a chunk: its indexed text without encoded runs.
    An embedding of encoding is noise close to every short question (one 1,707-character
    bookmarklet on a help page became the nearest passage of most everyday requests and
    raised the site's support bar); the visitor still sees the whole passage, and the
    lexical index still holds it."""
    text = chunk.indexed_text
    kept = _WORD.sub(lambda word: "" if is_encoded_run(word[0]) else word[0], text)
    return text if kept == text else re.sub(r"\n{3,}", "\n\n", kept).strip()
