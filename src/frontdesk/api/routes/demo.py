"""The demo page: a mock company website with the chat widget."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from frontdesk.api.deps import RuntimeDep

router = APIRouter(tags=["demo"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def demo_page(runtime: RuntimeDep) -> str:
    names = "".join(
        f"<li><b>{site.config.name}</b> (<code>{site.config.id}</code>)</li>"
        for site in runtime.sites.values()
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<title>Frontdesk demo</title></head><body>"
        "<h1>Frontdesk is running</h1>"
        f"<p>Sites served by this process:</p><ul>{names}</ul>"
        "<p>API documentation: <a href='/docs'>/docs</a>. "
        "Health: <a href='/healthz'>/healthz</a>, <a href='/readyz'>/readyz</a>.</p>"
        "</body></html>"
    )
