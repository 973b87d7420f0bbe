"""A generated company website on 127.0.0.1 for the crawler's tests and benchmark.

`LoopbackWebsite(pages=320)` serves `/docs/page-N.html` pages (headings with ids, lists,
tables, links to neighbours) and everything a real site throws at a crawler: a sitemap
index pointing at a plain and a gzip sitemap, robots.txt with a Disallow, a redirect
chain, a canonical duplicate and an uncanonical mirror, 404 links, a slow page, a page
that answers 429 with Retry-After once, a PDF, a Windows-1251 page, an oversized page,
Markdown and text files. ETag and Last-Modified are honoured (304), like a real server.

Pages can be edited (`edit`) and deleted (`delete`), and the server can die after a
number of page requests (`die_after`), all while it runs.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import time
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from tests.support.ports import ThreadedServer, free_port, serve_on_loopback

TOPICS = (
    "invoices", "webhooks", "backups", "exports", "permissions", "alerts", "reports",
    "sandboxes", "audits", "quotas", "tokens", "mirrors", "archives", "schedules",
)  # fmt: skip


@dataclass
class Resource:
    body: bytes
    content_type: str
    modified: float


def page_path(number: int) -> str:
    return f"/docs/page-{number}.html"


def page_marker(number: int, version: int = 0) -> str:
    """A word only page `number` (at `version`) contains: what tests search for."""
    return f"zq{number}x{version}marker"


def _page_html(number: int, version: int, pages: int) -> bytes:
    topic = TOPICS[number % len(TOPICS)]
    neighbours = [(number + step) % pages for step in (1, 2, 7, 31)]
    links = "".join(f'<li><a href="{page_path(n)}">Page {n}</a></li>' for n in neighbours)
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>Guide {number}: {topic}</title></head><body>"
        "<header class='site-header'><a href='/'>Home</a></header>"
        f"<nav><ul>{links}<li><a href='/private/secret.html'>Staff</a></li></ul></nav>"
        f"<main><h1 id='top'>Guide {number} about {topic}</h1>"
        f"<p>This guide explains how {topic} work for workspace {number}. "
        f"The reference code of this guide is {page_marker(number, version)}. Teams read it "
        f"when they set up {topic} for the first time and want every step written down.</p>"
        f"<h2 id='setup-{number}'>Setting up {topic}</h2>"
        f"<ul><li>Open the settings of workspace {number}.</li>"
        f"<li>Choose {topic} and confirm the owner.</li><li>Save and wait a minute.</li></ul>"
        f"<h2 id='limits-{number}'>Limits of {topic}</h2>"
        "<table><tr><th>Plan</th><th>Limit</th></tr>"
        f"<tr><td>Starter</td><td>{number % 9 + 1} per day</td></tr>"
        f"<tr><td>Scale</td><td>{number % 9 + 10} per day</td></tr></table>"
        f"<p>Limits reset at midnight; the audit log of workspace {number} shows each use of "
        f"{topic} with its time and owner.</p></main>"
        "<footer>© Example Corp · <a href='/docs/missing-page.html'>Old link</a></footer>"
        "</body></html>"
    ).encode()


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose text layer holds `text` (ASCII), with a correct xref table."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


class LoopbackWebsite:
    """The generated site, served by uvicorn on a daemon thread."""

    def __init__(self, pages: int = 320, *, slow_s: float = 2.0, oversized_bytes: int = 0) -> None:
        self.pages = pages
        self.slow_s = slow_s
        self.oversized_bytes = oversized_bytes or 3_000_000
        self.port = free_port()
        self.versions = dict.fromkeys(range(pages), 0)
        self.deleted: set[int] = set()
        self.die_after: int | None = None
        self.requests = 0
        self.paths: list[str] = []
        self._busy_served = False
        self._flaky_served = False
        self._lock = threading.Lock()
        self._server: ThreadedServer | None = None
        self._resources: dict[str, Resource] = {}
        self._build()

    # -- content -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def edit(self, number: int) -> None:
        with self._lock:
            self.versions[number] += 1
            self._put(page_path(number), _page_html(number, self.versions[number], self.pages))

    def delete(self, number: int) -> None:
        with self._lock:
            self.deleted.add(number)
            self._resources.pop(page_path(number), None)
            self._sitemaps()

    def _put(self, path: str, body: bytes, content_type: str = "text/html") -> None:
        self._resources[path] = Resource(body, content_type, time.time())

    def _build(self) -> None:
        for number in range(self.pages):
            self._put(page_path(number), _page_html(number, 0, self.pages))
        self._put(
            "/",
            b"<html><head><title>Example Corp</title></head><body><main><h1>Example Corp help"
            b" centre</h1><p>Start with <a href='/docs/page-0.html'>the first guide</a>, read"
            b" <a href='/old/start'>our old start page</a>, <a href='/docs/page-7.html?print=1'>"
            b"print page 7</a>, <a href='/mirror/page-8.html'>the mirror</a>, <a href='/slow.html'>"
            b"the slow page</a>, <a href='/busy.html'>the busy page</a>, <a href='/huge.html'>"
            b"the huge page</a>, <a href='/files/guide.pdf'>the PDF</a>, <a href='/intl/ru.html'>"
            b"the Russian page</a>, <a href='/notes/readme.md'>notes</a>,"
            b" <a href='/notes/hours.txt'>hours</a>,"
            b" <a href='/docs/missing-1.html'>a dead link</a>, <a href='/flaky.html'>flaky</a> and"
            b" <a href='https://elsewhere.example/'>another site</a>.</p></main></body></html>",
        )
        print_copy = _page_html(7, 0, self.pages).replace(
            b"<head>", b"<head><link rel='canonical' href='/docs/page-7.html'>"
        )
        self._put("/docs/page-7.html?print=1", print_copy)
        self._put("/mirror/page-8.html", _page_html(8, 0, self.pages))
        self._put(
            "/private/secret.html",
            b"<html><body><main><p>Staff only salary bands zzsecretzz.</p></main></body></html>",
        )
        self._put(
            "/slow.html",
            b"<html><body><main><p>The slow page zzslowzz arrives late.</p></main></body></html>",
        )
        self._put(
            "/busy.html",
            b"<html><body><main><h1>Status</h1><p>The busy page zzbusyzz answers after a short"
            b" wait because the server was rate limiting.</p></main></body></html>",
        )
        self._put(
            "/flaky.html",
            b"<html><body><main><h1>Maintenance</h1><p>The flaky page zzflakyzz failed once"
            b" with a server error before it answered.</p></main></body></html>",
        )
        self._put("/huge.html", b"<html><body><main><p>" + b"big " * (self.oversized_bytes // 4))
        self._put(
            "/files/guide.pdf",
            minimal_pdf("The installation manual zzpdfzz covers rack mounting."),
            "application/pdf",
        )
        russian = (
            "<html><head><meta charset='windows-1251'><title>Оплата</title></head><body><main>"
            "<h1>Оплата счетов</h1><p>Счета выставляются ежемесячно, оплата картой или "
            "переводом zzcyrzz в течение десяти дней.</p></main></body></html>"
        )
        self._put("/intl/ru.html", russian.encode("cp1251"))
        self._put(
            "/notes/readme.md",
            b"# Release notes\n\n## Version 2\n\n- Faster exports zzmdzz\n- New alerts\n",
            "text/markdown",
        )
        self._put("/notes/hours.txt", b"Support hours zztxtzz: 9 to 17 on weekdays.", "text/plain")
        self._sitemaps()

    def _sitemaps(self) -> None:
        def urlset(paths: list[str]) -> bytes:
            entries = "".join(f"<url><loc>{self.url}{p}</loc></url>" for p in paths)
            return (
                '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
                f'"http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
            ).encode()

        live = [page_path(n) for n in range(self.pages) if n not in self.deleted]
        half = len(live) // 2
        extra = ["/private/secret.html", "/files/guide.pdf", "/docs/missing-2.html"]
        self._put("/sitemaps/pages-1.xml", urlset(live[:half] + extra), "application/xml")
        self._put(
            "/sitemaps/pages-2.xml.gz", gzip.compress(urlset(live[half:])), "application/gzip"
        )
        self._put(
            "/sitemap.xml",
            (
                '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns='
                '"http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<sitemap><loc>{self.url}/sitemaps/pages-1.xml</loc></sitemap>"
                f"<sitemap><loc>{self.url}/sitemaps/pages-2.xml.gz</loc></sitemap>"
                "</sitemapindex>"
            ).encode(),
            "application/xml",
        )
        self._put(
            "/robots.txt",
            f"User-agent: *\nDisallow: /private/\n\nSitemap: {self.url}/sitemap.xml\n".encode(),
            "text/plain",
        )

    # -- serving ---------------------------------------------------------------------------
    def _app(self) -> Any:
        import anyio
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import RedirectResponse, Response
        from starlette.routing import Route

        redirects = {"/old/start": "/old/middle", "/old/middle": "/docs/page-5.html"}

        async def serve(request: Request) -> Response:
            path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            with self._lock:
                self.requests += 1
                self.paths.append(path)
                if self.die_after is not None and self.requests > self.die_after:
                    assert self._server is not None
                    self._server.server.should_exit = True
                resource = self._resources.get(path)
                busy_first = path == "/busy.html" and not self._busy_served
                self._busy_served = self._busy_served or path == "/busy.html"
                flaky_first = path == "/flaky.html" and not self._flaky_served
                self._flaky_served = self._flaky_served or path == "/flaky.html"
            if path in redirects:
                return RedirectResponse(
                    redirects[path], status_code=301 if "start" in path else 302
                )
            if path == "/slow.html":
                await anyio.sleep(self.slow_s)
            if busy_first:
                return Response("slow down", status_code=429, headers={"Retry-After": "1"})
            if flaky_first:
                return Response("upstream error", status_code=503)
            if resource is None:
                return Response("not found", status_code=404)
            etag = '"' + hashlib.sha256(resource.body).hexdigest()[:16] + '"'
            modified = formatdate(resource.modified, usegmt=True)
            if request.headers.get("if-none-match") == etag:
                return Response(status_code=304, headers={"ETag": etag})
            # The content type exactly as given: Starlette would add "charset=utf-8".
            headers = {"ETag": etag, "Last-Modified": modified}
            return Response(
                resource.body, headers={**headers, "Content-Type": resource.content_type}
            )

        return Starlette(routes=[Route("/{path:path}", serve)])

    def start(self) -> LoopbackWebsite:
        self._server = serve_on_loopback(self._app(), self.port, "loopback website")
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def __enter__(self) -> LoopbackWebsite:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
