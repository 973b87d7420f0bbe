"""`GET /v1/admin/sites/{site}/handoffs`: human handoffs of one site, newest first."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from frontdesk.api.deps import AdminDep, AdminSiteDep, DbDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS
from frontdesk.api.schemas import HandoffOut
from frontdesk.store.repositories import HandoffRepository

router = APIRouter(prefix="/v1/admin/sites", tags=["admin"], dependencies=[AdminDep])


@router.get(
    "/{site}/handoffs",
    summary="Handoffs to a human, newest first",
    response_model=list[HandoffOut],
    responses=ADMIN_ERRORS,
)
def list_handoffs(
    site: AdminSiteDep, db: DbDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> list[HandoffOut]:
    rows = HandoffRepository(db).list(site.config.id, limit=limit)
    return [HandoffOut.model_validate(row) for row in rows]
