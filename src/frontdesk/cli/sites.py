"""`frontdesk sites list | show | validate`: the site (tenant) configuration files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from frontdesk.cli.common import SitesDirOption, console, err_console, fail, settings_for
from frontdesk.settings import get_settings
from frontdesk.sites.registry import SiteConfigError, load_site_file, load_sites, site_files

sites_app = typer.Typer(help="Inspect and validate site (tenant) configuration files.")


@sites_app.command("list")
def sites_list(sites_dir: SitesDirOption = None) -> None:
    """List the sites in the sites folder."""
    settings = settings_for(sites_dir)
    try:
        sites = load_sites(settings.sites_dir)
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
        site = load_sites(settings.sites_dir).get(site_id)
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
    if problems:
        raise typer.Exit(code=1)
