"""Turns: `POST /v1/chat` (streamed as SSE) and `POST /v1/ask` (one JSON response).

Order of checks (DESIGN "A turn, end to end"): site key → origin → rate limits per IP
and site → the session's secret (read only) → its rate limit and slot (429 when busy) →
the session written → the backend, whose abuse gate runs before the graph.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import ChatDep, GuardDep, IpHashDep, MetricsDep, RuntimeDep, SiteKeyHeader
from frontdesk.api.errors import STORE_RETRY_AFTER_S, ApiError
from frontdesk.api.identity import verify_identity
from frontdesk.api.schemas import Responses, TurnRequest, error_responses
from frontdesk.api.security import SECRET_HEADER, SESSION_HEADER, authorize_site
from frontdesk.api.sse import DEFAULT_PING_S, TurnStreamResponse, turn_events
from frontdesk.api.turns import Admission
from frontdesk.api.visitor_sessions import SessionGrant, claim_for_turn, keep_session
from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.guard.charset import clean_text
from frontdesk.guard.limits import session_checks, tightest, visitor_checks
from frontdesk.sites.registry import LoadedSite

log = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["chat"])

TURN_ERRORS: Responses = error_responses(
    {
        401: "Missing or unknown site key.",
        413: "Request body too large.",
        403: "Origin not allowed for this site, or an existing session without its "
        "secret (`session_secret_invalid`) or of another signed-in visitor.",
        410: "The session expired (`session_expired`).",
        422: "Invalid body (blank message, bad session id).",
        429: "Rate limited (`Retry-After`) or the session is busy with another turn.",
    }
)


SecretHeader = Annotated[
    str | None,
    Header(alias=SECRET_HEADER, max_length=200, description="The session's secret."),
]


class TurnCall:
    """One turn request as both routes receive it: the body, the caller, the keys it
    brings, and the guard that admits it (`admit`, in the order above)."""

    def __init__(
        self,
        request: Request,
        body: TurnRequest,
        runtime: RuntimeDep,
        guard: GuardDep,
        ip_hash: IpHashDep,
        site_key: SiteKeyHeader = None,
        secret: SecretHeader = None,
    ) -> None:
        self.request, self.body, self.runtime, self.guard = request, body, runtime, guard
        self.ip_hash, self.site_key, self.secret = ip_hash, site_key, secret

    def visitor(self) -> VisitorContext:
        request, body = self.request, self.body
        return VisitorContext(
            ip_hash=self.ip_hash,
            user_agent=clean_text(request.headers.get("user-agent", ""))[:300],
            page_url=clean_text(body.page_url or request.headers.get("referer", ""))[:2048],
            referrer=clean_text(body.referrer or "")[:2048],
            reveal=dict(body.reveal or {}),
        )

    async def admit(self) -> tuple[LoadedSite, SessionGrant, Admission]:
        """Site from the key; the per-IP and per-site limits; the session (its secret
        checked, read only); its limit and slot; only then is the session written (a new
        key issued), so a refused request writes nothing."""
        body, runtime, guard = self.body, self.runtime, self.guard
        site = authorize_site(self.request, runtime, self.site_key or body.site_key)
        site_id, limits = site.config.id, site.config.rate_limits
        identity = verify_identity(site.config, body.identity)
        visitor = await guard.check_limits(site_id, visitor_checks(site_id, self.ip_hash, limits))
        requested = str(body.session_id) if body.session_id else None
        secret = self.secret or body.session_secret
        claim = await run_in_threadpool(
            claim_for_turn, runtime, site.config, requested, secret, identity
        )
        checks = session_checks(site_id, claim.session_id, limits)
        admission = await guard.admit(site_id, claim.session_id, checks)
        try:
            grant = await run_in_threadpool(keep_session, runtime, site.config, claim)
        except BaseException:
            await admission.release()
            raise
        admission.decision = tightest([visitor, admission.decision])
        return site, grant, admission


TurnCallDep = Annotated[TurnCall, Depends()]


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
async def chat(call: TurnCallDep, backend: ChatDep, metrics: MetricsDep) -> Response:
    site, grant, admission = await call.admit()
    session_id = grant.session_id
    site_id = site.config.id
    try:
        events = backend.stream_turn(site, session_id, call.body.message, call.visitor())
    except BaseException:
        await admission.release()
        raise
    headers = {SESSION_HEADER: session_id, **grant.headers(), **admission.decision.headers()}
    ping_s: float = getattr(call.request.app.state, "sse_ping_s", DEFAULT_PING_S)
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
async def ask(call: TurnCallDep, backend: ChatDep, metrics: MetricsDep) -> Response:
    site, grant, admission = await call.admit()
    session_id = grant.session_id
    site_id = site.config.id
    started = time.perf_counter()
    # A failed first turn still tells the client its session and secret.
    session_headers = {SESSION_HEADER: session_id, **grant.headers()}
    try:
        turn = asyncio.ensure_future(
            backend.ask(site, session_id, call.body.message, call.visitor())
        )
        watcher = asyncio.ensure_future(_until_disconnect(call.request))
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
                headers={"Retry-After": str(STORE_RETRY_AFTER_S), **session_headers},
            ) from exc
        log.exception("turn failed on site %s", site_id)
        metrics.turn_errors.labels(site_id, "internal_error").inc()
        raise ApiError(
            500, "internal_error", "Something went wrong on our side.", headers=session_headers
        ) from exc
    finally:
        await admission.release()
    metrics.record_turn(site_id, "ask", result, time.perf_counter() - started)
    headers = {**session_headers, **admission.decision.headers()}
    return JSONResponse(result.model_dump(mode="json"), headers=headers)
