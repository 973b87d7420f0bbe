"""Preparing the bundled demo site: store, migrations, and its knowledge base."""

from __future__ import annotations

from rich.console import Console

from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings


def prepare_demo(settings: Settings, console: Console) -> None:
    """Create and migrate the database, mirror the sites, ingest knowledge when empty."""
    runtime = build_runtime(settings)
    try:
        console.print(f"[green]✓[/] database ready: {settings.database_url}")
        for site in runtime.sites.values():
            console.print(f"[green]✓[/] site [bold]{site.config.id}[/] ({site.config.name})")
        console.print(
            "[yellow]•[/] knowledge ingestion is not available yet "
            "(it arrives with the knowledge base feature)"
        )
    finally:
        runtime.close()
