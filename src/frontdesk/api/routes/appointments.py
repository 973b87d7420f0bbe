"""The visitor's link from the invitation: see the appointment, cancel it, or move it to
another free slot. The link carries a token only this server can make (`desk.token`);
no sign-in. Each page is plain HTML forms, so it works in any mail client's browser."""

from __future__ import annotations

import hmac
import html
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse

from frontdesk.api.deps import RuntimeDep
from frontdesk.api.errors import ApiError
from frontdesk.appointments.calendar import CalendarError, Changed, NotFound, SlotTaken
from frontdesk.appointments.desk import AppointmentDesk, slot_label
from frontdesk.appointments.invite import Appointment
from frontdesk.conversation.texts import say
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import SiteConfigError

router = APIRouter(tags=["appointments"], include_in_schema=False)

_PAGE = """<!doctype html><html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}}
button{{font:inherit;margin:.25rem .25rem .25rem 0;padding:.4rem .8rem;border-radius:.4rem;
border:1px solid #888;background:#fff;cursor:pointer}}.cancel{{border-color:#b00;color:#b00}}
.note{{padding:.6rem;background:#eef6ee;border-radius:.4rem}}</style></head><body>
<h1>{title}</h1>{body}</body></html>"""


def _desk(runtime: Runtime, site_id: str, uid: str, token: str) -> AppointmentDesk:
    try:
        config = runtime.site(site_id).config
    except SiteConfigError as exc:
        raise ApiError(404, "not_found", "No such appointment.") from exc
    if config.calendar is None:
        raise ApiError(404, "not_found", "No such appointment.")
    desk = AppointmentDesk(config, runtime.settings)
    try:
        expected = desk.token(uid)
    except CalendarError as exc:
        raise ApiError(503, "calendar_unavailable", str(exc)) from exc
    if not hmac.compare_digest(expected, token):
        raise ApiError(404, "not_found", "No such appointment.")
    return desk


def _now(request: Request) -> datetime:
    """The chat's wall clock (tests freeze it), so the page offers what the chat would."""
    clock = getattr(getattr(request.app.state, "chat", None), "clock", None)
    return clock() if callable(clock) else datetime.now(UTC)


NowDep = Annotated[datetime, Depends(_now)]


# The page posts its own forms and has its own small stylesheet; nothing else loads.
PAGE_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def _page(desk: AppointmentDesk, language: str, title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        _PAGE.format(lang=language, title=html.escape(title), body=body),
        headers={"Content-Security-Policy": PAGE_CSP},
    )


def _say(desk: AppointmentDesk, key: str, language: str, **values: str) -> str:
    site = desk.site
    return say(key, language, tone=site.tone, overrides=site.texts, site=site.name, **values)


async def _view(
    desk: AppointmentDesk, booked: Appointment, token: str, now: datetime, note: str = ""
) -> HTMLResponse:
    language = booked.language
    kind = desk.kind_of(booked)
    label = slot_label(booked.start, desk.site, language)
    title = f"{kind.name_in(language)} – {desk.site.name}"
    status = _say(desk, "appointment.booked", language, kind=kind.name_in(language), slot=label)
    offers, _ = await desk.offer(kind, None, now, language, count=5)
    hidden = f'<input type="hidden" name="token" value="{html.escape(token)}">'
    moves = "".join(
        f'<button name="start" value="{html.escape(o.start)}">{html.escape(o.label)}</button>'
        for o in offers
    )
    body = (
        (f'<p class="note" role="status">{html.escape(note)}</p>' if note else "")
        + f"<p>{html.escape(status)}</p>"
        + f'<form method="post">{hidden}<input type="hidden" name="action" value="cancel">'
        + f'<button class="cancel">{html.escape(_say(desk, "appointment.page_cancel", language))}'
        + "</button></form>"
        + f"<p>{html.escape(_say(desk, 'appointment.page_choose', language))}</p>"
        + f'<form method="post">{hidden}<input type="hidden" name="action" value="move">'
        + f"{moves}</form>"
    )
    return _page(desk, language, title, body)


@router.get("/v1/appointments/{site_id}/{uid}", response_class=HTMLResponse)
async def appointment_page(
    site_id: str,
    uid: str,
    runtime: RuntimeDep,
    now: NowDep,
    token: Annotated[str, Query()] = "",
) -> HTMLResponse:
    desk = _desk(runtime, site_id, uid, token)
    try:
        booked = await desk.get(uid)
        return await _view(desk, booked, token, now)
    except NotFound:
        language = desk.site.default_language
        return _page(desk, language, desk.site.name, _gone(desk, language))
    except CalendarError as exc:
        raise ApiError(503, "calendar_unavailable", "The calendar cannot be reached.") from exc


def _gone(desk: AppointmentDesk, language: str) -> str:
    return f"<p>{html.escape(_say(desk, 'appointment.page_gone', language))}</p>"


@router.post("/v1/appointments/{site_id}/{uid}", response_class=HTMLResponse)
async def change_appointment(
    site_id: str,
    uid: str,
    runtime: RuntimeDep,
    now: NowDep,
    token: Annotated[str, Form()],
    action: Annotated[str, Form()],
    start: Annotated[str, Form()] = "",
) -> HTMLResponse:
    desk = _desk(runtime, site_id, uid, token)
    try:
        booked = await desk.get(uid)
    except NotFound:
        fallback = str(desk.site.default_language)
        return _page(desk, fallback, desk.site.name, _gone(desk, fallback))
    except CalendarError as exc:
        raise ApiError(503, "calendar_unavailable", "The calendar cannot be reached.") from exc
    language = booked.language
    try:
        if action == "cancel":
            cancelled = await desk.cancel(uid)
            await desk.send(cancelled, "CANCEL")
            label = slot_label(cancelled.start, desk.site, language)
            text = _say(desk, "appointment.cancelled", language, slot=label)
            return _page(desk, language, desk.site.name, f'<p class="note">{html.escape(text)}</p>')
        if action != "move":
            raise ApiError(422, "invalid_action", "action must be cancel or move")
        kind = desk.kind_of(booked)
        offers, _ = await desk.offer(kind, None, now, language, count=200)
        chosen = next((o for o in offers if o.start == start), None)
        if chosen is None:  # no longer free, or never offered
            return await _view(desk, booked, token, now, note=_taken(desk, language))
        moved = await desk.move(uid, kind, chosen.interval())
        await desk.send(moved, "REQUEST")
        note = _say(desk, "appointment.moved", language, slot=chosen.label)
        return await _view(desk, moved, token, now, note=note)
    except SlotTaken:
        return await _view(desk, booked, token, now, note=_taken(desk, language))
    except Changed:
        # Another request (a second click, another tab) moved it first: show where it is.
        return await _current(desk, uid, token, now, language)
    except NotFound:
        return _page(desk, language, desk.site.name, _gone(desk, language))
    except CalendarError as exc:
        raise ApiError(503, "calendar_unavailable", "The calendar cannot be reached.") from exc


def _taken(desk: AppointmentDesk, language: str) -> str:
    return _say(desk, "appointment.taken", language, slots="…").split(".")[0] + "."


async def _current(
    desk: AppointmentDesk, uid: str, token: str, now: datetime, language: str
) -> HTMLResponse:
    """The appointment as another request just left it."""
    try:
        current = await desk.get(uid)
    except NotFound:
        return _page(desk, language, desk.site.name, _gone(desk, language))
    label = slot_label(current.start, desk.site, language)
    note = _say(desk, "appointment.moved", language, slot=label)
    return await _view(desk, current, token, now, note=note)
