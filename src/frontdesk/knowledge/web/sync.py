"""Sync a site's web sources into its knowledge base: crawl (stage), then apply.

Only a finished crawl is applied: changed pages are ingested (unchanged chunks reuse
their cached vectors), pages gone on two syncs in a row are removed, and the crawl
state is written last. A crawl that fails halfway raises before anything is written,
so the previous index keeps serving.

A page whose document an older chunker cut is read again in full (no conditional
request, its body hash forgotten) even when it has not changed: the newer chunker may
withhold what the older one let through (planted instructions, hidden text).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx
from sqlalchemy import Engine

from frontdesk.knowledge.ingest.ingestor import Ingestor, chunked_by_current_chunker
from frontdesk.knowledge.models import IngestReport
from frontdesk.knowledge.web.crawl import (
    CrawlAborted,
    Crawler,
    CrawlResult,
    KnownPage,
    PageOutcome,
    ProgressHook,
)
from frontdesk.knowledge.web.state import CrawlStore, PageRow
from frontdesk.knowledge.web.urls import normalise_url
from frontdesk.sites.knowledge import WebSource

if TYPE_CHECKING:
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.schema import SiteConfig

log = logging.getLogger(__name__)
GONE_AFTER_SYNCS = 2  # a page missing on this many syncs in a row is removed


@dataclass
class CrawlSummary:
    """What one sync did, in the words the CLI and the admin API print."""

    source_url: str
    found: int = 0
    fetched: int = 0
    unchanged: int = 0
    changed: int = 0
    removed: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    chunks_embedded: int = 0
    seconds: float = 0.0
    error: str = ""
    limits_reached: list[str] = field(default_factory=list)  # why the crawl was cut short

    def as_dict(self) -> dict[str, Any]:
        return {
            "source_url": self.source_url,
            "found": self.found,
            "fetched": self.fetched,
            "unchanged": self.unchanged,
            "changed": self.changed,
            "removed": self.removed,
            "skipped": self.skipped,
            "failed": self.failed,
            "chunks_embedded": self.chunks_embedded,
            "seconds": round(self.seconds, 2),
            "error": self.error,
            "limits_reached": self.limits_reached,
        }


def source_key(source: WebSource) -> str:
    return normalise_url(source.start_url) or source.start_url


def site_sync(
    engine: Engine, kb: KnowledgeBase, site: SiteConfig | SiteKnowledge, *, progress: bool = False
) -> SiteSync:
    """A site's sync as the product runs it: the pages written into the index that
    answers (after a change of embedding model, `site@N` with that generation's model),
    then an English site's second index brought level in the same thread, so the crawl
    (not the next visitor's search) pays for it."""
    from frontdesk.knowledge.site import SiteKnowledge

    knowledge = SiteKnowledge.of(site)
    # The generation that answers, registered on the first write as an ingest does. A
    # re-embed running meanwhile copies what this crawl changed before it switches.
    key, serving = kb.write_targets(knowledge)[-1]
    return SiteSync(
        engine,
        kb.ingestor(serving, progress=progress),
        index_key=key,
        after_apply=lambda: kb.companions.catch_up(knowledge),
    )


class SiteSync:
    """Crawls one web source of one site and applies the result to its index (the site
    id's, or `index_key`); `after_apply` runs in the same thread once a finished crawl
    is applied."""

    def __init__(
        self,
        engine: Engine,
        ingestor: Ingestor,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        index_key: str | None = None,
        after_apply: Callable[[], None] | None = None,
    ) -> None:
        self.store = CrawlStore(engine)
        self.ingestor = ingestor
        self.transport = transport
        self.index_key = index_key
        self.after_apply = after_apply

    async def sync(
        self,
        site_id: str,
        source: WebSource,
        *,
        trigger: str = "cli",
        on_progress: ProgressHook | None = None,
        run_id: str | None = None,
    ) -> CrawlSummary:
        """Crawl and apply; a failed crawl is recorded and re-raised as `CrawlAborted`.
        `run_id`: a run already started (`CrawlStore.start_run`), e.g. by the admin API."""
        key = source_key(source)
        run_id = run_id or self.store.start_run(site_id, key, trigger)
        started = time.perf_counter()
        summary = CrawlSummary(key)
        try:
            known = self._reread(site_id, self.store.known_pages(site_id, key))
            crawler = Crawler(source, known, on_progress=on_progress, transport=self.transport)
            result = await crawler.run()
            await asyncio.to_thread(self._apply, site_id, key, known, result, summary)
        except Exception as exc:
            summary.seconds = time.perf_counter() - started
            summary.error = str(exc) or type(exc).__name__
            self.store.finish_run(
                run_id, status="failed", summary=summary.as_dict(), error=summary.error
            )
            log.warning("crawl_failed site=%s source=%s error=%s", site_id, key, summary.error)
            if isinstance(exc, CrawlAborted):
                raise
            raise CrawlAborted(summary.error) from exc
        summary.seconds = time.perf_counter() - started
        self.store.finish_run(run_id, status="succeeded", summary=summary.as_dict())
        log.info(
            "crawl_done site=%s source=%s found=%d changed=%d removed=%d failed=%d",
            site_id,
            key,
            summary.found,
            summary.changed,
            summary.removed,
            len(summary.failed),
        )
        return summary

    def _reread(self, site_id: str, known: dict[str, KnownPage]) -> dict[str, KnownPage]:
        """`known`, less what lets the crawler skip a page (ETag, Last-Modified, body
        hash) for pages whose document an older chunker cut, or that the index does not
        hold (written under another key, e.g. before a change of embedding model)."""
        stored = {doc.doc_id: doc for doc in self.ingestor.index.list_documents(self._key(site_id))}
        reread = {
            url: replace(page, etag="", last_modified="", body_hash="")
            for url, page in known.items()
            if page.doc_id
            and (
                page.doc_id not in stored
                or not chunked_by_current_chunker(stored[page.doc_id].fingerprint)
            )
        }
        if reread:
            log.info(
                "crawl_reread site=%s pages=%d (cut by an older chunker or not in the index)",
                site_id,
                len(reread),
            )
        return known | reread

    def _key(self, site_id: str) -> str:
        return self.index_key or site_id

    def _apply(
        self,
        site_id: str,
        source_url: str,
        known: dict[str, KnownPage],
        result: CrawlResult,
        summary: CrawlSummary,
    ) -> None:
        summary.found = len(result.pages)
        summary.limits_reached = list(result.limits_reached)
        rows: list[PageRow] = []
        removed_urls: list[str] = []
        documents = []
        for url, outcome in result.pages.items():
            summary.fetched += outcome.fetched
            previous = known.get(url)
            if outcome.status == "changed" and outcome.document is not None:
                documents.append(outcome.document)
            elif outcome.status == "unchanged":
                summary.unchanged += 1
            elif outcome.status == "skipped":
                summary.skipped[url] = outcome.reason
            elif outcome.status in ("failed", "gone"):
                summary.failed[url] = outcome.reason
            row = self._row(outcome, previous)
            if row is None:
                removed_urls.append(url)
            else:
                rows.append(row)
        for url, previous in known.items():
            if url in result.pages:
                continue
            missed = previous.missed + (1 if result.complete else 0)
            if missed >= GONE_AFTER_SYNCS:
                removed_urls.append(url)
            else:
                rows.append(
                    PageRow(
                        url,
                        previous.doc_id,
                        previous.etag,
                        previous.last_modified,
                        previous.body_hash,
                        previous.links,
                        "missing",
                        missed,
                        "not in the sitemap or linked any more",
                    )
                )
        report = IngestReport()
        if documents:
            # A sync is background work: visitors' turns write while it runs.
            self.ingestor.ingest_documents(self._key(site_id), documents, report, paced=True)
            for doc_id, reason in report.failed.items():
                summary.failed[doc_id] = reason
        summary.changed = len(report.ingested) + len(report.updated)
        summary.unchanged += len(report.skipped)
        summary.chunks_embedded = report.chunks_embedded
        keep = {row.doc_id for row in rows if row.doc_id}
        keep |= self.store.doc_ids_elsewhere(site_id, source_url)
        dropped = sorted(
            {page.doc_id for page in known.values() if page.doc_id and page.doc_id not in keep}
        )
        if dropped:
            self.ingestor.index.remove_documents(self._key(site_id), dropped)
        summary.removed = len(dropped)
        self.ingestor.embed_page_titles(self._key(site_id))  # unchanged pages are not re-ingested
        self.store.save_pages(site_id, source_url, rows, removed_urls)
        if self.after_apply is not None:
            self.after_apply()

    @staticmethod
    def _row(outcome: PageOutcome, previous: KnownPage | None) -> PageRow | None:
        """The page's next state; None when it is removed (gone on two syncs)."""
        if outcome.status == "changed":
            doc_id = outcome.document.doc_id if outcome.document is not None else None
            return _read_now(outcome, doc_id)
        if outcome.status == "unchanged":
            return _read_now(outcome, previous.doc_id if previous else None)
        if outcome.status == "skipped":
            return _read_now(outcome, None, "skipped", outcome.reason)
        if outcome.status == "gone":
            missed = (previous.missed if previous else 0) + 1
            if previous is None or missed >= GONE_AFTER_SYNCS:
                return None
            return _as_before(outcome, previous, "gone", missed)
        # failed: a page that cannot be read this time keeps what it had.
        if previous is None:
            return PageRow(outcome.url, None, "", "", "", (), "failed", 0, outcome.reason)
        return _as_before(outcome, previous, "failed", previous.missed)


def _read_now(
    outcome: PageOutcome, doc_id: str | None, status: str = "ok", error: str = ""
) -> PageRow:
    """The page as this sync read it."""
    return PageRow(
        outcome.url,
        doc_id,
        outcome.etag,
        outcome.last_modified,
        outcome.body_hash,
        outcome.links,
        status,
        0,
        error,
    )


def _as_before(outcome: PageOutcome, previous: KnownPage, status: str, missed: int) -> PageRow:
    """The page as the last sync that read it left it, with this sync's status and reason."""
    return PageRow(
        outcome.url,
        previous.doc_id,
        previous.etag,
        previous.last_modified,
        previous.body_hash,
        previous.links,
        status,
        missed,
        outcome.reason,
    )
