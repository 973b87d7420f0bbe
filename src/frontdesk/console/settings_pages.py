"""Site settings: the site file (shown, validated like `frontdesk sites validate`,
reloaded without a restart), the scheduled jobs, the team (roles, invitations) and admin
API tokens."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import INVITE_LIFETIME, ConsoleSite
from frontdesk.api.deps import ConsoleSiteDep, CsrfDep, RuntimeDep
from frontdesk.console.i18n import SOURCE_LOCALE, Messages
from frontdesk.console.schedules import site_schedules
from frontdesk.console.site_settings_form import (
    CONTACT_WAYS,
    TONES,
    SettingsForm,
    blank_form,
)
from frontdesk.console.templating import page_messages, render
from frontdesk.console.writes import in_transaction
from frontdesk.facts.agreement import hours_disagreements
from frontdesk.facts.model import SiteFacts
from frontdesk.leads.hours import (
    NeverOpensError,
    days_ahead,
    is_open,
    next_opening,
    schedule_lines,
)
from frontdesk.runtime import Runtime
from frontdesk.sites.editing import file_version, hide_secrets, restore_secrets
from frontdesk.sites.hours import BusinessHoursConfig
from frontdesk.sites.origins import allowed_origins
from frontdesk.sites.registry import LoadedSite, SiteConfigError, load_site_file
from frontdesk.sites.schema import SUPPORTED_LANGUAGES
from frontdesk.store.admin_tokens import AdminTokenRepository
from frontdesk.store.db import transaction
from frontdesk.store.operators import ROLES, OperatorRepository
from frontdesk.store.refusals import OriginRefusal, recent_refusals
from frontdesk.store.repositories import SiteRepository
from frontdesk.store.settings_audit import SettingsAuditRepository

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

Label = Annotated[str, Form(max_length=200)]


REFUSALS_SHOWN_FOR = timedelta(days=7)


def _team(runtime: Runtime, site_id: str) -> dict[str, Any]:
    with runtime.sessions() as session:
        operators = OperatorRepository(session)
        return {
            "members": [(op.email, op.id, role) for op, role in operators.members(site_id)],
            "invites": list(operators.pending_invites(site_id)),
            "tokens": list(AdminTokenRepository(session).list(site_id)),
        }


def refused_origins(runtime: Runtime, site: LoadedSite) -> list[OriginRefusal]:
    """Pages the site's widget refused lately (every replica's), less the origins the
    site allows by now (its file was fixed and reloaded)."""
    since = datetime.now(UTC) - REFUSALS_SHOWN_FOR
    with runtime.sessions() as session:
        refusals = recent_refusals(session, site.config.id, since)
    allowed = allowed_origins(site.config.widget, runtime.settings.served_origins)
    return [r for r in refusals if r.origin not in allowed]


UPCOMING_DAYS = 14


def opening_hours_view(
    config: BusinessHoursConfig,
    now: datetime,
    published: SiteFacts | None = None,
    t: Messages = Messages(SOURCE_LOCALE),
) -> dict[str, Any]:
    """The site's hours as every reader applies them, on the site's wall clock: the
    schedule, open or closed now, the next two weeks with holidays and closures, and the
    days on which the site publishes other hours (`published`: its facts). Dates are
    written the operator's way (CLDR: "Sat, Dec 5" / "Sa., 5. Dez.")."""
    from babel.dates import format_skeleton, format_time

    def moment(value: datetime) -> str:
        day = format_skeleton("yMMMEd", value, locale=t.locale)
        return f"{day}, {format_time(value, 'short', locale=t.locale)}"

    hours = config.hours()
    local_now = now.astimezone(hours.zone)
    try:
        opening: str | None = moment(next_opening(now, hours).astimezone(hours.zone))
    except NeverOpensError:
        opening = None
    notes = {
        "special": t.gettext("special hours"),
        "closed": t.gettext("closed (date)"),
        "weekly": "",
    }
    return {
        "timezone": config.timezone,
        "local_now": moment(local_now),
        "open_now": is_open(now, hours),
        "next_opening": opening,
        "lines": schedule_lines(hours),
        "warnings": config.warnings(),
        "disagreements": hours_disagreements(config.weekly_ranges(), published or SiteFacts()),
        "days": [
            (
                format_skeleton("MMMEd", day.day, locale=t.locale),
                ", ".join(str(r) for r in day.ranges) or t.gettext("closed"),
                day.note if day.kind == "holiday" else notes[day.kind],
            )
            for day in days_ahead(local_now.date(), UPCOMING_DAYS, hours)
        ],
    }


def site_settings_context(
    runtime: Runtime, site: ConsoleSite, form: SettingsForm | None = None
) -> dict[str, Any]:
    """The owner's settings form (from the site file on disk: what a save would change)
    and the audit of earlier changes (blocking: reads the file and the store)."""
    if not site.can("owner"):
        return {}
    with runtime.sessions() as session:
        changes = list(SettingsAuditRepository(session).recent(site.id))
    context: dict[str, Any] = {"settings_changes": changes, "languages_all": SUPPORTED_LANGUAGES}
    context |= {"tones": TONES, "contact_ways": CONTACT_WAYS}
    path = site.site.path
    try:
        text = path.read_text(encoding="utf-8")
        on_disk = load_site_file(path)
    except OSError as exc:  # a refused form (if any) stays shown: nothing typed is lost
        problem = f"{path}: cannot read file ({exc.strerror})"
        return context | {"site_form_problem": problem, "site_form": form}
    except SiteConfigError as exc:
        return context | {"site_form_problem": str(exc), "site_form": form}
    if form is None:
        form = blank_form(on_disk.config, file_version(text))
    # A file edited on disk but not reloaded yet: the form shows the file, so say so.
    context["file_differs"] = on_disk.config.model_dump() != site.site.config.model_dump()
    return context | {"site_form": form}


async def _page(
    request: Request, runtime: Runtime, site: ConsoleSite, status: int = 200, **extra: Any
) -> Response:
    path = site.site.path
    form_context = await run_in_threadpool(
        site_settings_context, runtime, site, extra.pop("site_form", None)
    )
    try:
        text = hide_secrets(path.read_text(encoding="utf-8")) if site.can("owner") else ""
    except OSError as exc:
        text = f"# cannot read {path}: {exc.strerror}"
    team = await run_in_threadpool(_team, runtime, site.id)
    refusals = await run_in_threadpool(refused_origins, runtime, site.site)
    schedules = await run_in_threadpool(
        site_schedules, runtime, site, page_messages(request, site.user)
    )
    published = await run_in_threadpool(_published_facts, request, site)
    return render(
        request,
        "settings.html",
        {
            "page": "settings",
            "path": str(path),
            "text": extra.pop("text", text),
            "roles": ROLES,
            "origin": runtime.settings.public_base_url,
            "refusals": refusals,
            "hours": opening_hours_view(
                site.site.config.business_hours,
                datetime.now(UTC),
                published,
                page_messages(request, site.user),
            ),
            "schedules": schedules,
            "jobs_here": runtime.settings.run_jobs,
            **form_context,
            **team,
            **extra,
        },
        site=site,
        status_code=status,
    )


def _published_facts(request: Request, site: ConsoleSite) -> SiteFacts:
    """The hours and other facts the site publishes, as answers use them (blocking)."""
    from frontdesk.api.ingestion import IngestionUnavailable, knowledge_base

    try:
        facts: SiteFacts = knowledge_base(request).site_facts(site.site.config)
    except IngestionUnavailable:
        return SiteFacts()
    return facts


@router.get("/settings")
async def settings_page(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    return await _page(request, runtime, site)


def validate_text(site: ConsoleSite, text: str) -> str | None:
    """The errors `frontdesk sites validate` prints for this text saved as the site's
    file (None: valid). Checked in a scratch folder; the real file is not touched.
    Secrets the page showed hidden are taken from the file as it is."""
    # An unreadable file: checked as pasted, so a hidden secret is refused by its field.
    with contextlib.suppress(OSError):
        text = restore_secrets(text, site.site.path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as scratch:
        candidate = Path(scratch) / site.site.path.name
        candidate.write_text(text, encoding="utf-8")
        try:
            load_site_file(candidate)
        except SiteConfigError as exc:
            return str(exc).replace(str(candidate), str(site.site.path))
    return None


@router.post("/settings/validate", dependencies=[CsrfDep])
async def validate(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    text: Annotated[str, Form(max_length=200_000)],
) -> Response:
    site.require("owner")
    problem = validate_text(site, text)
    return await _page(
        request,
        runtime,
        site,
        status=422 if problem else 200,
        text=text,
        validation=problem
        or page_messages(request, site.user).gettext("Valid: this file would load."),
        valid=problem is None,
    )


def reload_sites(runtime: Runtime, site_ids: Iterable[str]) -> None:
    """Read the files of `site_ids` again (an owner's sites; no other tenant's file is
    read, and its errors never show); all valid → they replace those served sites
    (mirrored into the store), else nothing changes and the error says which field."""
    served = dict(runtime.sites)
    reloaded = {site_id: load_site_file(served[site_id].path) for site_id in site_ids}
    taken = {
        site.config.widget.public_key: site_id
        for site_id, site in served.items()
        if site_id not in reloaded
    }
    for site_id, loaded in reloaded.items():
        other = taken.get(loaded.config.widget.public_key)
        if other is not None:
            raise SiteConfigError(
                f"{loaded.path}: widget.public_key: already used by another site; "
                "give this site its own key."
            )
        taken[loaded.config.widget.public_key] = site_id
    with transaction(runtime.sessions) as session:
        repo = SiteRepository(session)
        for loaded in reloaded.values():
            repo.upsert(loaded.config)
    runtime.sites = served | reloaded


@router.post("/settings/reload", dependencies=[CsrfDep])
async def reload(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    site.require("owner")
    owned = [
        site_id
        for site_id, role in site.user.roles.items()
        if role == "owner" and site_id in runtime.sites
    ]
    try:
        await run_in_threadpool(reload_sites, runtime, owned)
    except SiteConfigError as exc:
        return await _page(request, runtime, site, status=422, reload_error=str(exc))
    web = getattr(request.app.state, "web_sync", None)
    if web is not None:  # re-syncs (console, admin API) read the reloaded web sources
        web.sites = runtime.sites
    notice = page_messages(request, site.user).gettext(
        "Site files reloaded: %(sites)s.", sites=", ".join(sorted(owned))
    )
    return await _page(request, runtime, site, notice=notice)


@router.post("/settings/invite", dependencies=[CsrfDep])
async def invite(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    role: Annotated[str, Form(max_length=16)],
    email: Annotated[str, Form(max_length=320)] = "",
) -> Response:
    site.require("owner")
    if role not in ROLES:
        notice = page_messages(request, site.user).gettext("Choose a role.")
        return await _page(request, runtime, site, status=422, notice=notice)

    _row, token = await in_transaction(
        runtime,
        lambda session: OperatorRepository(session).invite(
            site.id, role, INVITE_LIFETIME, email.strip() or None
        ),
    )
    # From the configured address, never the request's Host header: a forged Host must
    # not turn the link an owner copies into one that hands the token to another server.
    link = f"{runtime.settings.public_base_url}/console/invite/{token}"
    return await _page(request, runtime, site, invite_link=link)


@router.post("/settings/members/{operator_id}/remove", dependencies=[CsrfDep])
async def remove_member(runtime: RuntimeDep, site: ConsoleSiteDep, operator_id: str) -> Response:
    site.require("owner")

    await in_transaction(
        runtime, lambda session: OperatorRepository(session).revoke(operator_id, site.id)
    )
    return RedirectResponse(f"/console/sites/{site.id}/settings#team", status_code=303)


@router.post("/settings/tokens", dependencies=[CsrfDep])
async def create_token(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, label: Label = ""
) -> Response:
    site.require("owner")

    _row, token = await in_transaction(
        runtime,
        lambda session: AdminTokenRepository(session).create(
            site.id, label.strip() or f"console ({site.user.email})"
        ),
    )
    return await _page(request, runtime, site, new_token=token)


@router.post("/settings/tokens/{token_id}/revoke", dependencies=[CsrfDep])
async def revoke_token(runtime: RuntimeDep, site: ConsoleSiteDep, token_id: str) -> Response:
    site.require("owner")

    await in_transaction(
        runtime, lambda session: AdminTokenRepository(session).revoke(site.id, token_id)
    )
    return RedirectResponse(f"/console/sites/{site.id}/settings#tokens", status_code=303)
