"""robots.txt rules (protego: wildcards, Allow/Disallow precedence, Crawl-delay) and
sitemaps (urlset and sitemap index, gzip too), read through the crawl's `Fetcher`."""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

from frontdesk.knowledge.web.fetch import Fetcher
from frontdesk.knowledge.web.urls import normalise_url

MAX_SITEMAPS = 200
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


def _xml_root(body: bytes, max_bytes: int) -> object | None:
    from lxml import etree

    if body[:2] == b"\x1f\x8b":
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as unzipped:
            body = unzipped.read(max_bytes + 1)
        if len(body) > max_bytes:
            return None
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
    try:
        root: object = etree.fromstring(body, parser)
        return root
    except etree.XMLSyntaxError:
        return None


async def read_sitemaps(fetcher: Fetcher, sitemaps: list[str], max_bytes: int) -> list[str]:
    """Page URLs of the sitemaps, following sitemap indexes (at most `MAX_SITEMAPS`)."""
    pending = [url for url in (normalise_url(s) for s in sitemaps) if url]
    visited: set[str] = set()
    pages: list[str] = []
    while pending and len(visited) < MAX_SITEMAPS:
        url = pending.pop(0)
        if url in visited:
            continue
        visited.add(url)
        result = await fetcher.fetch(url)
        if result.status != 200:
            continue
        root = _xml_root(result.body, max_bytes)
        if root is None:
            continue
        tag = str(getattr(root, "tag", ""))
        locations = [
            str(loc.text).strip()
            for loc in root.iter(f"{SITEMAP_NS}loc", "loc")  # type: ignore[attr-defined]
            if loc.text
        ]
        if tag.endswith("sitemapindex"):
            pending.extend(u for u in (normalise_url(loc) for loc in locations) if u)
        else:
            pages.extend(u for u in (normalise_url(loc) for loc in locations) if u)
    return list(dict.fromkeys(pages))
