"""A visitor's session: history, GDPR erase and export (widget key + allowed origin).

A session id only ever resolves inside the site its key names: another site's key
sees an empty session (404), never the data.
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Path

from frontdesk.api.deps import ChatDep, GuardDep, IpHashDep, WidgetSiteDep
from frontdesk.api.errors import ApiError
from frontdesk.api.schemas import ErrorResponse, SessionErased, SessionHistory
from frontdesk.guard.limits import read_checks

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

SessionId = Annotated[UUID, Path(description="The session id (a UUID issued by the server).")]

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Missing or unknown site key."},
    403: {"model": ErrorResponse, "description": "Origin not allowed for this site."},
    422: {"model": ErrorResponse, "description": "The session id is not a UUID."},
    429: {"model": ErrorResponse, "description": "Rate limited, or a turn is in flight."},
}


@router.get(
    "/{session_id}",
    summary="The messages of a session, oldest first",
    response_model=SessionHistory,
    responses={404: {"model": ErrorResponse, "description": "No such session."}, **ERRORS},
)
async def session_history(
    session_id: SessionId, site: WidgetSiteDep, backend: ChatDep, guard: GuardDep, ip: IpHashDep
) -> SessionHistory:
    site_id = site.config.id
    await guard.check_limits(site_id, read_checks(site_id, ip, site.config.rate_limits))
    messages = await backend.history(site, str(session_id))
    if not messages:
        raise ApiError(404, "session_not_found", "No conversation is stored for this session.")
    return SessionHistory(session_id=str(session_id), messages=messages)


@router.delete(
    "/{session_id}",
    summary="Erase everything stored for a session (GDPR)",
    response_model=SessionErased,
    responses=ERRORS,
)
async def erase_session(
    session_id: SessionId, site: WidgetSiteDep, backend: ChatDep, guard: GuardDep, ip: IpHashDep
) -> SessionErased:
    site_id = site.config.id
    checks = read_checks(site_id, ip, site.config.rate_limits)
    # Holding the session slot: a turn cannot be half-written while the session is erased.
    admission = await guard.admit(site_id, str(session_id), checks)
    try:
        erased = await backend.erase(site, str(session_id))
    finally:
        await admission.release()
    return SessionErased(session_id=str(session_id), erased=erased)


@router.get(
    "/{session_id}/export",
    summary="Everything stored for a session, as JSON (GDPR data export)",
    responses={404: {"model": ErrorResponse, "description": "No such session."}, **ERRORS},
)
async def export_session(
    session_id: SessionId, site: WidgetSiteDep, backend: ChatDep, guard: GuardDep, ip: IpHashDep
) -> dict[str, Any]:
    site_id = site.config.id
    await guard.check_limits(site_id, read_checks(site_id, ip, site.config.rate_limits))
    if not await backend.history(site, str(session_id)):
        raise ApiError(404, "session_not_found", "No conversation is stored for this session.")
    return await backend.export(site, str(session_id))
