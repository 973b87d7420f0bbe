"""Where evaluation turns run: a scratch copy of a store that holds the site's knowledge.

Evaluations must not write conversations, leads or handoff notifications into the
store a site is served from. So the site's configured knowledge sources are ingested
(incrementally: unchanged files are skipped) into a cache store under
`<data_dir>/eval/cache`, and every run works on a throwaway copy of that store. The
first run pays for the embeddings; later runs only check the files for changes.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from sqlalchemy import Engine

from frontdesk.knowledge.models import Document, RetrievalResult
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.settings import Settings
from frontdesk.sites.registry import LoadedSite
from frontdesk.sites.schema import SiteConfig

DB_NAME = "frontdesk.db"


class DrainableKnowledgeBase(KnowledgeBase):
    """A knowledge base whose searches can be waited for. A turn that takes a fast path
    cancels its background retrieval, but the search thread runs on; evaluations drain
    those threads between items (fair latencies) and before deleting the scratch store."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="eval-search")
        self._running: set[Future[RetrievalResult]] = set()

    async def asearch(
        self, site: SiteConfig | SiteKnowledge, query: str, *, top_k: int | None = None
    ) -> RetrievalResult:
        future = self._pool.submit(self.search, site, query, top_k=top_k)
        self._running.add(future)
        future.add_done_callback(self._running.discard)
        return await asyncio.wrap_future(future)

    async def drain(self) -> None:
        running = list(self._running)
        if running:
            await asyncio.to_thread(wait, running)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


@dataclass
class Workspace:
    """An opened evaluation workspace: the chat service and the site under test."""

    service: Any  # frontdesk.conversation.service.ChatService
    site: LoadedSite
    settings: Settings


def eval_cache_dir(settings: Settings) -> Path:
    return settings.data_dir / "eval" / "cache"


def sync_knowledge(
    settings: Settings,
    site_id: str,
    console: Console,
    documents: Sequence[Document] | None = None,
) -> Path:
    """Ingest the site's configured sources (or exactly `documents`, for sites built from
    a dataset) into the eval cache store; return its folder."""
    from frontdesk.runtime import build_runtime

    cache = eval_cache_dir(settings)
    runtime = build_runtime(scratch_settings(settings, cache))
    try:
        site = runtime.site(site_id)
        knowledge = KnowledgeBase(runtime.engine, console=console)
        if documents is not None:
            _sync_documents(knowledge, site.config, documents, console)
        for source in site.config.knowledge.file_sources:
            path = (site.base_dir / source).resolve()
            report = knowledge.ingest_path(site.config, path, progress=False)
            if report.ingested or report.updated or report.removed:
                console.print(f"[dim]eval knowledge base: {report.summary()}[/]")
            for name, reason in report.failed.items():
                console.print(f"[yellow]![/] {name}: {reason}")
    finally:
        runtime.close()
    return cache


def _sync_documents(
    knowledge: KnowledgeBase, site: SiteConfig, documents: Sequence[Document], console: Console
) -> None:
    """The site's index holds exactly `documents` (a sample today, all pages tomorrow)."""
    wanted = {d.doc_id for d in documents}
    for stored in knowledge.list_documents(site):
        if stored.doc_id not in wanted:
            knowledge.remove_document(site, stored.doc_id)
    report = knowledge.ingest_documents(site, list(documents), progress=True)
    if report.ingested or report.updated:
        console.print(f"[dim]eval knowledge base {site.id}: {report.summary()}[/]")


def scratch_settings(settings: Settings, folder: Path) -> Settings:
    """The process settings, but with a SQLite store in `folder` (never the served store)."""
    return settings.model_copy(
        update={"data_dir": folder, "database_url": f"sqlite:///{folder / DB_NAME}"}
    )


def _copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy even if a write-ahead log is still open."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


class UnknownSiteError(LookupError):
    """The settings name no such site."""


@asynccontextmanager
async def scratch_workspace(
    settings: Settings,
    site_id: str,
    *,
    prefix: str,
    seed_store: Path | None = None,
    knowledge_engine: Engine | None = None,
) -> AsyncIterator[Workspace]:
    """A ChatService whose turns are written to a throwaway SQLite store (a copy of
    `seed_store`, or empty), deleted afterwards. Trained intent models are shared with
    `settings`; searches read `knowledge_engine` (read only) or, without one, the scratch
    store itself."""
    from frontdesk.conversation.service import ChatService
    from frontdesk.runtime import build_runtime

    run_dir = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        if seed_store is not None:
            _copy_sqlite(seed_store, run_dir / DB_NAME)
        models = settings.data_dir.resolve() / "models"
        models.mkdir(parents=True, exist_ok=True)
        (run_dir / "models").symlink_to(models, target_is_directory=True)
        runtime = build_runtime(scratch_settings(settings, run_dir))
        if site_id not in runtime.sites:
            runtime.close()
            raise UnknownSiteError(f"unknown site {site_id!r} (known: {', '.join(runtime.sites)})")
        knowledge = DrainableKnowledgeBase(knowledge_engine or runtime.engine)
        service = ChatService(runtime, knowledge=knowledge)
        try:
            yield Workspace(service=service, site=runtime.site(site_id), settings=runtime.settings)
        finally:
            await knowledge.drain()
            knowledge.close()
            await service.close()
            runtime.close()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


@asynccontextmanager
async def open_workspace(
    settings: Settings,
    site_id: str,
    console: Console | None = None,
    documents: Sequence[Document] | None = None,
) -> AsyncIterator[Workspace]:
    """A ChatService on a scratch copy of the eval cache store (deleted afterwards)."""
    console = console or Console(stderr=True)
    cache = await asyncio.to_thread(sync_knowledge, settings, site_id, console, documents)
    async with scratch_workspace(
        settings, site_id, prefix="frontdesk-eval-", seed_store=cache / DB_NAME
    ) as space:
        yield space
