"""`WebSync`: what the worker and the admin API use to sync a deployment's web sources.

web = WebSync(engine, sites, redis_url=settings.redis_url)
run_ids = await web.start(site_id, sources)   # admin API: in the background, and with
                                              # `processes=` in a process of its own
await web.run_schedules(stop)                 # `frontdesk serve` (in processes) or worker
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.web import web_sources
from frontdesk.knowledge.web.runner import CrawlJob, CrawlProcesses
from frontdesk.knowledge.web.schedule import lease_name, run_due
from frontdesk.knowledge.web.state import CrawlStore
from frontdesk.knowledge.web.sync import CrawlSummary, site_sync, source_key
from frontdesk.sites.knowledge import WebSource
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.jobs import LEASE_TTL_S, Lease, open_lease, run_held
from frontdesk.store.trust import queue_after_sync

if TYPE_CHECKING:
    from frontdesk.runtime import Runtime

log = logging.getLogger(__name__)
SCHEDULE_TICK_S = 30.0


class SyncBusy(RuntimeError):
    """A sync of this source is already running (here or on another replica)."""


class SyncUnavailable(RuntimeError):
    """The lease that allows one sync of a site at a time cannot be taken now (Redis or
    the store unreachable): nothing was started."""


SYNC_RETRY_AFTER_S = 30


class WebSync:
    def __init__(
        self,
        engine: Engine,
        sites: Mapping[str, LoadedSite],
        *,
        knowledge: KnowledgeBase | None = None,
        redis_url: str = "",
        redis_prefix: str = "frontdesk:",
        processes: CrawlProcesses | None = None,
        log_level: str = "INFO",
        log_json: bool = False,
        lease_ttl_s: float = LEASE_TTL_S,
    ) -> None:
        """`processes`: run syncs started with `start` in their own processes (the API);
        None runs them here (the CLI and `frontdesk worker`, processes of their own)."""
        self.engine = engine
        self.processes = processes
        self.log_level, self.log_json = log_level, log_json  # of the sync processes
        self.sites = sites
        self.store = CrawlStore(engine)
        self.knowledge = knowledge or KnowledgeBase(engine)
        self.lease: Lease = open_lease(
            engine, redis_url=redis_url, redis_prefix=redis_prefix, ttl_s=lease_ttl_s
        )
        self._tasks: set[asyncio.Task[None]] = set()

    def sources(self, site_id: str) -> list[WebSource]:
        site = self.sites[site_id]
        return web_sources(site_id, site.config.knowledge, self.store)

    async def sync(self, site_id: str, source: WebSource, run_id: str) -> CrawlSummary:
        site = self.sites[site_id].config
        syncer = site_sync(self.engine, self.knowledge, site)
        summary = await syncer.sync(site_id, source, run_id=run_id)
        if summary.changed or summary.removed:  # new content: its trust report runs again
            await asyncio.to_thread(queue_after_sync, self.engine, site_id)
        return summary

    async def start(self, site_id: str, sources: list[WebSource]) -> list[str]:
        """Start a sync of the sources in the background (one after the other); the run
        ids to poll. Raises `SyncBusy` when a sync of the site is already running, and
        `SyncUnavailable` when the lease cannot be reached (Redis down)."""
        name = lease_name(site_id)
        try:
            acquired = await self.lease.acquire(name)
        except Exception as exc:  # Redis (or the store) down: refuse now, not a 500
            log.warning("crawl_lease_unavailable site=%s: %s", site_id, exc)
            raise SyncUnavailable(
                f"a sync of site {site_id!r} cannot start now: the lease that allows one "
                f"sync per site at a time is unreachable ({type(exc).__name__}); "
                f"try again in {SYNC_RETRY_AFTER_S} s"
            ) from exc
        if not acquired:
            raise SyncBusy(f"a sync of site {site_id!r} is already running; try again later")
        run_ids = []
        try:
            for source in sources:
                # Holding the lease, any run still marked running lost its process.
                await asyncio.to_thread(self.store.interrupt_runs, site_id, source_key(source))
                run_id = await asyncio.to_thread(
                    self.store.start_run, site_id, source_key(source), "api"
                )
                run_ids.append(run_id)
        except BaseException:
            await self.lease.release(name)
            raise
        task = asyncio.create_task(
            self._background(site_id, list(zip(sources, run_ids, strict=True)), name)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run_ids

    async def _background(self, site_id: str, runs: list[tuple[WebSource, str]], name: str) -> None:
        async def sync_all() -> None:
            for source, run_id in runs:
                try:
                    await self._run_sync(site_id, source, run_id)
                except Exception as exc:  # recorded on the run by SiteSync
                    log.warning("crawl_failed site=%s run=%s: %s", site_id, run_id, exc)

        await run_held(self.lease, name, sync_all())

    async def _run_sync(self, site_id: str, source: WebSource, run_id: str) -> None:
        if self.processes is None:
            await self.sync(site_id, source, run_id)
        else:
            await self._sync_in_process(site_id, source, run_id)

    async def _sync_in_process(self, site_id: str, source: WebSource, run_id: str) -> None:
        assert self.processes is not None
        job = CrawlJob(
            database_url=self.engine.url.render_as_string(hide_password=False),
            site=self.sites[site_id].config,
            source=source,
            run_id=run_id,
            log_level=self.log_level,
            log_json=self.log_json,
        )
        exit_code = await self.processes.run(job)
        run = await asyncio.to_thread(self.store.run, site_id, run_id)
        if run is not None and run.status == "running":  # the process died mid-sync
            error = f"the sync process exited with code {exit_code} before it finished"
            await asyncio.to_thread(
                self.store.finish_run, run_id, status="failed", summary={}, error=error
            )
            log.warning("crawl_process_died site=%s run=%s code=%s", site_id, run_id, exit_code)

    async def run_schedules(self, stop: asyncio.Event, tick_s: float = SCHEDULE_TICK_S) -> None:
        """Until `stop`: every tick, sync the sources whose schedule is due."""
        while not stop.is_set():
            due = [
                (site_id, source)
                for site_id in self.sites
                for source in self.sources(site_id)
                if source.schedule
            ]
            try:
                # In `frontdesk serve` (with `processes`) each sync runs in a process of
                # its own, like one started from the API, so visitors are not slowed.
                await run_due(self.store, self.lease, due, self._run_sync)
            except Exception:  # the store or Redis hiccuped: try again next tick
                log.exception("crawl_schedules_failed")
            try:
                await asyncio.wait_for(stop.wait(), timeout=tick_s)
            except TimeoutError:
                continue

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def api_web_sync(runtime: Runtime, knowledge: KnowledgeBase) -> WebSync:
    """The `WebSync` of an API process: syncs (started over the API, the console or a
    schedule) run in processes of their own, FRONTDESK_CRAWL_PROCESSES at once, so
    crawling and embedding (CPU work) do not slow visitors' turns."""
    settings = runtime.settings
    limit = settings.crawl_processes
    return WebSync(
        runtime.engine,
        runtime.sites,
        knowledge=knowledge,
        redis_url=settings.redis_url,
        redis_prefix=settings.redis_prefix,
        processes=CrawlProcesses(limit) if limit else None,
        log_level=settings.log_level,
        log_json=settings.log_json,
        lease_ttl_s=settings.job_lease_s,
    )
