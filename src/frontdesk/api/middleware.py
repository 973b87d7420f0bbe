"""Pure ASGI middleware: body size limit, per-site CORS, request metrics.

They are plain ASGI (not `BaseHTTPMiddleware`) so streamed SSE responses pass through
untouched and a client disconnect still reaches the endpoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frontdesk.api.errors import error_body
from frontdesk.api.metrics import ApiMetrics
from frontdesk.api.security import EXPIRES_HEADER, KEY_HEADER, SECRET_HEADER, SESSION_HEADER

UPLOAD_PATH = re.compile(r"^/v1/admin/sites/[^/]+/documents/?$")
MAX_UPLOAD_BYTES = 25 * 1024 * 1024
"""Document uploads may be larger than chat requests (`settings.max_request_bytes`)."""

ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS"
# Last-Event-ID: the widget resumes the live event stream after a reconnect (a header a
# cross-origin fetch may only send once the preflight allows it).
ALLOWED_HEADERS = (
    f"Content-Type, Accept, {KEY_HEADER}, {SESSION_HEADER}, {SECRET_HEADER}, Last-Event-ID"
)
EXPOSED_HEADERS = (
    f"{SESSION_HEADER}, {SECRET_HEADER}, {EXPIRES_HEADER}, Retry-After, X-RateLimit-Limit, "
    "X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Policy"
)


async def send_json(
    send: Send, status: int, body: Any, headers: dict[str, str] | None = None
) -> None:
    payload = json.dumps(body).encode("utf-8")
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})


def is_widget_path(path: str) -> bool:
    """Public API paths the widget calls cross-origin (admin routes never get CORS)."""
    return path.startswith("/v1/") and not path.startswith("/v1/admin/")


class BodySizeLimit:
    """413 JSON for bodies above the limit, whether declared (Content-Length) or chunked."""

    def __init__(self, app: ASGIApp, max_bytes: int, upload_bytes: int = MAX_UPLOAD_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        limit = self.upload_bytes if UPLOAD_PATH.match(scope["path"]) else self.max_bytes
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                await send_json(send, 400, error_body("bad_request", "Invalid Content-Length."))
                return
            if too_big:
                await self._refuse(send, limit)
                return
            await self.app(scope, receive, send)
            return
        # No declared length (chunked): read up to the limit, then replay the body.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(send: Send, limit: int) -> None:
        await send_json(
            send,
            413,
            error_body("payload_too_large", f"The request body is larger than {limit} bytes."),
        )


class SiteCors:
    """CORS decided per site rather than globally.

    A preflight carries no site key, so it passes when some site allows the origin. The
    real request then resolves its site from the key and checks the origin against that
    site alone (`security.authorize_site`), which marks the origin as verified; only a
    verified origin gets `Access-Control-Allow-Origin` on the response.

    Error responses (4xx) are readable from any origin some site allows, as preflights
    are: they carry only `{"error": {code, message}}`, and the widget turns "unknown
    key" or "origin not allowed for this key" into a console warning the site owner can
    act on, instead of an opaque CORS failure.
    """

    def __init__(self, app: ASGIApp, origin_allowed: Callable[[str], bool]) -> None:
        self.app = app
        self.origin_allowed = origin_allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_widget_path(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if scope["method"] == "OPTIONS" and origin and headers.get("access-control-request-method"):
            await self._preflight(send, origin)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                verified = scope.get("state", {}).get("cors_origin")
                failed = 400 <= int(message["status"]) < 500
                if not verified and origin and failed and self.origin_allowed(origin.rstrip("/")):
                    verified = origin
                response_headers = MutableHeaders(scope=message)
                response_headers.add_vary_header("Origin")
                if verified:
                    response_headers["Access-Control-Allow-Origin"] = verified
                    response_headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_cors)

    async def _preflight(self, send: Send, origin: str) -> None:
        if not self.origin_allowed(origin.rstrip("/")):
            await send_json(
                send,
                403,
                error_body("origin_not_allowed", f"Origin {origin} is not allowed."),
                {"Vary": "Origin"},
            )
            return
        headers = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", ALLOWED_METHODS.encode()),
            (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
            (b"access-control-max-age", b"600"),
            (b"vary", b"Origin"),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


class RequestMetrics:
    """Counts every response by method, route template (never the raw path) and status."""

    def __init__(self, app: ASGIApp, metrics: Callable[[], ApiMetrics | None]) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def send_and_record(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_record)
        finally:
            metrics = self.metrics()
            if metrics is not None:
                route = scope.get("route")
                template = getattr(route, "path", None) or "unmatched"
                metrics.requests.labels(scope["method"], template, str(status)).inc()


STRICT_HTML_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
"""HTML that sets no policy of its own (error pages) may load nothing at all."""

DOCS_CSP = (
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; "
    "script-src 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src https://fonts.gstatic.com; worker-src blob:; connect-src 'self'; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly"
)
"""FastAPI's /docs and /redoc pages load their scripts from jsDelivr and run one inline."""

DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")


CONSOLE_STATIC = "/console/static/"


def no_store_path(path: str) -> bool:
    """Responses that may carry personal data: every `/v1/…` route (turns, session history
    and exports, leads, handoffs, traces, admin), the metrics, and every console response
    but its static files (pages, the live JSON and event streams, transcript exports)."""
    console = path == "/console" or path.startswith("/console/")
    return (
        path.startswith("/v1/")
        or path == "/metrics"
        or (console and not path.startswith(CONSOLE_STATIC))
    )


class SecurityHeaders:
    """Headers on every response, errors and preflights included.

    - `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` everywhere;
    - on HTML: a `Content-Security-Policy` (a route may set its own, as the demo page does;
      otherwise a policy that loads nothing, or the docs pages' CDN policy) and
      `X-Frame-Options: DENY` (with CSP `frame-ancestors 'none'`): no page is framed;
    - `Cache-Control: no-store` on `/v1/…`, `/metrics` and `/console/…` (not its static
      files), whatever the route set.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Content-Type-Options"] = "nosniff"
                headers.setdefault("Referrer-Policy", "no-referrer")
                if headers.get("content-type", "").startswith("text/html"):
                    policy = DOCS_CSP if path in DOCS_PATHS else STRICT_HTML_CSP
                    headers.setdefault("Content-Security-Policy", policy)
                    headers.setdefault("X-Frame-Options", "DENY")
                if no_store_path(path):
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)
