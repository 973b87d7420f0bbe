"""A fetched page → a `Document` (main content only) plus what the crawl needs from it:
its links, its canonical URL and whether robots meta tags let it be indexed.

HTML main content comes from trafilatura (headings, lists and tables kept as Markdown);
PDF, Markdown and text pages go through the file loaders. Bytes are decoded with the
charset the server or the page declares, else detected, so a Windows-1251 or Latin-1
page reads as well as a UTF-8 one.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from email.message import Message
from typing import Any
from urllib.parse import urlsplit

from frontdesk.guard.charset import clean_text
from frontdesk.knowledge.ingest.loaders import (
    LoaderError,
    hidden_passages,
    parse_html,
    parse_markdown,
    parse_pdf,
    parse_text,
)
from frontdesk.knowledge.injection.hidden import drop_hidden
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.web.urls import normalise_url

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_MARKDOWN_SUFFIXES = (".md", ".markdown")


class UnsupportedContent(ValueError):
    """A response the knowledge base cannot read (an image, a zip, an empty page)."""


@dataclass(frozen=True)
class Page:
    """What one fetched page contributes: its document (None when it must not be indexed)
    and the links and canonical URL the crawl follows."""

    document: Document | None
    links: tuple[str, ...] = ()
    canonical: str | None = None
    notes: list[str] = field(default_factory=list)


def content_kind(content_type: str, url: str) -> str:
    """`html`, `pdf`, `markdown` or `text`; raises `UnsupportedContent` otherwise."""
    mime = content_type.split(";", 1)[0].strip().lower()
    path = urlsplit(url).path.lower()
    if mime in ("text/html", "application/xhtml+xml") or (not mime and path.endswith(".html")):
        return "html"
    if mime == "application/pdf" or (mime == "application/octet-stream" and path.endswith(".pdf")):
        return "pdf"
    if mime in ("text/markdown", "text/x-markdown") or (
        mime == "text/plain" and path.endswith(_MARKDOWN_SUFFIXES)
    ):
        return "markdown"
    if mime == "text/plain":
        return "text"
    raise UnsupportedContent(f"unsupported content type {mime or '(none)'!r}")


def _header_charset(content_type: str) -> str | None:
    message = Message()
    message["content-type"] = content_type or "text/plain"
    charset = message.get_param("charset")
    return str(charset) if isinstance(charset, str) else None


def decode_body(body: bytes, content_type: str, *, html: bool) -> str:
    """Text of a page: declared charset (header, then `<meta>`), UTF-8, else detected."""
    declared = _header_charset(content_type)
    if not declared and html:
        match = _META_CHARSET.search(body[:4096])
        declared = match.group(1).decode("ascii") if match else None
    for charset in (declared, "utf-8"):
        if not charset:
            continue
        try:
            return body.decode(charset).removeprefix("\ufeff")
        except (LookupError, UnicodeDecodeError):
            continue
    from charset_normalizer import from_bytes

    best = from_bytes(body).best()
    return str(best) if best is not None else body.decode("cp1252", errors="replace")


# trafilatura parses with module-level lxml parsers, which are not safe to share between
# threads: several crawl workers extracting at once aborted the process (seen in the test
# suite). Extraction holds the GIL for most of its time anyway, so one at a time costs little.
_EXTRACTION_LOCK = threading.Lock()


def extract_page(url: str, body: bytes, content_type: str) -> Page:
    """The page's document and links (see `_extract_page`), one extraction at a time."""
    with _EXTRACTION_LOCK:
        return _extract_page(url, body, content_type)


def _extract_page(url: str, body: bytes, content_type: str) -> Page:
    """The page's document and links; raises `UnsupportedContent` or `LoaderError`."""
    kind = content_kind(content_type, url)
    if not body.strip():
        raise UnsupportedContent("empty page")
    name = urlsplit(url).path.rsplit("/", 1)[-1] or urlsplit(url).hostname or url
    if kind == "pdf":
        return Page(_web_document(parse_pdf(body, name, url, url), url))
    if kind != "html":
        text = decode_body(body, content_type, html=False).encode("utf-8")
        parse = parse_markdown if kind == "markdown" else parse_text
        return Page(_web_document(parse(text, name, url, url), url))
    return _html_page(url, decode_body(body, content_type, html=True))


def _web_document(
    document: Document, url: str, anchors: tuple[tuple[str, str], ...] = ()
) -> Document:
    return replace(
        document,
        title=clean_text(document.title),
        text=clean_text(document.text),
        url=url,
        anchors=anchors,
    )


# A Markdown table's header row and the separator line under it.
_TABLE_HEAD = re.compile(
    r"^(\|[^\n]*\|)[ \t]*\n(\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+)[ \t]*$", re.MULTILINE
)


def _cells(row: str) -> tuple[str, ...]:
    return tuple(" ".join(cell.split()) for cell in row.strip().strip("|").split("|"))


def _data_first_rows(tree: Any) -> set[tuple[str, ...]]:
    """The first rows of the page's tables that are data, not a header: outside `<thead>`
    and not all `<th>` ("<th>Lunes</th><td>Cerrado</td>", a row header and its value)."""
    rows: set[tuple[str, ...]] = set()
    for table in tree.xpath("//table"):
        first = table.xpath("(./thead/tr|./tbody/tr|./tr)[1]")
        if not first or first[0].getparent().tag == "thead":
            continue
        cells = first[0].xpath("./th|./td")
        if cells and any(cell.tag == "td" for cell in cells):
            rows.add(tuple(" ".join(cell.text_content().split()) for cell in cells))
    return rows


def _headerless_tables(markdown: str, data_rows: set[tuple[str, ...]]) -> str:
    """trafilatura writes every table's first row as its header. A first row that was data
    on the page gets an empty header above it instead, so the answer does not read it as
    column names ("Martes — Cerrado: 10:00 – 20:00" for a Tuesday open 10 to 8)."""
    if not data_rows:
        return markdown

    def fix(match: re.Match[str]) -> str:
        head, separator = match.group(1), match.group(2)
        cells = _cells(head)
        if cells not in data_rows:
            return match.group(0)
        empty = "|" + "  |" * len(cells)
        return f"{empty}\n{separator}\n{head}"

    return _TABLE_HEAD.sub(fix, markdown)


def _html_page(url: str, html: str) -> Page:
    import lxml.html
    import trafilatura

    from frontdesk.facts.extract import page_facts

    try:
        tree = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError) as exc:
        raise LoaderError(f"{url}: not parseable HTML ({exc})") from exc
    base = url
    for href in tree.xpath("//base/@href")[:1]:
        base = normalise_url(str(href), url) or url
    robots = " ".join(str(v) for v in tree.xpath("//meta[@name='robots']/@content")).lower()
    canonical = None
    for href in tree.xpath("//link[@rel='canonical']/@href")[:1]:
        canonical = normalise_url(str(href), base)
    links: list[str] = []
    if "nofollow" not in robots:
        for anchor in tree.xpath("//a[@href]"):
            if "nofollow" in str(anchor.get("rel") or "").lower():
                continue
            target = normalise_url(str(anchor.get("href")), base)
            if target is not None:
                links.append(target)
    if "noindex" in robots:
        return Page(None, tuple(dict.fromkeys(links)), canonical, ["noindex"])
    # Text a browser would not show is no part of the page (links above are still followed).
    hidden = drop_hidden(tree)
    html = lxml.html.tostring(tree, encoding="unicode")
    anchors = tuple(
        (" ".join(heading.text_content().split()), str(heading.get("id")))
        for heading in tree.xpath("//h1[@id]|//h2[@id]|//h3[@id]|//h4[@id]|//h5[@id]|//h6[@id]")
        if heading.text_content().strip()
    )
    titles = tree.xpath("//title/text()")
    title = " ".join(str(titles[0]).split()) if titles else ""
    markdown = trafilatura.extract(
        html,
        url=url,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        include_links=False,
        include_comments=False,
        favor_recall=True,
    )
    if markdown and markdown.strip():
        markdown = _headerless_tables(markdown, _data_first_rows(tree))
        if not title:
            first = re.search(r"^#{1,6}\s+(.+)$", markdown, re.MULTILINE)
            title = first.group(1).strip() if first else url
        document = Document(url, title, markdown.strip(), "html", url, url)
    else:  # trafilatura found no main text: the structural extractor may still
        document = parse_html(html.encode("utf-8"), url, url, url)
    if hidden:
        document = replace(document, withheld=(*hidden_passages(hidden), *document.withheld))
    facts = page_facts(html, url, document.text)  # header and footer included
    return Page(
        replace(_web_document(document, url, anchors=anchors), facts=facts),
        tuple(dict.fromkeys(links)),
        canonical,
    )
