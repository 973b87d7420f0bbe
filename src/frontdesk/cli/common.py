"""What the command groups share: consoles, the --sites-dir option, settings, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontdesk.settings import Settings, get_settings

console = Console()
err_console = Console(stderr=True)

# The exit codes of `frontdesk eval`: a threshold missed (CI gates on it), an unusable input.
EXIT_FAILED = 1
EXIT_INPUT = 2

SitesDirOption = Annotated[
    Path | None,
    typer.Option("--sites-dir", help="Folder of site YAML files (default: FRONTDESK_SITES_DIR)."),
]


def settings_for(sites_dir: Path | None = None) -> Settings:
    """The process settings, with the sites folder of the command line if one was given."""
    base = get_settings()
    return base.model_copy(update={"sites_dir": sites_dir}) if sites_dir else base


def site_url(settings: Settings) -> str:
    """Where people open this server, for printed links: FRONTDESK_PUBLIC_URL when set,
    else the address `frontdesk serve` listens on (127.0.0.1 for every interface)."""
    return settings.public_base_url or settings.served_origins[0]


def fail(message: str) -> typer.Exit:
    """Print `error: message` on stderr; raise the returned exit (code 1)."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=1)
