"""A visitor's session: start, resume (known visitors), history, GDPR erase and export.

Every route needs the widget key and an allowed origin; reading or erasing a session
also needs its secret (`X-Frontdesk-Session-Secret`, `api/visitor_sessions.py`). A
session id only ever resolves inside the site its key names.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import (
    ChatDep,
    GuardDep,
    IpHashDep,
    OpenTakeoverDeskDep,
    RuntimeDep,
    SessionId,
    SessionSecretHeader,
    VisitorSessionDep,
    WidgetSiteDep,
)
from frontdesk.api.errors import ApiError
from frontdesk.api.feedback import feedback_by_turn, with_feedback
from frontdesk.api.identity import verify_identity
from frontdesk.api.schemas import (
    IdentityClaim,
    Responses,
    SessionErased,
    SessionGrantOut,
    SessionHistory,
    SessionResume,
    SessionStart,
    error_responses,
)
from frontdesk.api.turns import TurnGuard
from frontdesk.api.visitor_sessions import (
    SessionGrant,
    authorize_session,
    forget_session,
    resume_for_identity,
    start_session,
)
from frontdesk.guard.limits import read_checks
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.widget import VerifiedIdentity
from frontdesk.takeover.desk import TakeoverDesk

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

ERRORS: Responses = error_responses(
    {
        401: "Missing or unknown site key.",
        403: "Origin not allowed, or the session's secret missing or wrong "
        "(`session_secret_invalid`).",
        410: "The session expired.",
        422: "The session id is not a UUID.",
        429: "Rate limited, or a turn is in flight.",
    }
)
NOT_FOUND: Responses = error_responses({404: "No such session."})


def _grant_out(grant: SessionGrant) -> SessionGrantOut:
    assert grant.issued is not None
    return SessionGrantOut(
        session_id=grant.session_id,
        session_secret=grant.issued.secret,
        expires_at=grant.expires_at,
    )


async def _claimed_identity(
    site: LoadedSite, guard: TurnGuard, ip: str, claim: IdentityClaim | None
) -> VerifiedIdentity | None:
    """The visitor the host page vouches for, when its signature verifies (checked after
    the address's read limits)."""
    site_id = site.config.id
    await guard.check_limits(site_id, read_checks(site_id, ip, site.config.rate_limits))
    return verify_identity(site.config, claim)


@router.post(
    "",
    summary="Start a session: its id and secret (the widget may also let its first "
    "message start one)",
    response_model=SessionGrantOut,
    status_code=201,
    responses=ERRORS,
)
async def create_session(
    body: SessionStart, site: WidgetSiteDep, runtime: RuntimeDep, guard: GuardDep, ip: IpHashDep
) -> SessionGrantOut:
    identity = await _claimed_identity(site, guard, ip, body.identity)
    return _grant_out(await run_in_threadpool(start_session, runtime, site.config, identity))


@router.post(
    "/resume",
    summary="A signed-in visitor's latest live conversation, with a secret for this device",
    response_model=SessionGrantOut,
    responses={**NOT_FOUND, **ERRORS},
)
async def resume_session(
    body: SessionResume, site: WidgetSiteDep, runtime: RuntimeDep, guard: GuardDep, ip: IpHashDep
) -> SessionGrantOut:
    identity = await _claimed_identity(site, guard, ip, body.identity)
    if identity is None:
        raise ApiError(
            403, "identity_not_verified", "The visitor identity is unsigned or wrongly signed."
        )
    return _grant_out(await run_in_threadpool(resume_for_identity, runtime, site.config, identity))


@router.get(
    "/{session_id}",
    summary="The messages of a session, oldest first (with the visitor's feedback)",
    response_model=SessionHistory,
    responses={**NOT_FOUND, **ERRORS},
)
async def session_history(
    session_id: SessionId,
    site: WidgetSiteDep,
    runtime: RuntimeDep,
    backend: ChatDep,
    desk: OpenTakeoverDeskDep,
    grant: VisitorSessionDep,
) -> SessionHistory:
    stored = await backend.history(site, str(session_id))
    if not stored:
        raise ApiError(404, "session_not_found", "No conversation is stored for this session.")
    votes = await run_in_threadpool(feedback_by_turn, runtime, site.config.id, str(session_id))
    messages = with_feedback([dict(message) for message in stored], votes)
    live = None
    if desk is not None:
        messages, live = await with_live_log(desk, site.config.id, str(session_id), messages)
    return SessionHistory(
        session_id=str(session_id), messages=messages, expires_at=grant.expires_at, live=live
    )


def _moment(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


async def with_live_log(
    desk: TakeoverDesk, site_id: str, session_id: str, messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The stored messages with the live log the visitor's stream shows (an operator
    joining, their messages, the release…) in time order, and where the stream resumes:
    a reload shows the takeover once, in place, and the stream continues after it."""
    log = await desk.whole_log(site_id, session_id, for_visitor=True)
    owner = await desk.ownership(site_id, session_id)
    entries = [
        {
            **event.data,
            "role": "operator" if event.kind == "operator_message" else "event",
            "event": event.kind,
            "event_id": event.id,
            "created_at": event.data["at"],
        }
        for event in log
        if event.kind != "typing"  # a moment, not part of the transcript
    ]
    merged = sorted(
        [*messages, *entries], key=lambda m: _moment(str(m.get("created_at") or "1970-01-01"))
    )
    live = {
        "owner": owner.state,
        "name": owner.operator_name,
        "last_event_id": log[-1].id if log else 0,
    }
    return merged, live


@router.delete(
    "/{session_id}",
    summary="Erase everything stored for a session (GDPR)",
    response_model=SessionErased,
    responses={**NOT_FOUND, **ERRORS},
)
async def erase_session(
    session_id: SessionId,
    site: WidgetSiteDep,
    runtime: RuntimeDep,
    backend: ChatDep,
    guard: GuardDep,
    ip: IpHashDep,
    secret: SessionSecretHeader = None,
) -> SessionErased:
    site_id = site.config.id
    checks = read_checks(site_id, ip, site.config.rate_limits)
    await run_in_threadpool(authorize_session, runtime, site.config, str(session_id), secret)
    # Holding the session slot: a turn cannot be half-written while the session is erased.
    admission = await guard.admit(site_id, str(session_id), checks)
    try:
        erased = await backend.erase(site, str(session_id))
        forgotten = await run_in_threadpool(forget_session, runtime, site.config, str(session_id))
    finally:
        await admission.release()
    return SessionErased(session_id=str(session_id), erased=erased or forgotten)


@router.get(
    "/{session_id}/export",
    summary="Everything stored for a session, as JSON (GDPR data export)",
    responses={**NOT_FOUND, **ERRORS},
)
async def export_session(
    session_id: SessionId,
    site: WidgetSiteDep,
    runtime: RuntimeDep,
    backend: ChatDep,
    desk: OpenTakeoverDeskDep,
    grant: VisitorSessionDep,
) -> dict[str, Any]:
    if not await backend.history(site, str(session_id)):
        raise ApiError(404, "session_not_found", "No conversation is stored for this session.")
    exported: dict[str, Any] = dict(await backend.export(site, str(session_id)))
    votes = await run_in_threadpool(feedback_by_turn, runtime, site.config.id, str(session_id))
    exported["feedback"] = [votes[turn] for turn in sorted(votes)]
    if desk is not None:
        # Everything of a live takeover, the visitor's relayed messages and typing included.
        log = await desk.whole_log(site.config.id, str(session_id), for_visitor=False)
        exported["live_events"] = [event.data for event in log]
    if grant.identity is not None:
        exported["identity"] = grant.identity.as_dict()
    return exported
