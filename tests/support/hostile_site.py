"""A website on 127.0.0.1 that a careless crawler cannot survive: a page that trickles
one byte every half second, and a sitemap index listing many sitemaps of many URLs each
(generated while they stream, so the server itself stays small). It counts what it
served: sitemaps started, sitemap bytes sent, page requests.

    with HostileSite(sitemaps=200, urls_per_sitemap=50_000) as site:
        ... crawl site.url ...
        site.served.sitemaps, site.served.sitemap_bytes
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.ports import ThreadedServer, free_port, serve_on_loopback

URLS_PER_CHUNK = 100
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


@dataclass
class Served:
    sitemaps: int = 0  # sitemap responses started (the index included)
    sitemap_bytes: int = 0  # sitemap bytes handed to the socket
    pages: list[str] = field(default_factory=list)


class HostileSite:
    def __init__(
        self,
        *,
        sitemaps: int = 0,
        urls_per_sitemap: int = 0,
        trickle_every_s: float = 0.5,
        trickle_bytes: int = 200,
        pages: int = 40,
        paragraphs: int = 1,
    ) -> None:
        self.sitemaps = sitemaps
        self.urls_per_sitemap = urls_per_sitemap
        self.trickle_every_s = trickle_every_s
        self.trickle_bytes = trickle_bytes
        self.pages = pages
        self.paragraphs = paragraphs  # per page: more text, more to extract and embed
        self.served = Served()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: ThreadedServer | None = None

    def __enter__(self) -> HostileSite:
        self._server = serve_on_loopback(self._app(), self.port, "hostile site")
        return self

    def __exit__(self, *_: object) -> None:
        if self._server is not None:
            self._server.stop()

    def _app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/robots.txt", self._robots),
                Route("/", self._home),
                Route("/slow.html", self._slow),
                Route("/sitemap-index.xml", self._index),
                Route("/sitemap-{number:int}.xml", self._sitemap),
                Route("/pages/{number:int}.html", self._page),
            ]
        )

    async def _robots(self, _request: Request) -> Response:
        lines = ["User-agent: *", "Allow: /"]
        if self.sitemaps:
            lines.append(f"Sitemap: {self.url}/sitemap-index.xml")
        return PlainTextResponse("\n".join(lines) + "\n")

    async def _home(self, _request: Request) -> Response:
        self.served.pages.append("/")
        links = "".join(f'<li><a href="/pages/{n}.html">Page {n}</a></li>' for n in range(3))
        return HTMLResponse(
            "<html><head><title>Home</title></head><body><main><h1>Welcome</h1>"
            "<p>Our guides explain every feature of the product in plain words.</p>"
            f'<ul><li><a href="/slow.html">Slow page</a></li>{links}</ul></main></body></html>'
        )

    async def _page(self, request: Request) -> Response:
        number = request.path_params["number"]
        self.served.pages.append(f"/pages/{number}.html")
        topics = ("invoices", "exports", "reports", "backups", "alerts", "tokens", "audits")
        text = "".join(
            f"<h2>Part {k}</h2><p>Guide {number} explains how workspace {number + k} keeps "
            f"its {topics[(number + k) % len(topics)]} in order for the whole team, step "
            f"{k} of {self.paragraphs}, and what to check when a limit of {k + number % 9} "
            "per day is reached before the end of the month.</p>"
            for k in range(self.paragraphs)
        )
        return HTMLResponse(
            f"<html><head><title>Guide {number}</title></head><body><main>"
            f"<h1>Guide {number}</h1>{text}</main></body></html>"
        )

    async def _slow(self, _request: Request) -> Response:
        self.served.pages.append("/slow.html")

        async def trickle() -> AsyncIterator[bytes]:
            yield b"<html><body><main><p>"
            for _ in range(self.trickle_bytes):
                await asyncio.sleep(self.trickle_every_s)
                yield b"x"
            yield b"</p></main></body></html>"

        return StreamingResponse(trickle(), media_type="text/html")

    def _stream(self, chunks: AsyncIterator[str]) -> Response:
        self.served.sitemaps += 1

        async def counted() -> AsyncIterator[bytes]:
            async for chunk in chunks:
                data = chunk.encode()
                self.served.sitemap_bytes += len(data)
                yield data

        return StreamingResponse(counted(), media_type="application/xml")

    async def _index(self, _request: Request) -> Response:
        async def chunks() -> AsyncIterator[str]:
            yield f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAP_NS}">'
            for number in range(self.sitemaps):
                yield f"<sitemap><loc>{self.url}/sitemap-{number}.xml</loc></sitemap>"
            yield "</sitemapindex>"

        return self._stream(chunks())

    async def _sitemap(self, request: Request) -> Response:
        number = request.path_params["number"]

        async def chunks() -> AsyncIterator[str]:
            yield f'<?xml version="1.0"?><urlset xmlns="{SITEMAP_NS}">'
            for first in range(0, self.urls_per_sitemap, URLS_PER_CHUNK):
                last = min(first + URLS_PER_CHUNK, self.urls_per_sitemap)
                yield "".join(
                    f"<url><loc>{self.url}/pages/{number * self.urls_per_sitemap + n}.html"
                    "</loc><lastmod>2024-01-01</lastmod></url>"
                    for n in range(first, last)
                )
                # Paced, so a client that stopped reading is noticed before loopback's
                # socket buffers swallow the whole sitemap.
                await asyncio.sleep(0.002)
            yield "</urlset>"

        return self._stream(chunks())
