"""Rendering console pages: one Jinja2 environment, the page chrome's context, and the
Content-Security-Policy (scripts and styles from our own static files only)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.responses import HTMLResponse

from frontdesk.api.console_access import CSRF_FIELD, CSRF_HEADER, ConsoleSite, ConsoleUser
from frontdesk.console.links import link, mail_link
from frontdesk.handoff.packets import contact_tag
from frontdesk.handoff.wording import HandoffCard, handoff_card

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

CONSOLE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

templates = Jinja2Templates(directory=str(TEMPLATES))
# Strings in templates are written `{{ _("...") }}`, ready for the console's catalogs.
templates.env.add_extension("jinja2.ext.i18n")
templates.env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]


# The languages the console formats dates for (the widget's), the first the default.
CONSOLE_LOCALES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru")


def operator_locale(request: Request | None) -> str:
    """The operator's language for dates and numbers, from the browser's Accept-Language
    (CLDR's negotiation via Babel), English when none of the console's is asked for."""
    from babel import Locale

    header = request.headers.get("accept-language", "") if request is not None else ""
    preferred = [part.split(";")[0].strip().replace("-", "_") for part in header.split(",")]
    chosen = Locale.negotiate([p for p in preferred if p], CONSOLE_LOCALES, sep="_")
    return str(chosen) if chosen is not None else CONSOLE_LOCALES[0]


def format_when(value: datetime | None, zone: str, locale: str) -> str:
    """`value` on the site's wall clock, in the operator's date and time format, labelled
    with the zone's abbreviation ("01.12.2026, 23:52 CET"; a stored time without zone is
    UTC)."""
    from zoneinfo import ZoneInfo

    from babel.dates import format_date, format_time

    if value is None:
        return ""
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    local = aware.astimezone(ZoneInfo(zone))
    day = format_date(local, "medium", locale=locale)
    return f"{day}, {format_time(local, 'short', locale=locale)} {local.tzname()}"


@pass_context
def _when(context: Context, value: datetime | None) -> str:
    """Times on a site's pages in that site's timezone; elsewhere UTC."""
    site = context.get("site")
    zone = site.site.config.business_hours.timezone if site is not None else "UTC"
    return format_when(value, zone, operator_locale(context.get("request")))


# The console's own words are English; the card of a handoff speaks the same language.
CARD_LANGUAGE = "en"


@pass_context
def _handoff_card(context: Context, data: Any) -> HandoffCard:
    """A handoff's JSON as a readable card (contact, what happened, question, last answer),
    with times on the site's clock."""
    site = context.get("site")
    zone = site.site.config.business_hours.timezone if site is not None else "UTC"
    return handoff_card(data if isinstance(data, dict) else {}, CARD_LANGUAGE, zone)


def _pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _settings_value(value: Any) -> str:
    """A setting's value in the audit: lists as lines' worth of text, nothing as a dash."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_settings_value(item)}" for key, item in value.items())
    return str(value)


templates.env.filters["when"] = _when
templates.env.filters["settings_value"] = _settings_value
templates.env.filters["pretty_json"] = _pretty_json
templates.env.filters["handoff_card"] = _handoff_card
# Every address the team did not write itself (a visitor's page and referrer, a document's
# front-matter url, a lead's e-mail) is rendered through these: only http(s) (or a plain
# e-mail address) becomes a link; `javascript:` and the like stay text.
templates.env.filters["link"] = link
templates.env.filters["mail_link"] = mail_link
# A lead or handoff that carries no way to reach the visitor says so, and why.
templates.env.filters["contact_tag"] = contact_tag
# Beside every value the visitor typed (a lead's name, e-mail, company, form answers).
templates.env.globals["unverified"] = Markup(
    '<span class="tag unverified" title="Typed by the visitor; not verified">unverified</span>'
)


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    user: ConsoleUser | None = None,
    site: ConsoleSite | None = None,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """A page (or an htmx fragment) with the chrome's context: who, which site, CSRF."""
    user = user or (site.user if site else None)
    runtime = getattr(request.app.state, "runtime", None)
    sites = runtime.sites if runtime is not None else {}
    visible = [
        (site_id, sites[site_id].config.name)
        for site_id in sorted(user.roles if user else {})
        if site_id in sites
    ]
    page: dict[str, Any] = {
        "user": user,
        "site": site,
        "sites": visible,
        "csrf_field": CSRF_FIELD,
        "csrf_token": user.csrf_token if user else "",
        "csrf_header": CSRF_HEADER,
        **context,
    }
    response = templates.TemplateResponse(
        request, name, page, status_code=status_code, headers=headers
    )
    response.headers["Content-Security-Policy"] = CONSOLE_CSP
    response.headers["Cache-Control"] = "no-store"
    return response
