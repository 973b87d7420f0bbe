"""The widget's own routes: `GET /widget.js` (the `<frontdesk-chat>` web component) and
`GET /v1/widget/config` (what it shows first and the limits it enforces, per site)."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import RuntimeDep
from frontdesk.api.ingestion import open_knowledge_base
from frontdesk.api.schemas import error_responses
from frontdesk.api.security import authorize_site
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite
from frontdesk.widget import widget_script
from frontdesk.widget.first_impression import widget_settings

router = APIRouter(tags=["widget"])

TITLES_TTL_S = 300.0


@router.get("/widget.js", summary="The chat widget script", response_class=Response)
def widget_js() -> Response:
    return Response(
        widget_script(),
        media_type="text/javascript; charset=utf-8",
        headers={
            "Cache-Control": "public, max-age=300",
            "Access-Control-Allow-Origin": "*",
            "X-Content-Type-Options": "nosniff",
        },
    )


def _document_titles(request: Request, runtime: Runtime, site: LoadedSite) -> list[str]:
    """The titles of the site's documents (default suggestions), cached for minutes."""
    cache: dict[str, tuple[float, list[str]]] | None = getattr(
        request.app.state, "widget_titles", None
    )
    if cache is None:
        cache = request.app.state.widget_titles = {}
    site_id = site.config.id
    cached = cache.get(site_id)
    if cached and time.monotonic() - cached[0] < TITLES_TTL_S:
        return cached[1]
    try:
        documents = open_knowledge_base(runtime).list_documents(site.config)
        titles = [d.title for d in documents]
    except Exception:  # no index yet: the greeting still works, with no suggestions
        titles = []
    cache[site_id] = (time.monotonic(), titles)
    return titles


@router.get(
    "/v1/widget/config",
    summary="The widget's settings for a site: greeting, suggestions, limits, proactive rules",
    responses=error_responses(
        {401: "Missing or unknown site key.", 403: "Origin not allowed for this site."}
    ),
)
async def widget_config(
    request: Request,
    runtime: RuntimeDep,
    key: Annotated[
        str | None,
        Query(max_length=200, description="The site's public key (a GET without a preflight)."),
    ] = None,
) -> dict[str, Any]:
    site = authorize_site(request, runtime, key or request.headers.get("x-frontdesk-key"))
    titles = await run_in_threadpool(_document_titles, request, runtime, site)
    return widget_settings(site.config, titles)
