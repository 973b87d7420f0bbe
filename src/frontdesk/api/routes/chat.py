"""Turns: `POST /v1/chat` (streamed as SSE) and `POST /v1/ask` (one JSON response).

Order of checks (DESIGN "A turn, end to end"): site key → origin → rate limits →
session slot (429 when busy) → the backend, whose abuse gate runs before the graph.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from frontdesk.api.deps import ChatDep, GuardDep, IpHashDep, MetricsDep, RuntimeDep, SiteKeyHeader
from frontdesk.api.errors import STORE_RETRY_AFTER_S, ApiError
from frontdesk.api.schemas import ErrorResponse, TurnRequest
from frontdesk.api.security import SESSION_HEADER, authorize_site
from frontdesk.api.sse import DEFAULT_PING_S, TurnStreamResponse, turn_events
from frontdesk.api.turns import Admission, TurnGuard
from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.guard.charset import clean_text
from frontdesk.guard.limits import turn_checks
from frontdesk.sites.registry import LoadedSite

log = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["chat"])

TURN_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Missing or unknown site key."},
    403: {"model": ErrorResponse, "description": "Origin not allowed for this site."},
    413: {"model": ErrorResponse, "description": "Request body too large."},
    422: {"model": ErrorResponse, "description": "Invalid body (blank message, bad session id)."},
    429: {
        "model": ErrorResponse,
        "description": "Rate limited (`Retry-After`) or the session is busy with another turn.",
    },
}


def _visitor(request: Request, body: TurnRequest, ip_hash: str) -> VisitorContext:
    return VisitorContext(
        ip_hash=ip_hash,
        user_agent=clean_text(request.headers.get("user-agent", ""))[:300],
        page_url=clean_text(body.page_url or request.headers.get("referer", ""))[:2048],
        reveal=dict(body.reveal or {}),
    )


def _site(
    request: Request, runtime: RuntimeDep, header_key: str | None, body: TurnRequest
) -> LoadedSite:
    return authorize_site(request, runtime, header_key or body.site_key)


async def _admit(
    request: Request,
    runtime: RuntimeDep,
    guard: TurnGuard,
    ip_hash: str,
    site_key: str | None,
    body: TurnRequest,
) -> tuple[LoadedSite, str, Admission]:
    """Site from the key, a server-issued session id, then rate limits and the session lock."""
    site = _site(request, runtime, site_key, body)
    session_id = str(body.session_id or uuid.uuid4())
    checks = turn_checks(site.config.id, session_id, ip_hash, site.config.rate_limits)
    return site, session_id, await guard.admit(site.config.id, session_id, checks)


@router.post(
    "/chat",
    summary="Run one turn, streamed as Server-Sent Events",
    response_class=TurnStreamResponse,
    status_code=200,
    responses={
        200: {
            "description": "`token` events, then one `complete` (metadata = the `/v1/ask` "
            "body) or one `error` event.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **TURN_ERRORS,
    },
)
async def chat(
    request: Request,
    body: TurnRequest,
    runtime: RuntimeDep,
    backend: ChatDep,
    guard: GuardDep,
    metrics: MetricsDep,
    ip_hash: IpHashDep,
    site_key: SiteKeyHeader = None,
) -> Response:
    site, session_id, admission = await _admit(request, runtime, guard, ip_hash, site_key, body)
    site_id = site.config.id
    try:
        events = backend.stream_turn(
            site, session_id, body.message, _visitor(request, body, ip_hash)
        )
    except BaseException:
        await admission.release()
        raise
    headers = {SESSION_HEADER: session_id, **admission.decision.headers()}
    ping_s: float = getattr(request.app.state, "sse_ping_s", DEFAULT_PING_S)
    return TurnStreamResponse(
        turn_events(events, site_id=site_id, admission=admission, metrics=metrics),
        admission=admission,
        headers=headers,
        ping_s=ping_s,
    )


async def _until_disconnect(request: Request) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


@router.post(
    "/ask",
    summary="Run one turn and return the whole result",
    response_model=TurnResult,
    responses=TURN_ERRORS,
)
async def ask(
    request: Request,
    body: TurnRequest,
    runtime: RuntimeDep,
    backend: ChatDep,
    guard: GuardDep,
    metrics: MetricsDep,
    ip_hash: IpHashDep,
    site_key: SiteKeyHeader = None,
) -> Response:
    site, session_id, admission = await _admit(request, runtime, guard, ip_hash, site_key, body)
    site_id = site.config.id
    started = time.perf_counter()
    try:
        turn = asyncio.ensure_future(
            backend.ask(site, session_id, body.message, _visitor(request, body, ip_hash))
        )
        watcher = asyncio.ensure_future(_until_disconnect(request))
        try:
            await asyncio.wait({turn, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
        if not turn.done():
            # The client went away: cancel the rest of the turn; nobody reads a response.
            turn.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await turn
            metrics.turn_errors.labels(site_id, "disconnected").inc()
            return Response(status_code=499)
        result = turn.result()
    except ApiError:
        raise
    except Exception as exc:
        if getattr(exc, "code", None) == "store_unavailable":  # nothing could keep the turn
            metrics.turn_errors.labels(site_id, "store_unavailable").inc()
            raise ApiError(
                503,
                "store_unavailable",
                "Our storage is unavailable; try again shortly.",
                headers={"Retry-After": str(STORE_RETRY_AFTER_S)},
            ) from exc
        log.exception("turn failed on site %s", site_id)
        metrics.turn_errors.labels(site_id, "internal_error").inc()
        raise ApiError(500, "internal_error", "Something went wrong on our side.") from exc
    finally:
        await admission.release()
    metrics.record_turn(site_id, "ask", result, time.perf_counter() - started)
    headers = {SESSION_HEADER: session_id, **admission.decision.headers()}
    return JSONResponse(result.model_dump(mode="json"), headers=headers)
