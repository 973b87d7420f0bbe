"""The knowledge page's web sources: each source's sync state (its last crawl run and the
pages the crawler knows) and a re-sync that starts a crawl through the admin API's own
`WebSync` (`api/routes/crawls.py`), so both run, lease and record a sync the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleSite
from frontdesk.api.deps import ConsoleSiteDep
from frontdesk.api.errors import ApiError
from frontdesk.console.templating import page_messages, render
from frontdesk.knowledge.web import CrawlStore, web_sources
from frontdesk.knowledge.web.state import CrawlRun
from frontdesk.knowledge.web.sync import source_key
from frontdesk.runtime import Runtime

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

# The last run's counts, in the order the page shows them (`failed` is a dict of pages).
RUN_COUNTS = ("found", "fetched", "changed", "removed", "failed")


@dataclass(frozen=True)
class WebSourceState:
    url: str  # the source's key: its normalised start URL (what crawl rows record)
    schedule: str | None
    pages: int
    last_run: CrawlRun | None

    @property
    def running(self) -> bool:
        return self.last_run is not None and self.last_run.status == "running"

    def counts(self) -> dict[str, int]:
        summary: dict[str, Any] = self.last_run.summary if self.last_run else {}
        found: dict[str, int] = {}
        for key in RUN_COUNTS:
            value = summary.get(key)
            if value is not None:
                found[key] = len(value) if isinstance(value, dict | list) else int(value)
        return found


def source_states(runtime: Runtime, site: ConsoleSite) -> list[WebSourceState]:
    """The site file's web sources and those added with `kb crawl SITE URL`, each with
    its newest run and page count (two indexed queries per source)."""
    store = CrawlStore(runtime.engine)
    states = []
    for source in web_sources(site.id, site.site.config.knowledge, store):
        key = source_key(source)
        runs = store.runs(site.id, source_url=key, limit=1)
        states.append(
            WebSourceState(
                url=key,
                schedule=source.schedule,
                pages=store.page_count(site.id, key),
                last_run=runs[0] if runs else None,
            )
        )
    return states


async def start_resync(request: Request, site: ConsoleSite, url: str) -> tuple[str, str, int]:
    """Start a crawl of the site's source `url` in the background, as `POST
    /v1/admin/sites/{site}/crawls` does; (notice, error, HTTP status) for the page."""
    from frontdesk.api.routes.crawls import web_sync
    from frontdesk.knowledge.web.service import SyncBusy, SyncUnavailable

    runtime: Runtime = request.app.state.runtime
    t = page_messages(request, site.user)
    try:
        web = web_sync(request, runtime)
    except ApiError as exc:
        return "", str(exc.detail), exc.status_code
    sources = await run_in_threadpool(web.sources, site.id)
    chosen = [s for s in sources if source_key(s) == url]
    if not chosen:
        return "", t.gettext("The site has no web source %(source)s.", source=repr(url)), 404
    try:
        await web.start(site.id, chosen)
    except SyncBusy as exc:
        return "", t.gettext("Not started: %(reason)s.", reason=exc), 409
    except SyncUnavailable as exc:
        return "", t.gettext("Not started: %(reason)s.", reason=exc), 503
    return t.gettext("Sync of %(source)s started; the table below follows it.", source=url), "", 202


@router.get("/knowledge/web")
async def web_sources_fragment(request: Request, site: ConsoleSiteDep) -> Response:
    """The web sources table alone (htmx polls it while a sync runs)."""
    states = await run_in_threadpool(source_states, request.app.state.runtime, site)
    return render(request, "knowledge_web.html", {"web": states}, site=site)
