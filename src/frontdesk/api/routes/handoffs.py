"""`GET /v1/admin/sites/{site}/handoffs`: human handoffs of one site, newest first."""

from __future__ import annotations

from frontdesk.api.deps import AdminSiteDep, DbDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS, ListLimit, admin_router
from frontdesk.api.schemas import HandoffAttemptOut, HandoffChannelOut, HandoffOut
from frontdesk.store.handoffs import HandoffRepository, OutboxRepository

router = admin_router()


@router.get(
    "/{site}/handoffs",
    summary="Handoffs to a human, newest first, with per-channel delivery and every attempt",
    response_model=list[HandoffOut],
    responses=ADMIN_ERRORS,
)
def list_handoffs(site: AdminSiteDep, db: DbDep, limit: ListLimit = 100) -> list[HandoffOut]:
    handoffs, outbox = HandoffRepository(db), OutboxRepository(db)
    listed = []
    for row in handoffs.list(site.config.id, limit=limit):
        out = HandoffOut.model_validate(row)
        out.channels = [HandoffChannelOut.model_validate(c) for c in outbox.for_handoff(row.id)]
        out.attempts = [HandoffAttemptOut.model_validate(a) for a in handoffs.attempts(row.id)]
        listed.append(out)
    return listed
