"""Loaders: Markdown, plain text, HTML (main content only) and PDF → `Document`.

Every loader returns text with light Markdown structure (`#` headings, `-` list items,
blank lines between paragraphs) so that one chunker handles every format. A file that
cannot be read raises `LoaderError` whose message starts with the file's name.
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from frontdesk.guard.charset import clean_text
from frontdesk.knowledge.injection.hidden import HiddenPassage, visible_html, visible_markdown
from frontdesk.knowledge.injection.instructions import WithheldPassage
from frontdesk.knowledge.models import Document, DocumentKind

SUFFIX_KINDS: dict[str, DocumentKind] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
SUPPORTED_SUFFIXES = tuple(SUFFIX_KINDS)

# Page furniture that is never the answer to a visitor's question.
_HTML_NOISE_TAGS = (
    "script", "style", "noscript", "template", "nav", "aside",
    "form", "svg", "iframe", "button", "select", "input", "dialog",
)  # fmt: skip
# Page header and footer are furniture, but an article's own <header> holds its title.
_HTML_FRAME_TAGS = ("header", "footer")
_HTML_NOISE_ROLES = ("navigation", "banner", "contentinfo", "search", "complementary", "dialog")
_HTML_NOISE_CLASS = re.compile(
    r"(^|[\s_-])(nav|navbar|menu|breadcrumbs?|cookie|consent|sidebar|skip-link)([\s_-]|$)",
    re.IGNORECASE,
)
_HTML_FRAME_CLASS = re.compile(
    r"(^|[\s_-])(site-header|site-footer|footer|header)([\s_-]|$)", re.IGNORECASE
)
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_ATX_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")


class LoaderError(ValueError):
    """A file that cannot be loaded; the message names the file and what is wrong."""


@dataclass(frozen=True)
class LoadOutcome:
    """One file found while walking a directory: its document, or why it failed."""

    path: Path
    document: Document | None = None
    error: str | None = None


def title_from_name(name: str) -> str:
    """`case-study_fintech-rag.md` → `Case study fintech rag`."""
    stem = PurePosixPath(name).stem
    words = re.sub(r"[-_.]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else name


def _decode(data: bytes, name: str) -> str:
    if b"\x00" in data[:4096]:
        raise LoaderError(f"{name}: looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoaderError(f"{name}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def parse_markdown(data: bytes, name: str, doc_id: str, source: str) -> Document:
    text = _normalise(_decode(data, name))
    meta: dict[str, object] = {}
    match = _FRONT_MATTER.match(text + "\n")
    if match:
        try:
            loaded = yaml.safe_load(match.group(1))
        except yaml.YAMLError as exc:
            raise LoaderError(f"{name}: front matter is not valid YAML ({exc})") from exc
        if isinstance(loaded, dict):
            meta = {str(key): value for key, value in loaded.items()}
        text = text[match.end() :].strip()
    # Comments and raw-HTML elements a rendered page would not show.
    text, hidden = visible_markdown(text)
    if hidden:
        text = _normalise(text)
    title = str(meta.get("title") or "")
    if not title:
        for line in text.splitlines():
            heading = _ATX_HEADING.match(line)
            if heading and line.lstrip().startswith("# "):
                title = heading.group(1).strip()
                break
    return Document(
        doc_id=doc_id,
        title=title or title_from_name(name),
        text=text,
        kind="markdown",
        source=source,
        url=str(meta.get("url") or ""),
        withheld=hidden_passages(hidden),
    )


def hidden_passages(hidden: list[HiddenPassage]) -> tuple[WithheldPassage, ...]:
    """Hidden text a loader dropped, as passages the team is shown."""
    return tuple(WithheldPassage(excerpt, reason) for excerpt, reason in hidden)


def parse_text(data: bytes, name: str, doc_id: str, source: str) -> Document:
    text = _normalise(_decode(data, name))
    return Document(doc_id, title_from_name(name), text, "text", source)


def _inline(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _is_noise(tag: object) -> bool:
    from bs4 import Tag

    if not isinstance(tag, Tag) or tag.attrs is None:
        return False
    in_content = tag.find_parent(["main", "article"]) is not None
    if tag.name in _HTML_NOISE_TAGS:
        return True
    if tag.name in _HTML_FRAME_TAGS:
        return not in_content
    role = str(tag.get("role") or "")
    if role in _HTML_NOISE_ROLES:
        return True
    classes: Any = tag.get("class") or []
    joined = " ".join(classes) if isinstance(classes, list) else str(classes)
    names = f"{joined} {tag.get('id') or ''}"
    if _HTML_NOISE_CLASS.search(names):
        return True
    return not in_content and bool(_HTML_FRAME_CLASS.search(names))


def _html_blocks(node: object, out: list[str]) -> None:
    """Walk the tree and emit Markdown-ish blocks for headings, paragraphs, lists, tables."""
    from bs4.element import NavigableString, Tag

    if isinstance(node, NavigableString):
        text = _inline(str(node))
        if text:
            out.append(text)
        return
    if not isinstance(node, Tag):
        return
    name = node.name
    if name in {"h1", "h2", "h3", "h4", "h5", "h6"}:
        text = _inline(node.get_text(" "))
        if text:
            out.append("#" * int(name[1]) + " " + text)
    elif name == "li":
        text = _inline(node.get_text(" "))
        if text:
            out.append("- " + text)
    elif name == "pre":
        out.append("```\n" + node.get_text().strip("\n") + "\n```")
    elif name == "tr":
        cells = [_inline(cell.get_text(" ")) for cell in node.find_all(["td", "th"])]
        if any(cells):
            out.append("- " + " | ".join(cells))
    elif name in {"p", "blockquote", "dt", "dd", "figcaption", "caption", "summary"}:
        text = _inline(node.get_text(" "))
        if text:
            out.append(text)
    else:
        for child in node.children:
            _html_blocks(child, out)


def parse_html(data: bytes, name: str, doc_id: str, source: str) -> Document:
    from bs4 import BeautifulSoup, Tag

    from frontdesk.facts.extract import page_facts

    try:
        html = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        html = data.decode("cp1252", errors="replace")
    # Text a browser would not show (hidden styles, comments, <template>) goes first.
    html, hidden = visible_html(html)
    soup = BeautifulSoup(html, "html.parser")
    title_tag = soup.find("title")
    title = _inline(title_tag.get_text()) if isinstance(title_tag, Tag) else ""
    url = ""
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag):
        url = str(canonical.get("href") or "")
    if not url:
        og_url = soup.find("meta", property="og:url")
        if isinstance(og_url, Tag):
            url = str(og_url.get("content") or "")
    for tag in soup.find_all(_is_noise):
        if isinstance(tag, Tag) and not tag.decomposed:
            tag.decompose()
    root = soup.find("main") or soup.select_one('[role="main"]') or soup.find("article")
    if not isinstance(root, Tag):
        root = soup.body if isinstance(soup.body, Tag) else soup
    blocks: list[str] = []
    _html_blocks(root, blocks)
    text = _normalise("\n\n".join(blocks))
    if not text:
        raise LoaderError(f"{name}: HTML page has no main text content")
    if not title:
        heading = root.find("h1")
        title = _inline(heading.get_text(" ")) if isinstance(heading, Tag) else ""
    return Document(
        doc_id,
        title or title_from_name(name),
        text,
        "html",
        source,
        url,
        withheld=hidden_passages(hidden),
        # The whole visible page, header and footer included (`frontdesk.facts`).
        facts=page_facts(html, url or source, text),
    )


def parse_pdf(data: bytes, name: str, doc_id: str, source: str) -> Document:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except Exception as exc:  # pypdf raises many types for damaged files
        raise LoaderError(f"{name}: not a readable PDF ({type(exc).__name__}: {exc})") from exc
    paragraphs = [_pdf_page_text(page) for page in pages]
    text = _normalise("\n\n".join(part for part in paragraphs if part))
    if not text:
        raise LoaderError(f"{name}: PDF has no extractable text (scanned images need OCR)")
    title = str(meta_title).strip() if meta_title else ""
    return Document(doc_id, title or title_from_name(name), text, "pdf", source)


def _pdf_page_text(page: str) -> str:
    # Join hyphenated line breaks and single line breaks inside paragraphs.
    page = re.sub(r"(\w)-\n(\w)", r"\1\2", page.replace("\r\n", "\n"))
    page = re.sub(r"(?<![.!?:;\n])\n(?!\n|\s*[-•*]\s|\s*\d+[.)]\s)", " ", page)
    return page.strip()


_PARSERS = {
    "markdown": parse_markdown,
    "text": parse_text,
    "html": parse_html,
    "pdf": parse_pdf,
}


def kind_of(name: str) -> DocumentKind:
    suffix = PurePosixPath(name).suffix.lower()
    try:
        return SUFFIX_KINDS[suffix]
    except KeyError:
        supported = ", ".join(SUPPORTED_SUFFIXES)
        raise LoaderError(
            f"{name}: unsupported file type {suffix or '(none)'!r} (supported: {supported})"
        ) from None


def load_bytes(
    data: bytes, filename: str, *, doc_id: str | None = None, source: str = ""
) -> Document:
    """Load an uploaded file's bytes; the file type comes from `filename`'s suffix."""
    name = clean_text(PurePosixPath(filename.replace("\\", "/")).name or filename)
    kind = kind_of(name)
    if not data.strip():
        raise LoaderError(f"{name}: file is empty")
    document = _PARSERS[kind](data, name, doc_id or name, source or f"upload:{name}")
    # NUL and lone surrogates (a PDF's text layer may hold them) never reach the index.
    return dataclasses.replace(
        document, title=clean_text(document.title), text=clean_text(document.text)
    )


def load_file(path: Path, *, doc_id: str | None = None) -> Document:
    """Load one file; `doc_id` defaults to the file name."""
    kind_of(path.name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoaderError(f"{path}: cannot read file ({exc.strerror})") from exc
    return load_bytes(data, path.name, doc_id=doc_id or path.name, source=str(path.resolve()))


def iter_files(root: Path) -> Iterator[Path]:
    """Files under `root`, recursively, sorted, skipping hidden files and folders."""
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_file():
            yield path


def load_directory(root: Path) -> Iterator[LoadOutcome]:
    """Load every file under `root`; doc ids are paths relative to `root` (POSIX style).

    A file that fails is reported in its `LoadOutcome.error` and the walk goes on.
    """
    for path in iter_files(root):
        doc_id = path.relative_to(root).as_posix()
        try:
            yield LoadOutcome(path, document=load_file(path, doc_id=doc_id))
        except LoaderError as exc:
            yield LoadOutcome(path, error=str(exc).replace(path.name, doc_id, 1))


def load_path(path: Path) -> Iterator[LoadOutcome]:
    """A file or a directory (recursive)."""
    if path.is_dir():
        yield from load_directory(path)
    elif path.is_file():
        try:
            yield LoadOutcome(path, document=load_file(path))
        except LoaderError as exc:
            yield LoadOutcome(path, error=str(exc))
    else:
        yield LoadOutcome(path, error=f"{path}: no such file or directory")
