"""`GET /v1/admin/sites/{site}/leads`: the CRM table of one site, newest first."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from frontdesk.api.deps import AdminDep, AdminSiteDep, DbDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS
from frontdesk.api.schemas import LeadOut
from frontdesk.store.handoffs import LeadRepository

router = APIRouter(prefix="/v1/admin/sites", tags=["admin"], dependencies=[AdminDep])


@router.get(
    "/{site}/leads",
    summary="Leads captured on the site, newest first",
    response_model=list[LeadOut],
    responses=ADMIN_ERRORS,
)
def list_leads(
    site: AdminSiteDep, db: DbDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> list[LeadOut]:
    rows = LeadRepository(db).list(site.config.id, limit=limit)
    return [LeadOut.model_validate(row) for row in rows]
