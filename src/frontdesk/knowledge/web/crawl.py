"""One crawl of one web source: robots.txt, sitemaps, then links breadth-first.

The crawl only reads; what it found is staged in a `CrawlResult` and applied by
`sync.py` once the crawl is complete, so a crawl that fails halfway changes nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import httpx

from frontdesk.knowledge.ingest.loaders import LoaderError
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.web.extract import UnsupportedContent, extract_page
from frontdesk.knowledge.web.fetch import Fetcher, FetchResult, HostGate
from frontdesk.knowledge.web.robots import (
    Robots,
    SitemapLimits,
    SitemapReading,
    SiteUnreachable,
    read_robots,
    read_sitemaps,
)
from frontdesk.knowledge.web.urls import (
    UnsafeAddress,
    allowed_by_patterns,
    check_address,
    normalise_url,
    same_site,
)
from frontdesk.sites.knowledge import WebSource

PageStatus = Literal["changed", "unchanged", "gone", "failed", "skipped"]
# The server stopped answering: this many in a row, or this share of all requests, and
# the crawl is abandoned (the previous index keeps serving).
ABORT_AFTER_CONSECUTIVE_FAILURES = 10
ABORT_FAILURE_SHARE = 0.10


class CrawlAborted(RuntimeError):
    """The crawl could not finish; nothing of it may be applied."""


@dataclass(frozen=True)
class KnownPage:
    """What the previous sync stored about a URL (crawl_pages row)."""

    url: str
    doc_id: str | None
    etag: str = ""
    last_modified: str = ""
    body_hash: str = ""
    links: tuple[str, ...] = ()
    missed: int = 0


@dataclass
class PageOutcome:
    url: str
    status: PageStatus
    document: Document | None = None
    etag: str = ""
    last_modified: str = ""
    body_hash: str = ""
    links: tuple[str, ...] = ()
    reason: str = ""
    transport_failure: bool = False
    fetched: bool = False  # a body was downloaded (200; a 304 downloads none)


@dataclass
class CrawlResult:
    pages: dict[str, PageOutcome] = field(default_factory=dict)
    complete: bool = True  # every reachable page was visited (not cut at a limit)
    limits_reached: list[str] = field(default_factory=list)  # why it was cut, if it was


ProgressHook = Callable[[str, PageOutcome | None], None]  # ("found" | "done", outcome)


def sitemap_limits(source: WebSource) -> SitemapLimits:
    return SitemapLimits(
        max_sitemaps=source.max_sitemaps,
        max_urls=source.max_sitemap_urls,
        max_bytes=source.max_sitemap_bytes,
    )


def auth_headers(source: WebSource) -> dict[str, str]:
    if not source.auth_header_env:
        return {}
    value = os.environ.get(source.auth_header_env, "")
    if not value:
        raise CrawlAborted(
            f"environment variable {source.auth_header_env} (auth_header_env) is not set"
        )
    return {"Authorization": value}


class Crawler:
    def __init__(
        self,
        source: WebSource,
        known: dict[str, KnownPage],
        *,
        on_progress: ProgressHook | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.source = source
        self.start_url = normalise_url(source.start_url) or source.start_url
        self.known = known
        self.on_progress = on_progress or (lambda _event, _outcome: None)
        self.transport = transport
        self.result = CrawlResult()
        self._seen: set[str] = set()
        self._queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self._consecutive_failures = 0
        self._transport_failures = 0
        self._requests = 0
        self._abort: str | None = None
        self.sitemaps = SitemapReading()

    async def run(self) -> CrawlResult:
        source = self.source
        try:
            await check_address(self.start_url, allow_private_network=source.allow_private_network)
        except UnsafeAddress as exc:
            raise CrawlAborted(str(exc)) from exc
        headers = {"User-Agent": source.user_agent, **auth_headers(source)}
        try:
            # The whole crawl (robots.txt, sitemaps, pages) has a deadline; what was read
            # by then is applied like a crawl cut at `max_pages`.
            async with asyncio.timeout(source.crawl_deadline_s):
                await self._crawl(headers)
        except TimeoutError:
            self.result.complete = False
            self.result.limits_reached.append(
                f"crawl deadline of {source.crawl_deadline_s:g} s reached"
            )
        if self._abort is None and self._requests:
            share = self._transport_failures / self._requests
            if self._transport_failures > 2 and share > ABORT_FAILURE_SHARE:
                self._abort = (
                    f"{self._transport_failures} of {self._requests} requests got no answer"
                )
        if self._abort is not None:
            raise CrawlAborted(self._abort)
        self._dedupe()
        return self.result

    async def _crawl(self, headers: dict[str, str]) -> None:
        source = self.source
        timeout = httpx.Timeout(source.timeout_s)
        async with httpx.AsyncClient(
            headers=headers, timeout=timeout, follow_redirects=False, transport=self.transport
        ) as client:
            probe = Fetcher(
                client,
                self.start_url,
                gate=HostGate(source.politeness.concurrency, 0.0),
                max_bytes=source.max_page_bytes,
                allow_private_network=source.allow_private_network,
                page_deadline_s=source.page_deadline_s,
            )
            try:
                robots = await read_robots(probe, self.start_url, source.user_agent)
            except SiteUnreachable as exc:
                raise CrawlAborted(str(exc)) from exc
            delay = max(source.politeness.crawl_delay_s, robots.crawl_delay())
            fetcher = Fetcher(
                client,
                self.start_url,
                gate=HostGate(source.politeness.concurrency, delay),
                max_bytes=source.max_page_bytes,
                allow_private_network=source.allow_private_network,
                page_deadline_s=source.page_deadline_s,
            )
            sitemaps = [str(source.sitemap)] if source.sitemap else robots.sitemaps()
            if not sitemaps:
                sitemaps = [self.start_url.rstrip("/") + "/sitemap.xml"]
            self._enqueue(self.start_url, 0)
            self.sitemaps = await read_sitemaps(
                fetcher, sitemaps, self._take_sitemap_page, sitemap_limits(source)
            )
            if self.sitemaps.stopped:
                self.result.limits_reached.append(self.sitemaps.stopped)
            workers = [
                asyncio.create_task(self._work(fetcher, robots))
                for _ in range(max(2, source.politeness.concurrency * 2))
            ]
            try:
                await self._queue.join()
            finally:
                for worker in workers:
                    worker.cancel()
                await asyncio.gather(*workers, return_exceptions=True)

    def _take_sitemap_page(self, url: str) -> bool:
        """A page URL from a sitemap; False once the crawl has `max_pages` of them."""
        self._enqueue(url, 0)
        return len(self._seen) < self.source.max_pages

    def _dedupe(self) -> None:
        """Pages with the same main text are one document, under the shortest URL."""
        by_text: dict[str, list[PageOutcome]] = {}
        for outcome in self.result.pages.values():
            if outcome.document is not None:
                digest = hashlib.sha256(outcome.document.text.encode("utf-8")).hexdigest()
                by_text.setdefault(digest, []).append(outcome)
        for copies in by_text.values():
            copies.sort(key=lambda outcome: (len(outcome.url), outcome.url))
            for copy in copies[1:]:
                copy.document, copy.status = None, "skipped"
                copy.reason = f"duplicate of {copies[0].url}"

    def _enqueue(self, url: str, depth: int) -> None:
        if url in self._seen or depth > self.source.max_depth:
            return
        if not same_site(url, self.start_url):
            return
        # The start URL is always read (it was asked for); patterns choose the rest.
        patterns = (self.source.include, self.source.exclude)
        if url != self.start_url and not allowed_by_patterns(url, *patterns):
            return
        if len(self._seen) >= self.source.max_pages:
            if self.result.complete:
                self.result.limits_reached.append(f"max_pages ({self.source.max_pages}) reached")
            self.result.complete = False
            return
        self._seen.add(url)
        self._queue.put_nowait((url, depth))
        self.on_progress("found", None)

    async def _work(self, fetcher: Fetcher, robots: Robots) -> None:
        while True:
            url, depth = await self._queue.get()
            try:
                if self._abort is None:
                    outcome = await self._visit(fetcher, robots, url, depth)
                    self.result.pages[url] = outcome
                    self.on_progress("done", outcome)
            except Exception as exc:  # one page's bug must not end the crawl
                outcome = PageOutcome(url, "failed", reason=f"{type(exc).__name__}: {exc}")
                self.result.pages[url] = outcome
                self.on_progress("done", outcome)
            finally:
                self._queue.task_done()

    async def _visit(self, fetcher: Fetcher, robots: Robots, url: str, depth: int) -> PageOutcome:
        if not robots.allows(url):
            return PageOutcome(url, "skipped", reason="disallowed by robots.txt")
        known = self.known.get(url)
        result = await fetcher.fetch(
            url,
            etag=known.etag if known else "",
            last_modified=known.last_modified if known else "",
        )
        self._count(result)
        if result.gone:
            return PageOutcome(url, "gone", reason=f"HTTP {result.status}")
        if result.error:
            return PageOutcome(
                url, "failed", reason=result.error, transport_failure=result.transport_failure
            )
        if result.not_modified and known is not None:
            self._follow(known.links, depth)
            return self._unchanged(known)
        if result.status != 200:
            return PageOutcome(url, "failed", reason=result.error or f"HTTP {result.status}")
        if result.final_url != url:
            # A redirect: the page is known under its final address (crawled once there).
            self._enqueue(result.final_url, depth)
            return PageOutcome(url, "skipped", reason=f"redirects to {result.final_url}")
        body_hash = hashlib.sha256(result.body).hexdigest()
        if known is not None and known.body_hash == body_hash:
            self._follow(known.links, depth)
            unchanged = self._unchanged(known, etag=result.etag, last_modified=result.last_modified)
            unchanged.fetched = True  # read, but the same bytes: not extracted
            return unchanged
        return await self._extract(url, result, body_hash, depth)

    async def _extract(
        self, url: str, result: FetchResult, body_hash: str, depth: int
    ) -> PageOutcome:
        outcome = PageOutcome(
            url,
            "changed",
            etag=result.etag,
            last_modified=result.last_modified,
            body_hash=body_hash,
            fetched=True,
        )
        try:
            # Off the event loop: a big page must not stall the other requests' timeouts.
            page = await asyncio.to_thread(
                extract_page, result.final_url, result.body, result.content_type
            )
        except (UnsupportedContent, LoaderError) as exc:
            outcome.status, outcome.reason = "failed", str(exc)
            return outcome
        outcome.links = tuple(link for link in page.links if same_site(link, self.start_url))
        self._follow(outcome.links, depth)
        if page.canonical and page.canonical != url and same_site(page.canonical, url):
            self._enqueue(page.canonical, depth)
            outcome.status, outcome.reason = "skipped", f"canonical is {page.canonical}"
            return outcome
        if page.document is None:
            outcome.status, outcome.reason = "skipped", ", ".join(page.notes)
            return outcome
        outcome.document = page.document
        return outcome

    def _follow(self, links: tuple[str, ...], depth: int) -> None:
        for link in links:
            self._enqueue(link, depth + 1)

    @staticmethod
    def _unchanged(known: KnownPage, *, etag: str = "", last_modified: str = "") -> PageOutcome:
        return PageOutcome(
            known.url,
            "unchanged",
            etag=etag or known.etag,
            last_modified=last_modified or known.last_modified,
            body_hash=known.body_hash,
            links=known.links,
        )

    def _count(self, result: FetchResult) -> None:
        self._requests += 1
        if not result.transport_failure:
            self._consecutive_failures = 0
            return
        self._transport_failures += 1
        self._consecutive_failures += 1
        if self._consecutive_failures >= ABORT_AFTER_CONSECUTIVE_FAILURES:
            self._abort = (
                f"the site stopped answering ({self._consecutive_failures} requests in a row "
                f"failed; last: {result.error})"
            )
