"""Appointments booked in the chat, per day, read from the site's CalDAV calendar, each
with the conversation it was booked in."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from frontdesk.api.console_access import ConsoleNotFound
from frontdesk.api.deps import ConsoleSiteDep, RuntimeDep
from frontdesk.appointments.calendar import CalendarError
from frontdesk.appointments.desk import AppointmentDesk
from frontdesk.appointments.invite import Appointment
from frontdesk.console.templating import render

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

DAYS_SHOWN = 14


def by_day(appointments: list[Appointment], desk: AppointmentDesk) -> list[tuple[str, list[Any]]]:
    """Appointments grouped by the team's calendar day, on its wall clock."""
    zone = desk.site.business_hours.hours().zone
    days: dict[str, list[dict[str, str]]] = {}
    for item in appointments:
        start = item.start.astimezone(zone)
        end = item.end.astimezone(zone)
        days.setdefault(start.strftime("%A %Y-%m-%d"), []).append(
            {
                "time": f"{start:%H:%M}–{end:%H:%M}",
                "kind": desk.kind_of(item).name_in(desk.site.default_language),
                "name": item.name,
                "email": item.email,
                "phone": item.phone,
                "session_id": item.session_id,
            }
        )
    return list(days.items())


@router.get("/appointments")
async def appointments_page(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    start: Annotated[date | None, Query()] = None,
) -> Response:
    config = site.site.config
    if config.calendar is None:
        raise ConsoleNotFound("appointments")
    desk = AppointmentDesk(config, runtime.settings)
    zone = config.business_hours.hours().zone
    first = start or datetime.now(zone).date()
    last = first + timedelta(days=DAYS_SHOWN - 1)
    error = ""
    try:
        found = await desk.day(
            datetime.combine(first, time(), zone),
            datetime.combine(last + timedelta(days=1), time(), zone),
        )
    except CalendarError as exc:
        found, error = [], str(exc)
    return render(
        request,
        "appointments.html",
        {
            "page": "appointments",
            "days": by_day(found, desk),
            "error": error,
            "timezone": config.business_hours.timezone,
            "first": first.isoformat(),
            "last": last.isoformat(),
            "previous": (first - timedelta(days=DAYS_SHOWN)).isoformat(),
            "following": (first + timedelta(days=DAYS_SHOWN)).isoformat(),
        },
        site=site,
    )
