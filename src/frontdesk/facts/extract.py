"""Facts from a page, before main-content extraction drops its header and footer: schema.org
data (`schema_org`), `tel:` and `mailto:` links, `<address>`, and the page's lines, table
rows and list items, each read by `lines`. Pure: the page's text in, facts with their
position out."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from frontdesk.facts.lines import facts_from_line, listed_candidates, sentences
from frontdesk.facts.model import FactOrigin, PageRegion, SiteFact
from frontdesk.facts.schema_org import schema_org_facts

_BLOCKS = frozenset(
    {
        "p",
        "li",
        "dt",
        "dd",
        "td",
        "th",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "div",
        "section",
        "article",
        "address",
        "header",
        "footer",
        "main",
        "aside",
        "nav",
        "table",
        "tbody",
        "thead",
        "ul",
        "ol",
        "dl",
        "form",
        "blockquote",
        "pre",
    }
)
_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head"})


def facts_from_html(html: str, url: str, language: str) -> list[SiteFact]:
    """Every fact the page states, header and footer included."""
    import lxml.html

    try:
        tree = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    facts = list(schema_org_facts(html, url))
    for position, element in enumerate(tree.iter("a")):
        href = str(element.get("href") or "").strip()
        region = _region(element)
        if href.lower().startswith("tel:"):
            number = href[4:].strip() or element.text_content().strip()
            facts.append(SiteFact("phone", number, "link", position, region))
        elif href.lower().startswith("mailto:"):
            address = href[7:].split("?", 1)[0].strip()
            if address:
                facts.append(SiteFact("email", address, "link", position, region))
    for position, element in enumerate(tree.iter("address")):
        text = ", ".join(line for line in _br_lines(element) if line)
        if text:
            facts.append(SiteFact("address", text, "address", position, _region(element)))
    lines = list(_lines(tree))
    for position, (line, origin, region) in enumerate(lines):
        parts = sentences(line) if origin == "text" else [line]
        for part in parts:
            facts.extend(facts_from_line(part, language, position, origin, region))
    for position, element in enumerate(tree.iter("ul", "ol"), start=len(lines)):
        line = _list_line(element)
        if line:
            region = _region(element)
            facts.extend(listed_candidates(line, language, position, "text", region))
    return facts


def _list_line(element: Any) -> str:
    """A list of short items with the heading or sentence before it, as one line
    ("Zahlungsarten: Bargeld, EC-Karte, Visa")."""
    items = [" ".join(li.text_content().split()) for li in element if li.tag == "li"]
    if not 2 <= len(items) <= 12:
        return ""
    lead = element.getprevious()
    if lead is None or lead.tag not in ("h1", "h2", "h3", "h4", "h5", "h6", "p", "strong", "b"):
        return ""
    heading = " ".join(lead.text_content().split()).rstrip(":")
    if not heading or ":" in heading:
        return ""
    return f"{heading}: {', '.join(items)}"


def facts_from_text(text: str, language: str) -> list[SiteFact]:
    """Facts of a Markdown or plain-text document, line by line (tables as `| a | b |`)."""
    facts: list[SiteFact] = []
    for position, line in enumerate(text.splitlines()):
        origin: FactOrigin = "table" if line.lstrip().startswith("|") else "text"
        facts.extend(facts_from_line(line.strip().strip("|").strip(), language, position, origin))
    return facts


# --- HTML structure --------------------------------------------------------------------


def _region(element: Any) -> PageRegion:
    for ancestor in element.iterancestors():
        if ancestor.tag in ("footer", "header"):
            return "footer" if ancestor.tag == "footer" else "header"
        if str(ancestor.get("role") or "") == "contentinfo":
            return "footer"
    return "main"


def _block_text(element: Any) -> str:
    """An element's text with `<br>` as line breaks (scripts and styles left out)."""
    # A line break in the HTML source is a space; only <br> breaks a line.
    parts: list[str] = [_flat(element.text)]
    for node in element.iterdescendants():
        if node.tag == "br":
            parts.append("\n")
        elif node.text and node.tag not in _SKIPPED:
            parts.append(_flat(node.text))
        if node.tail:
            parts.append(_flat(node.tail))
    return "".join(parts)


def _flat(text: str | None) -> str:
    return (text or "").replace("\r", " ").replace("\n", " ")


def _lines(tree: Any) -> Iterator[tuple[str, FactOrigin, PageRegion]]:
    """Text lines of the page: a table row's cells joined by " | ", a leaf block's text
    split at `<br>`."""
    for element in tree.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _SKIPPED or any(a.tag in _SKIPPED for a in element.iterancestors()):
            continue
        if tag == "tr":
            cells = [" ".join(c.text_content().split()) for c in element if c.tag in ("td", "th")]
            yield " | ".join(cell for cell in cells if cell), "table", _region(element)
            continue
        if tag == "dt":
            # A term and its description are one row: "Wednesday to Saturday" | "12pm – 2.30pm".
            following = element.getnext()
            term = " ".join(element.text_content().split())
            if following is not None and following.tag == "dd":
                described = " ".join(following.text_content().split())
                yield f"{term} | {described}", "table", _region(element)
                continue
        if tag == "dd" and element.getprevious() is not None and element.getprevious().tag == "dt":
            continue
        if tag not in _BLOCKS or tag in ("td", "th", "table", "tbody", "thead"):
            continue
        if any(child.tag in _BLOCKS for child in element.iterdescendants()):
            continue
        if any(a.tag == "tr" for a in element.iterancestors()):
            continue
        for line in _br_lines(element):
            if line:
                yield line, "text", _region(element)


def _br_lines(element: Any) -> list[str]:
    return [" ".join(line.split()) for line in _block_text(element).split("\n")]


def page_facts(html: str, url: str, text: str) -> tuple[SiteFact, ...]:
    """The facts of a whole HTML page, read in the language of its main text."""
    from frontdesk.text.lexical import text_language

    return tuple(facts_from_html(html, url, text_language(text)))


# Part of an ingested page's fingerprint: a change to how facts are read re-reads pages.
FACTS_VERSION = "facts-5"


def document_facts(document: Any, language: str) -> tuple[SiteFact, ...]:
    """A loaded document's facts: a web page's were read from its whole HTML when it was
    loaded; Markdown and text documents are read line by line here."""
    if document.kind == "html" or document.facts:
        return tuple(document.facts)
    return tuple(facts_from_text(document.text, language))
