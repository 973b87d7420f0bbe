"""The demo page: a mock company website (Tessellate) with the chat widget embedded."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from frontdesk.api.deps import RuntimeDep
from frontdesk.widget import demo_page_html

router = APIRouter(tags=["demo"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def demo_page(request: Request, runtime: RuntimeDep) -> HTMLResponse:
    site = runtime.sites.get("demo") or next(iter(runtime.sites.values()), None)
    api_url = str(request.base_url).rstrip("/")
    return HTMLResponse(demo_page_html(site.config if site else None, api_url))
