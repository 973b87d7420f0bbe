"""Links to addresses the team did not choose, made safe to render (pure).

A visitor's browser reports the page it was on and its referrer; a knowledge-base file
names its own `url` in front matter. Either can be `javascript:…` or `data:…`, which a
click runs in the console's origin. Only an absolute `http(s)` address becomes a link,
in the console (the `link` filter of `console.templating`) and in the Markdown export;
anything else is shown as the text it is. The Markdown export also escapes every text it
carries, so a visitor's `<img onerror=…>` or `[click](javascript:…)` stays inert text.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote, urlsplit

from markupsafe import Markup, escape

_UNSAFE_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f<>\"`\\]")
_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
# Markdown that takes effect anywhere in a line: emphasis, code, links and images,
# tables, strikethrough; backslash itself. `<`, `>` and `&` become HTML entities.
_INLINE_MARKDOWN = re.compile(r"([\\`*_\[\]()|~])")
# ...and at the start of a line (up to three spaces in): headings, list items, setext
# underlines, ordered list markers.
_LINE_START_MARKDOWN = re.compile(r"^( {0,3})([#+=-]|\d+[.)])", re.MULTILINE)
# Percent-encoded in a Markdown link destination: what would end it or break out of it.
_URL_SAFE = "/:?#[]@!$&*+,;=%~"


def http_url(value: object) -> str | None:
    """`value` when it is an absolute `http://` or `https://` address with a host, else
    None. Whitespace, controls, double quotes, backslashes or angle brackets anywhere
    disqualify it: a browser strips or reinterprets them, so what it would open is not
    what was checked."""
    if not isinstance(value, str) or not value or _UNSAFE_IN_URL.search(value):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return value


def link(value: object, text: object = None) -> Markup:
    """HTML: a link to `value` when it is an http(s) address, else `text` (or the value)
    as plain text."""
    shown = value if text in (None, "") else text
    url = http_url(value)
    if url is None:
        return escape("" if shown is None else shown)
    return Markup('<a href="{}" rel="noopener noreferrer">{}</a>').format(url, shown)


def mail_link(value: object) -> Markup:
    """HTML: a `mailto:` link for a plain e-mail address, else the value as text."""
    text = "" if value is None else str(value)
    if not _EMAIL.match(text):
        return escape(text)
    return Markup('<a href="mailto:{}">{}</a>').format(text, text)


def markdown_text(value: object) -> str:
    """Any text as inert Markdown: shown as written, never markup, a link or HTML."""
    text = html.escape("" if value is None else str(value), quote=False)
    text = _INLINE_MARKDOWN.sub(r"\\\1", text)
    return _LINE_START_MARKDOWN.sub(
        lambda m: m.group(1) + re.sub(r"([#+=.)-])", r"\\\1", m.group(2)), text
    )


def markdown_link(value: object, text: object = None) -> str:
    """Markdown: a link to an http(s) address (`<url>` when it shows itself), else the
    text (or the value) as inert text."""
    url = http_url(value)
    if url is None:
        return markdown_text(value if text in (None, "") else text)
    destination = quote(url, safe=_URL_SAFE)
    if text in (None, "") or text == value:
        return f"<{destination}>"
    return f"[{markdown_text(text)}]({destination})"


def markdown_quote(value: object) -> list[str]:
    """Lines of a Markdown block quote holding `value` as inert text: every line starts
    with `>`, so none can pass for a heading or a field of the document around it."""
    lines = ("" if value is None else str(value)).split("\n")
    return [f"> {markdown_text(line)}".rstrip() for line in lines]
