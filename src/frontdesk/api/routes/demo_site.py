"""The bundled demo knowledge base as a small website, so `frontdesk kb crawl` can learn it
offline: `/demo-site/` (an index), one HTML page per Markdown file, `sitemap.xml`, and a
`/robots.txt` that keeps crawlers out of the API.

    frontdesk kb crawl demo http://127.0.0.1:8000/demo-site/ --allow-private-network
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from frontdesk.api.deps import RuntimeDep
from frontdesk.api.errors import ApiError

router = APIRouter(tags=["demo"], include_in_schema=False)

DEMO_KB = Path(__file__).resolve().parents[2] / "demo" / "kb"
PREFIX = "/demo-site"


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.casefold()).strip("-") or "section"


@lru_cache(maxsize=64)
def _render(path: Path, mtime: float) -> tuple[str, str]:
    """(title, body HTML) of one Markdown file; headings get ids for citation anchors."""
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark").enable("table")
    tokens = markdown.parse(path.read_text(encoding="utf-8"))
    title, used = path.stem.replace("-", " ").capitalize(), set[str]()
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        text = tokens[index + 1].content
        if token.tag == "h1":
            title = text
        anchor = _slug(text)
        while anchor in used:
            anchor += "-x"
        used.add(anchor)
        token.attrSet("id", anchor)
    return title, markdown.renderer.render(tokens, markdown.options, {})


def _pages() -> dict[str, Path]:
    return {path.stem: path for path in sorted(DEMO_KB.glob("*.md"))}


def _base(request: Request, public_url: str) -> str:
    return public_url.strip().rstrip("/") or str(request.base_url).rstrip("/")


def _layout(title: str, body: str, lang: str, canonical: str, *, index: bool = True) -> str:
    nav = "".join(
        f'<li><a href="{PREFIX}/{slug}/">{html.escape(_render(path, path.stat().st_mtime)[0])}'
        "</a></li>"
        for slug, path in _pages().items()
    )
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        f'<link rel="canonical" href="{html.escape(canonical)}">'
        + ("" if index else '<meta name="robots" content="noindex">')
        + "</head><body>"
        f'<header class="site-header"><a href="{PREFIX}/">Help centre</a></header>'
        f'<nav aria-label="Pages"><ul>{nav}</ul></nav><main><article>{body}</article></main>'
        "<footer>Demo company website served by Frontdesk</footer></body></html>"
    )


@router.get("/robots.txt", response_class=PlainTextResponse)
def robots_txt(request: Request, runtime: RuntimeDep) -> PlainTextResponse:
    base = _base(request, runtime.settings.public_url)
    return PlainTextResponse(
        f"User-agent: *\nDisallow: /v1/\nAllow: {PREFIX}/\n\nSitemap: {base}{PREFIX}/sitemap.xml\n"
    )


@router.get(PREFIX + "/sitemap.xml")
def sitemap(request: Request, runtime: RuntimeDep) -> Response:
    base = _base(request, runtime.settings.public_url) + PREFIX
    urls = [f"{base}/", *(f"{base}/{slug}/" for slug in _pages())]
    entries = "".join(f"<url><loc>{html.escape(url)}</loc></url>" for url in urls)
    return Response(
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>',
        media_type="application/xml",
    )


@router.get(PREFIX + "/", response_class=HTMLResponse)
def index(request: Request, runtime: RuntimeDep) -> HTMLResponse:
    base = _base(request, runtime.settings.public_url) + PREFIX
    items = "".join(
        f'<li><a href="{PREFIX}/{slug}/">{html.escape(_render(path, path.stat().st_mtime)[0])}'
        "</a></li>"
        for slug, path in _pages().items()
    )
    body = f"<h1>Help centre</h1><p>Every article of the demo company.</p><ul>{items}</ul>"
    # A list of titles answers nothing: crawlers follow it but do not index it.
    return HTMLResponse(_layout("Help centre", body, "en", f"{base}/", index=False))


@router.get(PREFIX + "/{slug}/", response_class=HTMLResponse)
def page(slug: str, request: Request, runtime: RuntimeDep) -> HTMLResponse:
    path = _pages().get(slug)
    if path is None:
        raise ApiError(404, "not_found", f"No demo page {slug!r}.")
    title, body = _render(path, path.stat().st_mtime)
    lang = "ru" if slug.startswith("ru-") else "en"
    base = _base(request, runtime.settings.public_url) + PREFIX
    return HTMLResponse(_layout(title, body, lang, f"{base}/{slug}/"))
