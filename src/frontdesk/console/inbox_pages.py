"""The inbox: a site's conversations (live), filters and search, one transcript with
each turn's trace, and exports."""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from typing import Annotated, get_args
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleNotFound
from frontdesk.api.deps import ConsoleSiteDep, RuntimeDep
from frontdesk.console.export import transcript_document, transcript_markdown
from frontdesk.console.i18n import N_
from frontdesk.console.templating import render
from frontdesk.conversation.vocabulary import TURN_ROUTES, Routing
from frontdesk.runtime import Runtime
from frontdesk.store.inbox import (
    PAGE_SIZE,
    InboxFilters,
    InboxRepository,
    InboxRow,
    Transcript,
)

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

# The inbox filters by the routes the assistant takes (HUMAN, a person's reply, is none).
ROUTES = tuple(route for route in TURN_ROUTES if route != "HUMAN")
ROUTINGS = get_args(Routing)
LEAD_LEVELS = ("cold", "warm", "hot")
# Labels are translated where shown (inbox.html).
FEEDBACK = {
    "up": N_("👍 helpful"),
    "down": N_("👎 not helpful"),
    "any": N_("any vote"),
    "none": N_("no vote"),
}
Param = Annotated[str, Query(max_length=200)]


def download_name(session_id: str, suffix: str) -> str:
    """A Content-Disposition value that no session id can break out of."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id)[:64] or "conversation"
    return f'attachment; filename="{safe}.{suffix}"'


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def parse_filters(
    route: Param = "",
    routing: Param = "",
    lead: Param = "",
    handoff: Param = "",
    language: Param = "",
    since: Param = "",
    until: Param = "",
    q: Param = "",
    feedback: Param = "",
) -> InboxFilters:
    """The inbox's filters from its query. Unknown values are ignored rather than failing
    the page (the form only offers known ones; a hand-edited URL still shows the inbox)."""
    return InboxFilters(
        route=route if route in ROUTES else None,
        routing=routing if routing in ROUTINGS else None,
        lead_level=lead if lead in LEAD_LEVELS else None,
        handoff={"yes": True, "no": False}.get(handoff),
        language=language.strip()[:8] or None,
        since=_date(since),
        until=_date(until),
        text=q.strip()[:200] or None,
        feedback=feedback if feedback in FEEDBACK else None,
    )


def _load_rows(
    runtime: Runtime, site_id: str, filters: InboxFilters, before: datetime | None
) -> tuple[list[InboxRow], list[str]]:
    with runtime.sessions() as session:
        inbox = InboxRepository(session)
        return inbox.conversations(site_id, filters, before=before), inbox.languages(site_id)


def _before(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def older_url(site_id: str, params: dict[str, str], rows: list[InboxRow]) -> str | None:
    """The next page (older conversations) with the same filters; None on the last page."""
    if len(rows) < PAGE_SIZE:
        return None
    query = {k: v for k, v in params.items() if k not in ("rows", "before") and v}
    query["before"] = rows[-1].last_activity_at.isoformat()
    return f"/console/sites/{site_id}/inbox?{urlencode(query)}"


@router.get("/inbox")
async def inbox_page(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    filters: Annotated[InboxFilters, Depends(parse_filters)],
    before: Param = "",
) -> Response:
    older_than = _before(before)
    rows, languages = await run_in_threadpool(_load_rows, runtime, site.id, filters, older_than)
    fragment = request.headers.get("HX-Request") == "true" and request.query_params.get("rows")
    return render(
        request,
        "inbox_rows.html" if fragment else "inbox.html",
        {
            "rows": rows,
            "filters": filters,
            "raw": dict(request.query_params),
            "routes": ROUTES,
            "routings": ROUTINGS,
            "lead_levels": LEAD_LEVELS,
            "feedback_choices": FEEDBACK,
            "languages": languages,
            "page": "inbox",
            "live": older_than is None,  # only the newest page follows new conversations
            "older_url": older_url(site.id, dict(request.query_params), rows),
        },
        site=site,
    )


def load_transcript(runtime: Runtime, site_id: str, session_id: str) -> Transcript:
    with runtime.sessions() as session:
        found = InboxRepository(session).transcript(site_id, session_id)
        if found is None:
            raise ConsoleNotFound(session_id)
        return found


@router.get("/conversations/{session_id}")
async def transcript_page(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, session_id: str
) -> Response:
    transcript = await run_in_threadpool(load_transcript, runtime, site.id, session_id[:64])
    fragment = request.headers.get("HX-Request") == "true" and request.query_params.get("turns")
    return render(
        request,
        "transcript_turns.html" if fragment else "transcript.html",
        {"transcript": transcript, "page": "inbox"},
        site=site,
    )


@router.get("/conversations/{session_id}/export.json")
async def export_json(runtime: RuntimeDep, site: ConsoleSiteDep, session_id: str) -> Response:
    transcript = await run_in_threadpool(load_transcript, runtime, site.id, session_id[:64])
    body = json.dumps(transcript_document(site.id, transcript), indent=2, ensure_ascii=False)
    return Response(
        body,
        media_type="application/json",
        headers={"Content-Disposition": download_name(session_id, "json")},
    )


@router.get("/conversations/{session_id}/export.md")
async def export_markdown(runtime: RuntimeDep, site: ConsoleSiteDep, session_id: str) -> Response:
    transcript = await run_in_threadpool(load_transcript, runtime, site.id, session_id[:64])
    return Response(
        transcript_markdown(site.id, transcript),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": download_name(session_id, "md")},
    )
