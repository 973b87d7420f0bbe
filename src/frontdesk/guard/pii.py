"""PII scrubbing: emails and phone numbers never leave for a provider.

Text sent to an LLM or an embedding provider goes through `PiiScrubber.scrub`, which
replaces each email and phone number with a numbered placeholder (`[EMAIL_1]`,
`[PHONE_1]`). The same value gets the same placeholder for the whole turn, so the model
can still tell "the address you gave" from another one; `restore` puts the real values
back into what the model wrote. The real values stay in graph state and the store.

Values in `keep` (e.g. the company's own support address found in a passage) are public
knowledge-base content and are left alone. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?![\w-])")
# A phone is 7-15 digits in groups separated by spaces, dots, dashes or parentheses,
# optionally after "+". Without "+", at least 9 digits and a separator are needed, so
# dates (2024-05-01), versions, product codes (ERR-1004) and amounts are not phones.
_PHONE_CANDIDATE = re.compile(r"(?<![\w+])\+?\(?\d[\d\s().-]{5,22}\d(?![\w])")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_DATE = re.compile(r"^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$")
PLACEHOLDER = re.compile(r"\[(EMAIL|PHONE)_(\d+)\]")


def _is_phone(candidate: str) -> bool:
    digits = sum(ch.isdigit() for ch in candidate)
    if not 7 <= digits <= 15:
        return False
    stripped = candidate.strip()
    if _IPV4.match(stripped) or _DATE.match(stripped):
        return False
    if "\n" in stripped:
        return False
    if stripped.startswith("+"):
        return digits >= 8
    has_separator = any(ch in " ().-" for ch in stripped)
    return digits >= 9 and has_separator


def find_phones(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _PHONE_CANDIDATE.finditer(text):
        value = match.group(0)
        if _is_phone(value):
            spans.append((match.start(), match.end()))
    return spans


def contains_pii(text: str) -> bool:
    return bool(EMAIL.search(text)) or bool(find_phones(text))


@dataclass
class PiiScrubber:
    """One per turn: consistent placeholders in, real values back out."""

    keep: frozenset[str] = frozenset()
    _by_value: dict[str, str] = field(default_factory=dict)
    _by_placeholder: dict[str, str] = field(default_factory=dict)

    def _placeholder(self, kind: str, value: str) -> str:
        existing = self._by_value.get(value)
        if existing is not None:
            return existing
        count = sum(1 for p in self._by_placeholder if p.startswith(f"[{kind}_")) + 1
        placeholder = f"[{kind}_{count}]"
        self._by_value[value] = placeholder
        self._by_placeholder[placeholder] = value
        return placeholder

    def scrub(self, text: str) -> str:
        if not text:
            return text

        def email(match: re.Match[str]) -> str:
            value = match.group(0)
            return value if value in self.keep else self._placeholder("EMAIL", value)

        text = EMAIL.sub(email, text)
        pieces: list[str] = []
        last = 0
        for start, end in find_phones(text):
            value = text[start:end]
            pieces.append(text[last:start])
            pieces.append(value if value in self.keep else self._placeholder("PHONE", value))
            last = end
        pieces.append(text[last:])
        return "".join(pieces)

    def restore(self, text: str) -> str:
        return PLACEHOLDER.sub(lambda m: self._by_placeholder.get(m.group(0), m.group(0)), text)


def public_values(*texts: str) -> frozenset[str]:
    """Emails and phones that appear in knowledge-base passages (not the visitor's PII)."""
    found: set[str] = set()
    for text in texts:
        found.update(EMAIL.findall(text))
        found.update(text[start:end] for start, end in find_phones(text))
    return frozenset(found)


class StreamRestorer:
    """Restores placeholders in streamed text whose pieces may split `[EMAIL_1]` apart.

    Text after an unmatched `[` is held back (at most `limit` characters) until the
    bracket closes; everything else passes through at once.
    """

    def __init__(self, scrubber: PiiScrubber, limit: int = 16) -> None:
        self.scrubber = scrubber
        self.limit = limit
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        self._held = ""
        start = text.rfind("[")
        if start != -1 and "]" not in text[start:] and len(text) - start <= self.limit:
            self._held = text[start:]
            text = text[:start]
        return self.scrubber.restore(text)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self.scrubber.restore(text)
