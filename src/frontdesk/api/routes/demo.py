"""The demo page: a mock company website (Tessellate) with the chat widget embedded.

The widget's `api-url` comes from configuration (`FRONTDESK_PUBLIC_URL`, else `/`: the
page's own origin), never from the request's `Host` header, which a client chooses.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from frontdesk.api.deps import RuntimeDep
from frontdesk.widget import demo_page_html

router = APIRouter(tags=["demo"])


def demo_csp(public_url: str) -> str:
    """The demo page's policy: its own scripts and the API it talks to, nothing else;
    inline styles (the page's and the widget's shadow DOM) but no inline script."""
    parts = urlsplit(public_url)
    api = f" {parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    return (
        "default-src 'none'; "
        f"script-src 'self'{api}; connect-src 'self'{api}; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def demo_page(runtime: RuntimeDep) -> HTMLResponse:
    site = runtime.sites.get("demo") or next(iter(runtime.sites.values()), None)
    public_url = runtime.settings.public_url.strip().rstrip("/")
    return HTMLResponse(
        demo_page_html(site.config if site else None, public_url or "/"),
        headers={"Content-Security-Policy": demo_csp(public_url), "X-Frame-Options": "DENY"},
    )
