"""A page author who wants to hurt the crawler: a page that trickles a byte every half
second, a sitemap index of 200 sitemaps × 50,000 URLs for a source that wants 20 pages,
and a host name whose DNS answer turns into a loopback address after the crawler checked
it. The download, the crawl and the sitemap reading each stop at a limit, the server's
own counters show how little was read, and the rebound name's answer is never read."""

from __future__ import annotations

import asyncio
import socket
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from frontdesk.knowledge.web.crawl import Crawler
from frontdesk.knowledge.web.fetch import Fetcher, HostGate
from frontdesk.knowledge.web.robots import SitemapLimits, read_sitemaps
from frontdesk.sites.knowledge import WebSource
from tests.support.hostile_site import HostileSite

pytestmark = pytest.mark.integration


@pytest.fixture
def trickling() -> Iterator[HostileSite]:
    with HostileSite(trickle_every_s=0.5, trickle_bytes=120) as site:  # 60 s to send
        yield site


def source(site: HostileSite, **rules: object) -> WebSource:
    base: dict[str, object] = {"url": site.url + "/", "allow_private_network": True}
    return WebSource.model_validate(base | rules)


def test_a_trickling_page_is_abandoned_at_its_deadline(trickling: HostileSite) -> None:
    # Every read arrives within the 2 s read timeout: only a whole-download deadline ends it.
    crawl = Crawler(source(trickling, timeout_s=2.0, page_deadline_s=2.5), {})
    started = time.monotonic()
    result = asyncio.run(crawl.run())
    elapsed = time.monotonic() - started
    slow = result.pages[f"{trickling.url}/slow.html"]
    assert slow.status == "failed" and "not downloaded within 2.5 s" in slow.reason
    assert trickling.served.pages.count("/slow.html") == 1, "a deadline is not retried"
    assert result.pages[f"{trickling.url}/pages/1.html"].status == "changed"
    assert elapsed < 15, f"the crawl took {elapsed:.1f} s"


def test_a_crawl_stops_at_its_deadline_and_keeps_what_it_read(trickling: HostileSite) -> None:
    crawl = Crawler(source(trickling, page_deadline_s=120, crawl_deadline_s=3), {})
    started = time.monotonic()
    result = asyncio.run(crawl.run())
    assert time.monotonic() - started < 15
    assert result.complete is False
    assert any("crawl deadline of 3 s" in reason for reason in result.limits_reached)
    assert result.pages[f"{trickling.url}/"].status == "changed"
    assert f"{trickling.url}/slow.html" not in result.pages  # in flight at the deadline


def test_sitemaps_are_read_only_until_max_pages_are_queued() -> None:
    with HostileSite(sitemaps=200, urls_per_sitemap=50_000) as site:
        result = asyncio.run(Crawler(source(site, max_pages=20), {}).run())
        served = site.served
    assert len(result.pages) == 20 and result.complete is False
    # The index and the first sitemap, not 200 sitemaps of 3.5 MB each.
    assert served.sitemaps <= 2, served
    assert served.sitemap_bytes < 1_000_000, served


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        ({"max_sitemaps": 5}, "more than 5 sitemaps"),
        ({"max_sitemap_urls": 3_000}, "more than 3,000 sitemap URLs"),
        ({"max_sitemap_bytes": 400_000}, "sitemaps larger than 400,000 bytes"),
    ],
)
def test_sitemap_limits_hold_when_no_url_is_wanted(limits: dict[str, int], reason: str) -> None:
    """No sitemap URL passes `include`: only the limits stop the reading."""
    with HostileSite(sitemaps=200, urls_per_sitemap=1_000) as site:
        crawl = Crawler(source(site, include=["/nothing-matches/"], **limits), {})
        result = asyncio.run(crawl.run())
        served = site.served
    assert reason in result.limits_reached
    assert served.sitemaps <= 6, served
    assert served.sitemap_bytes < 1_500_000, served


def test_a_big_sitemap_is_parsed_in_bounded_memory() -> None:
    """50,000 URLs read one by one: Python memory stays far below one list of them."""

    async def read(site: HostileSite) -> int:
        taken = 0

        def take(_url: str) -> bool:
            nonlocal taken
            taken += 1
            return True

        async with httpx.AsyncClient() as client:
            fetcher = Fetcher(
                client, site.url + "/", gate=HostGate(1, 0.0), max_bytes=100_000_000,
                allow_private_network=True,
            )  # fmt: skip
            tracemalloc.start()
            try:
                await read_sitemaps(fetcher, [f"{site.url}/sitemap-0.xml"], take, SitemapLimits())
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        assert taken == 50_000
        return peak

    with HostileSite(sitemaps=1, urls_per_sitemap=50_000) as site:
        peak = asyncio.run(read(site))
    assert peak < 2_000_000, f"peak {peak:,} bytes"


def test_a_name_that_rebinds_to_loopback_after_the_check_is_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DNS rebinding: the check sees a public address, the connection reaches 127.0.0.1."""
    real_getaddrinfo = asyncio.BaseEventLoop.getaddrinfo
    answers = iter(["93.184.216.34"])  # the first answer (the check's); then loopback

    async def getaddrinfo(self: Any, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in ("rebind.example.test", b"rebind.example.test"):  # anyio passes bytes
            address = next(answers, "127.0.0.1")
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0))]
        return await real_getaddrinfo(self, host, port, *args, **kwargs)

    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", getaddrinfo)

    async def fetch(url: str) -> Any:
        async with httpx.AsyncClient() as client:
            fetcher = Fetcher(
                client, url, gate=HostGate(1, 0.0), max_bytes=100_000,
                allow_private_network=False,
            )  # fmt: skip
            return await fetcher.fetch(url)

    with HostileSite() as site:
        result = asyncio.run(fetch(f"http://rebind.example.test:{site.port}/"))
    assert "connected to 127.0.0.1, which is not a public address" in result.error
    assert result.status == 0 and result.body == b""
