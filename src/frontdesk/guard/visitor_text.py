"""Visitor-derived text, made safe to keep and to show the team (pure).

Whatever a visitor controls is untrusted: reveal data the page sends, form answers,
names, roles, the messages quoted in a handoff packet. Before such a string reaches a
visitor profile, a prompt or a handoff channel (Slack, CRM, webhooks, email) it goes
through one of these functions:

- `clean_text` (messages, summaries): control characters other than newline and tab,
  NUL, lone surrogates and the invisible characters that reorder or hide text (bidi
  overrides, zero-width spaces) are removed; line breaks are normalised; the value is
  cut to a length bound with an ellipsis.
- `clean_field` (company, name, role, email, a form answer): the same, on one line, and
  tag-like markup is dropped — `<!channel>`, `<@U024BE7LH>`, `<http://…|label>`,
  `<b>` — while a lone `<` or `>` ("<50 employees") stays as text.

This is the first line, not the only one: each channel still escapes for its own
format (Slack's `&`, `<`, `>`; JSON; e-mail headers).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

FIELD_CHARS = 200  # a company, a name, a role, a form answer
EMAIL_CHARS = 254  # RFC 5321 path limit
TEXT_CHARS = 3000  # a quoted message or a summary
KEY_CHARS = 64
ELLIPSIS = "…"

# C0 and C1 controls except \t and \n; DEL; bidi embeddings, overrides and isolates;
# zero-width space, word joiner, BOM; lone surrogates. ZWJ/ZWNJ stay: scripts and emoji
# sequences need them.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_BLANK_LINES = re.compile(r"\n{3,}")
_SPACES = re.compile(r"[ \t]+")
_ANY_SPACE = re.compile(r"\s+")
# `<` then a letter, `/`, `!`, `@`, `#` or `?`: an HTML tag, a Slack mention or link.
_TAG = re.compile(r"<[/!@#?A-Za-z][^<>\n]{0,2000}>")


def shorten(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last one an ellipsis when anything was cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS


def clean_text(value: object, limit: int = TEXT_CHARS) -> str:
    """A multi-line visitor text without control or invisible characters, bounded."""
    text = _LINE_BREAKS.sub("\n", str(value))
    text = _INVISIBLE.sub("", text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return shorten(_BLANK_LINES.sub("\n\n", "\n".join(lines)).strip(), limit)


def clean_field(value: object, limit: int = FIELD_CHARS) -> str:
    """A one-line visitor value (company, name, role, email, form answer): no line breaks,
    no tag-like markup, no control characters, bounded."""
    text = _INVISIBLE.sub("", _LINE_BREAKS.sub(" ", str(value)))
    text = _TAG.sub(" ", text)
    return shorten(_ANY_SPACE.sub(" ", text).strip(), limit)


def clean_fields(
    values: Mapping[str, Any], limit: int = FIELD_CHARS, max_items: int = 50
) -> dict[str, Any]:
    """A mapping of visitor values with cleaned keys and string values (others kept)."""
    cleaned: dict[str, Any] = {}
    for key, value in list(values.items())[:max_items]:
        name = clean_field(key, KEY_CHARS)
        if not name:
            continue
        bound = EMAIL_CHARS if name == "email" else limit
        cleaned[name] = clean_field(value, bound) if isinstance(value, str) else value
    return cleaned


def clean_tree(value: Any, limit: int = TEXT_CHARS) -> Any:
    """Every string in a JSON-like tree through `clean_text` (keys through `clean_field`)."""
    if isinstance(value, str):
        return clean_text(value, limit)
    if isinstance(value, Mapping):
        return {clean_field(k, KEY_CHARS): clean_tree(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_tree(item, limit) for item in value]
    return value
