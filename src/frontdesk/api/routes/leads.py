"""`GET /v1/admin/sites/{site}/leads`: the CRM table of one site, newest first."""

from __future__ import annotations

from frontdesk.api.deps import AdminSiteDep, DbDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS, ListLimit, admin_router
from frontdesk.api.schemas import LeadOut
from frontdesk.store.handoffs import LeadRepository

router = admin_router()


@router.get(
    "/{site}/leads",
    summary="Leads captured on the site, newest first",
    response_model=list[LeadOut],
    responses=ADMIN_ERRORS,
)
def list_leads(site: AdminSiteDep, db: DbDep, limit: ListLimit = 100) -> list[LeadOut]:
    rows = LeadRepository(db).list(site.config.id, limit=limit)
    return [LeadOut.model_validate(row) for row in rows]
