"""Syncs started by the API run in their own process, never in the API's.

A crawl parses HTML and sitemaps and embeds every changed passage: CPU work that, in
the API process, holds its event loop and its GIL and slows every visitor's turn. Here
each sync is a spawned process at the lowest CPU priority (Linux `SCHED_IDLE`, else
`nice` 19: it runs on the CPU time visitors leave) that opens the store itself, runs
`SiteSync` and exits, giving its memory back. At most `limit` of
them run at once per API process; more wait for a free slot.

    processes = CrawlProcesses(limit=1)
    exit_code = await processes.run(CrawlJob(database_url, site, source, run_id))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from dataclasses import dataclass
from pathlib import Path

from frontdesk.sites.knowledge import WebSource
from frontdesk.sites.schema import SiteConfig

log = logging.getLogger(__name__)
CRAWL_NICENESS = 19
STOP_GRACE_S = 5.0


@dataclass(frozen=True)
class CrawlJob:
    """Everything a sync process needs (picklable: it crosses into the new process)."""

    database_url: str
    site: SiteConfig
    source: WebSource
    run_id: str
    log_level: str = "INFO"
    log_json: bool = False


def run_crawl_job(job: CrawlJob) -> None:
    """The sync process's entry point: one sync, recorded on its run, then exit."""
    from frontdesk.observability.logging import configure_logging

    lower_priority()
    configure_logging(job.log_level, job.log_json)
    asyncio.run(_sync(job))


def lower_priority() -> None:
    """Every thread of this process, and those it starts later, at the lowest CPU
    priority. Under `SCHED_IDLE` any ordinary task that wakes up takes the CPU at once: a
    turn that goes back and forth with PostgreSQL many times waits for no crawl at each
    switch, which `nice` alone does not promise.

    On Linux both the policy and the nice value belong to a thread, and a new thread
    inherits them from the thread that starts it. Threads that exist already keep their
    own: numpy's BLAS starts its workers when it is imported, which a spawned process
    does before its target runs (unpickling the job imports this package). So each
    running thread is lowered by its id."""
    _lowest_autogroup()
    for thread_id in _thread_ids():
        with contextlib.suppress(OSError):  # not permitted, or the thread has ended
            os.setpriority(os.PRIO_PROCESS, thread_id, CRAWL_NICENESS)
        if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
            with contextlib.suppress(OSError):
                os.sched_setscheduler(thread_id, os.SCHED_IDLE, os.sched_param(0))


def _lowest_autogroup() -> None:
    """A scheduling group of this process's own, at the lowest weight (Linux autogroups).

    With autogroups on (`kernel.sched_autogroup_enabled`, the default of many
    distributions for processes outside CPU cgroups) the kernel first shares the CPU
    between groups, one per session, and only then between a group's tasks by their
    policy. In the API's group a sync yields to the API, but against another group, such
    as the PostgreSQL backends answering the turns' queries, the whole group competes
    as one, the sync's half included. A new session gets a new group."""
    autogroup = Path("/proc/self/autogroup")
    if not autogroup.exists():
        return
    with contextlib.suppress(OSError):  # already a session leader, or not permitted
        os.setsid()
        autogroup.write_text(str(CRAWL_NICENESS))


def _thread_ids() -> list[int]:
    """Kernel ids of this process's threads (Linux); elsewhere 0, which stands for the
    calling process (where a priority belongs to the process, not to a thread)."""
    try:
        return [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:
        return [0]


async def _sync(job: CrawlJob) -> None:
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.web.crawl import CrawlAborted
    from frontdesk.knowledge.web.sync import site_sync
    from frontdesk.store.db import make_engine
    from frontdesk.store.trust import queue_after_sync

    engine = make_engine(job.database_url)
    try:
        knowledge = KnowledgeBase(engine)
        syncer = site_sync(engine, knowledge, job.site)
        try:
            summary = await syncer.sync(job.site.id, job.source, run_id=job.run_id)
        except CrawlAborted:
            return  # recorded on the run by SiteSync
        if summary.changed or summary.removed:  # new content: its trust report runs again
            queue_after_sync(engine, job.site.id)
    finally:
        engine.dispose()


class CrawlProcesses:
    """Runs `CrawlJob`s in spawned processes, at most `limit` at once."""

    def __init__(self, limit: int = 1) -> None:
        self.limit = limit
        self._slots = asyncio.Semaphore(limit)
        # spawn, not fork: a fork of a process with threads and open connections is unsafe.
        self._context = multiprocessing.get_context("spawn")

    async def run(self, job: CrawlJob) -> int:
        """Run the job; its process's exit code (0: the sync finished, failed or not)."""
        async with self._slots:
            process = self._context.Process(
                target=run_crawl_job, args=(job,), name=f"frontdesk-crawl-{job.run_id}"
            )
            process.daemon = True  # never outlives the API process
            process.start()
            ended = asyncio.Event()
            loop = asyncio.get_running_loop()
            # The sentinel becomes readable when the process ends: no polling, no thread.
            loop.add_reader(process.sentinel, ended.set)
            try:
                await ended.wait()
            except asyncio.CancelledError:  # the API is stopping
                await asyncio.to_thread(_stop, process)
                raise
            finally:
                loop.remove_reader(process.sentinel)
            process.join()
            return process.exitcode if process.exitcode is not None else -1


def _stop(process: multiprocessing.process.BaseProcess) -> None:
    process.terminate()
    process.join(STOP_GRACE_S)
    if process.is_alive():
        process.kill()
        process.join()
