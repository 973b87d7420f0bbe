"""`frontdesk sites list | show | validate | token`: site (tenant) configuration files and
per-site admin tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from frontdesk.cli.common import SitesDirOption, console, err_console, fail, settings_for
from frontdesk.facts.agreement import hours_disagreements
from frontdesk.facts.model import SiteFacts
from frontdesk.leads.hours import schedule_lines
from frontdesk.settings import get_settings
from frontdesk.sites.hours import BusinessHoursConfig
from frontdesk.sites.registry import (
    SiteConfigError,
    deployment_sites,
    load_site_file,
    site_files,
)
from frontdesk.sites.schema import SiteConfig

if TYPE_CHECKING:
    from frontdesk.runtime import Runtime

sites_app = typer.Typer(help="Inspect and validate site (tenant) configuration files.")


@sites_app.command("list")
def sites_list(sites_dir: SitesDirOption = None) -> None:
    """List the sites in the sites folder."""
    settings = settings_for(sites_dir)
    try:
        sites = deployment_sites(settings)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    table = Table("id", "name", "languages", "engine", "file")
    for site in sites.values():
        cfg = site.config
        table.add_row(cfg.id, cfg.name, ",".join(cfg.languages), cfg.engine.name, str(site.path))
    console.print(table)


@sites_app.command("show")
def sites_show(site_id: str, sites_dir: SitesDirOption = None) -> None:
    """Print one site's full configuration (with defaults filled in) as JSON."""
    settings = settings_for(sites_dir)
    try:
        site = deployment_sites(settings).get(site_id)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    if site is None:
        raise fail(f"unknown site {site_id!r}")
    console.print_json(json.dumps(site.config.model_dump(mode="json")))


@sites_app.command("validate")
def sites_validate(
    path: Annotated[
        Path | None, typer.Argument(help="A site file or folder (default: the sites folder).")
    ] = None,
) -> None:
    """Validate site files; exit 1 naming the file and field of the first problem in each."""
    target = path or get_settings().sites_dir
    files = [target] if target.is_file() else site_files(target) if target.is_dir() else []
    if not files:
        raise fail(f"{target}: no site files (*.yaml) found")
    problems = 0
    for file in files:
        try:
            site = load_site_file(file)
        except SiteConfigError as exc:
            problems += 1
            err_console.print(f"[red]✗[/] {exc}", highlight=False)
        else:
            console.print(f"[green]✓[/] {file} ({site.config.id}: {site.config.name})")
            print_tone(site.config)
            print_opening_hours(site.config.business_hours, published_facts(site.config))
            if site.config.calendar is not None and not check_calendar(site.config):
                problems += 1
    if problems:
        raise typer.Exit(code=1)


_TONE_WORDS = {
    "formal": "Sie, vous, usted, Lei, вы, u, o senhor",
    "informal": "du, tu, tú, tu, ты, je, você",
}


def print_tone(config: SiteConfig) -> None:
    """How the assistant addresses visitors, and the site's own texts that say otherwise."""
    console.print(f"  Tone: {config.tone} ({_TONE_WORDS[config.tone]})", highlight=False)
    for warning in config.tone_warnings():
        err_console.print(f"  [yellow]![/] {warning}", highlight=False)


def published_facts(config: SiteConfig) -> SiteFacts:
    """What the site publishes (its facts and the team's corrections) in this deployment's
    store; nothing when there is no store yet (validating creates nothing)."""
    from sqlalchemy.exc import SQLAlchemyError

    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.store.db import make_engine

    url = get_settings().database_url
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return SiteFacts()
    engine = make_engine(url)
    try:
        return KnowledgeBase(engine).site_facts(config)
    except SQLAlchemyError:  # a store not migrated yet has no facts to compare
        return SiteFacts()
    finally:
        engine.dispose()


def print_opening_hours(config: BusinessHoursConfig, published: SiteFacts | None = None) -> None:
    """The hours as Frontdesk reads them, the ones that look like a typo, and the days on
    which the site publishes other hours than the site file's."""
    console.print(f"  Opening hours ({config.timezone}):", highlight=False)
    for label, value in schedule_lines(config.hours()):
        console.print(f"    {label:<10} {value}", highlight=False)
    for warning in config.warnings():
        err_console.print(f"  [yellow]![/] business_hours: {warning}", highlight=False)
    for line in hours_disagreements(config.weekly_ranges(), published or SiteFacts()):
        err_console.print(f"  [yellow]![/] business_hours: {line}", highlight=False)


def check_calendar(config: SiteConfig) -> bool:
    """Sign in to the site's CalDAV calendar: a wrong URL, user or password is found now,
    not when the first visitor wants an appointment."""
    from frontdesk.appointments.calendar import CalendarError, calendar_for_site

    assert config.calendar is not None
    try:
        name = calendar_for_site(config).check()
    except CalendarError as exc:
        err_console.print(f"  [red]✗[/] calendar: {exc}", highlight=False)
        return False
    except ImportError:
        err_console.print(
            "  [red]✗[/] calendar: the CalDAV client is not installed; "
            "pip install 'frontdesk[calendar]'",
            highlight=False,
        )
        return False
    kinds = ", ".join(kind.id for kind in config.calendar.appointment_types)
    console.print(f"  Calendar: {name} ({config.calendar.url}); appointments: {kinds}")
    return True


token_app = typer.Typer(help="Per-site admin tokens (stored only as their SHA-256).")
sites_app.add_typer(token_app, name="token")


def _runtime_with_site(site_id: str, sites_dir: Path | None) -> Runtime:
    from frontdesk.runtime import build_runtime

    try:
        runtime = build_runtime(settings_for(sites_dir))
        runtime.site(site_id)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    return runtime


@token_app.command("create")
def token_create(
    site_id: Annotated[str, typer.Argument(help="Site id.")],
    label: Annotated[str, typer.Option(help="What the token is for (shown by list).")] = "",
    sites_dir: SitesDirOption = None,
) -> None:
    """Create an admin token for one site's admin routes and print it once."""
    from frontdesk.store.admin_tokens import AdminTokenRepository
    from frontdesk.store.db import transaction

    runtime = _runtime_with_site(site_id, sites_dir)
    try:
        with transaction(runtime.sessions) as session:
            row, token = AdminTokenRepository(session).create(site_id, label)
            token_id = row.id
    finally:
        runtime.close()
    err_console.print(
        f"Admin token {token_id} for site {site_id!r}: shown once, stored only as its "
        "SHA-256. Send it as 'Authorization: Bearer <token>' to /v1/admin/sites/"
        f"{site_id}/…",
        highlight=False,
        soft_wrap=True,
    )
    print(token)


@token_app.command("list")
def token_list(
    site_id: Annotated[str, typer.Argument(help="Site id.")], sites_dir: SitesDirOption = None
) -> None:
    """List a site's admin tokens (ids and labels; the tokens themselves are not kept)."""
    from frontdesk.store.admin_tokens import AdminTokenRepository

    runtime = _runtime_with_site(site_id, sites_dir)
    try:
        with runtime.sessions() as session:
            table = Table("label", "created (UTC)", "revoked (UTC)")
            table.add_column("id", no_wrap=True)  # copied into `revoke`: never wrapped
            for row in AdminTokenRepository(session).list(site_id):
                table.add_row(
                    row.label,
                    row.created_at.strftime("%Y-%m-%d %H:%M"),
                    row.revoked_at.strftime("%Y-%m-%d %H:%M") if row.revoked_at else "",
                    row.id,
                )
    finally:
        runtime.close()
    console.print(table)


@token_app.command("revoke")
def token_revoke(
    site_id: Annotated[str, typer.Argument(help="Site id.")],
    token_id: Annotated[str, typer.Argument(help="Token id (from `list`).")],
    sites_dir: SitesDirOption = None,
) -> None:
    """Revoke one admin token of a site; it stops working at once."""
    from frontdesk.store.admin_tokens import AdminTokenRepository
    from frontdesk.store.db import transaction

    runtime = _runtime_with_site(site_id, sites_dir)
    try:
        with transaction(runtime.sessions) as session:
            revoked = AdminTokenRepository(session).revoke(site_id, token_id)
    finally:
        runtime.close()
    if not revoked:
        raise fail(f"no live token {token_id!r} for site {site_id!r}")
    console.print(f"revoked {token_id}")
