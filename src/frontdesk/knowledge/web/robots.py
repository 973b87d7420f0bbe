"""robots.txt rules (protego: wildcards, Allow/Disallow precedence, Crawl-delay) and
sitemaps (urlset and sitemap index, gzip too), read through the crawl's `Fetcher`.

Sitemaps are parsed as they download and read only until the crawl has enough page URLs
or a limit (`SitemapLimits`: sitemaps, URLs, bytes) is reached: a site whose index lists
hundreds of sitemaps of 50,000 URLs costs what `max_pages` needs, not the whole index."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from protego import Protego

from frontdesk.knowledge.web.fetch import Fetcher
from frontdesk.knowledge.web.urls import normalise_url

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


class SiteUnreachable(RuntimeError):
    """The site did not answer at all (robots.txt): nothing of this sync is applied."""


@dataclass(frozen=True)
class Robots:
    rules: Protego | None
    user_agent: str

    def allows(self, url: str) -> bool:
        return self.rules is None or bool(self.rules.can_fetch(url, self.user_agent))

    def crawl_delay(self) -> float:
        if self.rules is None:
            return 0.0
        delay = self.rules.crawl_delay(self.user_agent)
        return float(delay) if delay else 0.0

    def sitemaps(self) -> list[str]:
        return list(self.rules.sitemaps) if self.rules is not None else []


def site_root(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def read_robots(fetcher: Fetcher, start_url: str, user_agent: str) -> Robots:
    """The site's rules; a missing robots.txt (4xx) allows everything (RFC 9309)."""
    result = await fetcher.fetch(site_root(start_url) + "/robots.txt")
    if result.transport_failure:
        raise SiteUnreachable(f"{site_root(start_url)} did not answer ({result.error})")
    if result.status == 429 or result.status >= 500:
        # RFC 9309: a server error means "assume everything is disallowed" for now.
        raise SiteUnreachable(f"robots.txt answered HTTP {result.status}; try again later")
    if result.status != 200:
        return Robots(None, user_agent)
    text = result.body.decode("utf-8", errors="replace")
    return Robots(Protego.parse(text), user_agent)


@dataclass(frozen=True)
class SitemapLimits:
    """How much of a site's sitemaps one crawl reads, all sitemaps together."""

    max_sitemaps: int = 50
    max_urls: int = 100_000  # <loc> entries read
    max_bytes: int = 50_000_000  # XML after gunzip


@dataclass
class SitemapReading:
    """What reading the sitemaps cost, and why it stopped early ("" when it did not)."""

    sitemaps: int = 0
    urls: int = 0
    bytes: int = 0
    stopped: str = ""


# Takes a page URL found in a sitemap; False when the crawl wants no more of them.
PageSink = Callable[[str], bool]


class _SitemapStream:
    """One sitemap parsed while it downloads (gzip or not): `<loc>` entries go out one by
    one and parsed elements are dropped, so memory does not grow with the sitemap."""

    def __init__(self, reading: SitemapReading, limits: SitemapLimits) -> None:
        from lxml import etree

        self.reading = reading
        self.limits = limits
        self.parser = etree.XMLPullParser(
            events=("start", "end"), resolve_entities=False, no_network=True, recover=True
        )
        self.gunzip: Any = None
        self.first = True
        self.is_index = False
        self.locations: list[str] = []  # found since the last `drain`

    def feed(self, piece: bytes) -> bool:
        """Parse the next piece of the download; False when a limit was reached."""
        if self.first:
            self.first = False
            if piece[:2] == b"\x1f\x8b":
                self.gunzip = zlib.decompressobj(wbits=31)
        if self.gunzip is None:
            return self._parse(piece)
        # A small gzip can expand a thousandfold: inflate in bounded steps.
        data = self.gunzip.decompress(piece, GUNZIP_STEP)
        while data:
            if not self._parse(data):
                return False
            data = self.gunzip.decompress(self.gunzip.unconsumed_tail, GUNZIP_STEP)
        return True

    def _parse(self, data: bytes) -> bool:
        from lxml import etree

        self.reading.bytes += len(data)
        if self.reading.bytes > self.limits.max_bytes:
            self.reading.stopped = f"sitemaps larger than {self.limits.max_bytes:,} bytes"
            return False
        try:
            self.parser.feed(data)
            events = list(self.parser.read_events())
        except etree.XMLSyntaxError:
            return False
        for event, element in events:
            tag = str(element.tag)
            if event == "start":
                if element.getparent() is None:
                    self.is_index = tag.endswith("sitemapindex")
                continue
            if tag in (f"{SITEMAP_NS}loc", "loc") and element.text:
                self.locations.append(str(element.text).strip())
                self.reading.urls += 1
                if self.reading.urls >= self.limits.max_urls:
                    self.reading.stopped = f"more than {self.limits.max_urls:,} sitemap URLs"
                    return False
            elif tag.endswith(("url", "sitemap")):
                # An entry is done: free it and the ones before it.
                element.clear()
                parent = element.getparent()
                while parent is not None and element.getprevious() is not None:
                    del parent[0]
        return True

    def drain(self) -> list[str]:
        found, self.locations = self.locations, []
        return found


GUNZIP_STEP = 1 << 16


async def read_sitemaps(
    fetcher: Fetcher,
    sitemaps: list[str],
    on_page: PageSink,
    limits: SitemapLimits | None = None,
) -> SitemapReading:
    """Stream the sitemaps' page URLs to `on_page`, following sitemap indexes, until the
    crawl has enough (`on_page` says False) or a limit of `limits` is reached."""
    limits = limits or SitemapLimits()
    reading = SitemapReading()
    pending = [url for url in (normalise_url(s) for s in sitemaps) if url]
    visited: set[str] = set()
    wants_more = True
    while pending and wants_more and not reading.stopped:
        url = pending.pop(0)
        if url in visited:
            continue
        if len(visited) >= limits.max_sitemaps:
            reading.stopped = f"more than {limits.max_sitemaps} sitemaps"
            break
        visited.add(url)
        stream = _SitemapStream(reading, limits)

        def take(piece: bytes, stream: _SitemapStream = stream) -> bool:
            nonlocal wants_more
            more = stream.feed(piece)
            if stream.is_index:
                for location in stream.drain():
                    sitemap = normalise_url(location)
                    # More than the limit would never be read: do not keep them.
                    if sitemap and len(pending) + len(visited) < limits.max_sitemaps + 1:
                        pending.append(sitemap)
                return more
            for location in stream.drain():
                page = normalise_url(location)
                if page and not on_page(page):
                    wants_more = False
                    return False
            return more

        await fetcher.fetch(url, sink=take, max_bytes=limits.max_bytes)
        reading.sitemaps += 1
    return reading
