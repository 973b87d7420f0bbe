"""`GET /widget.js`: the `<frontdesk-chat>` web component (static, dependency-free)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from frontdesk.widget import widget_script

router = APIRouter(tags=["widget"])


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
