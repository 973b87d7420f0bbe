"""Leads and handoffs: the lead list with status, each handoff's context packet and
every delivery attempt per channel, and a retry button for a failed delivery."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleNotFound
from frontdesk.api.deps import ConsoleSiteDep, CsrfDep, RuntimeDep
from frontdesk.console.templating import render
from frontdesk.console.writes import in_transaction
from frontdesk.runtime import Runtime
from frontdesk.store.desk import LEAD_STATUSES, DeskRepository, HandoffDeliveries
from frontdesk.store.models import Lead

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

# The newest ones; the admin API (`/v1/admin/sites/{site}/leads`, `/handoffs`) lists more.
LEADS_SHOWN = 100
HANDOFFS_SHOWN = 30


def _load(runtime: Runtime, site_id: str) -> tuple[list[Lead], list[HandoffDeliveries]]:
    with runtime.sessions() as session:
        desk = DeskRepository(session)
        return list(desk.leads(site_id, limit=LEADS_SHOWN)), desk.handoffs(site_id, HANDOFFS_SHOWN)


@router.get("/leads")
async def leads_page(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    leads, handoffs = await run_in_threadpool(_load, runtime, site.id)
    return render(
        request,
        "leads.html",
        {
            "leads": leads,
            "handoffs": handoffs,
            "statuses": LEAD_STATUSES,
            "page": "leads",
            "leads_shown": LEADS_SHOWN,
            "handoffs_shown": HANDOFFS_SHOWN,
        },
        site=site,
    )


@router.post("/leads/{lead_id}/status", dependencies=[CsrfDep])
async def set_status(
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    lead_id: str,
    status: Annotated[str, Form(max_length=16)],
) -> Response:
    site.require("agent")
    if status not in LEAD_STATUSES:
        raise ConsoleNotFound(status)

    changed = await in_transaction(
        runtime, lambda session: DeskRepository(session).set_lead_status(site.id, lead_id, status)
    )
    if changed is None:
        raise ConsoleNotFound(lead_id)
    return RedirectResponse(f"/console/sites/{site.id}/leads#lead-{lead_id}", status_code=303)


def _handoff(runtime: Runtime, site_id: str, handoff_id: str) -> HandoffDeliveries:
    with runtime.sessions() as session:
        found = DeskRepository(session).handoff(site_id, handoff_id)
        if found is None:
            raise ConsoleNotFound(handoff_id)
        return found


@router.get("/handoffs/{handoff_id}")
async def handoff_fragment(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, handoff_id: str
) -> Response:
    """One handoff's deliveries (htmx polls it while a retry is under way)."""
    entry = await run_in_threadpool(_handoff, runtime, site.id, handoff_id[:36])
    return render(request, "handoff.html", {"entry": entry}, site=site)


@router.post("/deliveries/{outbox_id}/retry", dependencies=[CsrfDep])
async def retry_delivery(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, outbox_id: int
) -> Response:
    site.require("agent")

    def retry(session: Session) -> str | None:
        item = DeskRepository(session).retry_delivery(site.id, outbox_id)
        return None if item is None else str(item.handoff_id or "")

    handoff_id = await in_transaction(runtime, retry)
    if handoff_id is None:
        raise ConsoleNotFound(str(outbox_id))
    if request.headers.get("HX-Request") == "true" and handoff_id:
        entry = await run_in_threadpool(_handoff, runtime, site.id, handoff_id)
        return render(request, "handoff.html", {"entry": entry}, site=site)
    return RedirectResponse(f"/console/sites/{site.id}/leads#handoff-{handoff_id}", status_code=303)
