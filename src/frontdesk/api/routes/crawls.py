"""`/v1/admin/sites/{site}/crawls`: start a sync of the site's web sources, read its status."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, Query, Request
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import AdminSiteDep, RuntimeDep
from frontdesk.api.errors import ApiError
from frontdesk.api.ingestion import IngestionUnavailable, open_knowledge_base
from frontdesk.api.routes.admin_common import ADMIN_ERRORS, admin_router
from frontdesk.api.schemas import CrawlRequest, CrawlRun, CrawlRuns, error_responses
from frontdesk.runtime import Runtime

router = admin_router()


def web_sync(request: Request, runtime: Runtime) -> Any:
    """The app's `WebSync` (one per process; the console's re-sync uses it too)."""
    web = getattr(request.app.state, "web_sync", None)
    if web is None:
        knowledge = getattr(request.app.state, "knowledge", None)
        try:
            knowledge = knowledge or open_knowledge_base(runtime)
        except IngestionUnavailable as exc:
            raise ApiError(501, "ingestion_unavailable", str(exc)) from exc
        from frontdesk.knowledge.web.service import api_web_sync

        web = api_web_sync(runtime, knowledge)
        request.app.state.web_sync = web
    return web


@router.post(
    "/{site}/crawls",
    summary="Start a sync of the site's web sources (runs in a background process)",
    response_model=CrawlRuns,
    status_code=202,
    responses={
        **ADMIN_ERRORS,
        **error_responses(
            {
                409: "A sync of the site is running.",
                422: "No web sources, or a bad URL.",
                503: "Syncs cannot start now (Redis unreachable); retry after "
                "`Retry-After` seconds.",
            }
        ),
    },
)
async def start_crawl(
    request: Request,
    site: AdminSiteDep,
    runtime: RuntimeDep,
    body: Annotated[CrawlRequest | None, Body()] = None,
) -> CrawlRuns:
    from pydantic import ValidationError

    from frontdesk.knowledge.web.service import SYNC_RETRY_AFTER_S, SyncBusy, SyncUnavailable
    from frontdesk.sites.knowledge import WebSource

    web = web_sync(request, runtime)
    site_id = site.config.id
    if body is not None and body.url:
        # Never `allow_private_network` from the API: that is for the site file to say.
        try:
            sources = [WebSource.model_validate({"url": body.url})]
        except ValidationError as exc:
            raise ApiError(422, "invalid_request", f"url: {exc.errors()[0]['msg']}") from exc
    else:
        sources = await run_in_threadpool(web.sources, site_id)
    if not sources:
        raise ApiError(422, "no_web_sources", f"Site {site_id!r} has no web sources; send a url.")
    try:
        run_ids = await web.start(site_id, sources)
    except SyncBusy as exc:
        raise ApiError(409, "sync_running", str(exc)) from exc
    except SyncUnavailable as exc:
        retry = {"Retry-After": str(SYNC_RETRY_AFTER_S)}
        raise ApiError(503, "sync_unavailable", str(exc), headers=retry) from exc
    runs = [await run_in_threadpool(web.store.run, site_id, run_id) for run_id in run_ids]
    return CrawlRuns(site_id=site_id, runs=[CrawlRun(**run.as_dict()) for run in runs if run])


@router.get(
    "/{site}/crawls",
    summary="Recent syncs of the site's web sources, newest first",
    response_model=CrawlRuns,
    responses=ADMIN_ERRORS,
)
async def list_crawls(
    request: Request,
    site: AdminSiteDep,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> CrawlRuns:
    web = web_sync(request, runtime)
    runs = await run_in_threadpool(web.store.runs, site.config.id, limit=limit)
    return CrawlRuns(site_id=site.config.id, runs=[CrawlRun(**run.as_dict()) for run in runs])


@router.get(
    "/{site}/crawls/{run_id}",
    summary="One sync: its status and summary",
    response_model=CrawlRun,
    responses=ADMIN_ERRORS,
)
async def get_crawl(
    request: Request, site: AdminSiteDep, runtime: RuntimeDep, run_id: str
) -> CrawlRun:
    web = web_sync(request, runtime)
    run = await run_in_threadpool(web.store.run, site.config.id, run_id)
    if run is None:
        raise ApiError(404, "not_found", f"Site {site.config.id!r} has no sync {run_id!r}.")
    return CrawlRun(**run.as_dict())
