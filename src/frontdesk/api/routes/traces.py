"""`GET /v1/admin/sites/{site}/traces/{session}`: what happened in each turn of a session."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import Path

from frontdesk.api.deps import AdminSiteDep, DbDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS, admin_router
from frontdesk.api.schemas import SessionTraces, TraceOut
from frontdesk.store.repositories import TraceRepository

router = admin_router()


@router.get(
    "/{site}/traces/{session}",
    summary="Turn traces of one session (nodes, latency, decisions, sources)",
    response_model=SessionTraces,
    responses=ADMIN_ERRORS,
)
def session_traces(
    site: AdminSiteDep,
    db: DbDep,
    session: Annotated[UUID, Path(description="The session id.")],
) -> SessionTraces:
    rows = TraceRepository(db).for_session(site.config.id, str(session))
    return SessionTraces(
        session_id=str(session), traces=[TraceOut.model_validate(row) for row in rows]
    )
