"""Rendering console pages: one Jinja2 environment, the page chrome's context, and the
Content-Security-Policy (scripts and styles from our own static files only)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.responses import HTMLResponse

from frontdesk.api.console_access import CSRF_FIELD, CSRF_HEADER, ConsoleSite, ConsoleUser
from frontdesk.console.i18n import (
    CONSOLE_LOCALES,
    N_,
    ROLE_NAMES,
    SOURCE_LOCALE,
    Messages,
    console_locale,
    language_name,
    script_texts,
    translations,
)
from frontdesk.console.links import link, mail_link
from frontdesk.handoff.packets import contact_tag
from frontdesk.handoff.wording import HandoffCard, handoff_card

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

CONSOLE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

templates = Jinja2Templates(
    env=Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=True, extensions=["jinja2.ext.i18n"]
    )
)
# `{% trans %}` blocks are whitespace-normalised, so a reflowed template keeps its msgids.
templates.env.policies["ext.i18n.trimmed"] = True


def operator_locale(request: Request | None, chosen: str | None = None) -> str:
    """The operator's language for text, dates and numbers: their own choice, else the
    browser's Accept-Language (CLDR's negotiation via Babel), else English."""
    header = request.headers.get("accept-language", "") if request is not None else ""
    return console_locale(header, chosen)


def _page_locale(context: Context) -> str:
    # A template rendered outside `render` (a test, a fragment) reads the source language.
    locale = context.get("locale")
    return locale if isinstance(locale, str) else SOURCE_LOCALE


@pass_context
def _gettext(context: Context, message: str) -> str:
    return translations(_page_locale(context)).gettext(message)


@pass_context
def _ngettext(context: Context, singular: str, plural: str, count: int) -> str:
    return translations(_page_locale(context)).ngettext(singular, plural, count)


# New-style gettext: `_("%(count)s turns", count=n)` formats and escapes in one step.
templates.env.install_gettext_callables(  # type: ignore[attr-defined]
    _gettext, _ngettext, newstyle=True
)


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
    return format_when(value, zone, _page_locale(context))


@pass_context
def _handoff_card(context: Context, data: Any) -> HandoffCard:
    """A handoff's JSON as a readable card (contact, what happened, question, last answer)
    in the page's language (the handoff texts speak all of the console's), with times on
    the site's clock."""
    site = context.get("site")
    zone = site.site.config.business_hours.timezone if site is not None else "UTC"
    return handoff_card(data if isinstance(data, dict) else {}, _page_locale(context), zone)


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
# The console's words for the handoff package's contact tags (its keys are the statuses).
CONTACT_TAG_TEXT = {
    "asked": N_("no contact: asked, no answer"),
    "declined": N_("no contact: visitor declined"),
    "not_asked": N_("no contact"),
}


# ...and for what each contact status means (the packet stores the English note).
CONTACT_NOTE_TEXT = {
    "provided": N_("The visitor left a way to reach them."),
    "asked": N_("No contact: the visitor was asked how to be reached and has not answered."),
    "declined": N_("No contact, visitor declined: asked how to be reached, they chose not to say."),
    "not_asked": N_("No contact: the visitor was not asked how to be reached."),
}


@pass_context
def _contact_note(context: Context, status: object) -> str:
    message = CONTACT_NOTE_TEXT.get(str(status or ""))
    return translations(_page_locale(context)).gettext(message) if message else ""


@pass_context
def _contact_tag(context: Context, status: object) -> str:
    """A lead or handoff that carries no way to reach the visitor says so, and why."""
    if not contact_tag(status):
        return ""
    key = str(status)
    return translations(_page_locale(context)).gettext(CONTACT_TAG_TEXT.get(key, key))


@pass_context
def _unverified(context: Context) -> Markup:
    """Beside every value the visitor typed (a lead's name, e-mail, company, answers)."""
    text = translations(_page_locale(context))
    return Markup('<span class="tag unverified" title="{}">{}</span>').format(
        text.gettext("Typed by the visitor; not verified"), text.gettext("unverified")
    )


templates.env.filters["contact_tag"] = _contact_tag
templates.env.filters["contact_note"] = _contact_note
templates.env.globals["unverified_tag"] = _unverified
templates.env.globals["role_names"] = ROLE_NAMES


def _this_page(request: Request) -> str:
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def page_messages(request: Request, user: ConsoleUser | None) -> Messages:
    """Messages built in Python for a page, in the language that page is rendered in."""
    return Messages(operator_locale(request, user.language if user else None))


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
    locale = operator_locale(request, user.language if user else None)
    page: dict[str, Any] = {
        "locale": locale,
        "languages_offered": [(code, language_name(code)) for code in CONSOLE_LOCALES],
        "script_texts": script_texts(locale),
        # Where a language change returns to: this page, unless it is an error page (whose
        # address may name something the operator may not see; it is never echoed).
        "return_to": _this_page(request) if status_code < 400 else "/console",
        "user": user,
        "site": site,
        # The site's console address: its pages' links start with it.
        "base": f"/console/sites/{site.id}" if site else "",
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
