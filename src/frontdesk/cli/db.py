"""`frontdesk db upgrade | retention`: the app store's schema and its retention job."""

from __future__ import annotations

import asyncio

import typer

from frontdesk.cli.common import console
from frontdesk.settings import get_settings

db_app = typer.Typer(help="Manage the app store's schema.")


@db_app.command("retention")
def retention_command() -> None:
    """Delete conversations, checkpoints, traces and events past each site's retention
    (`privacy.retention_days`), except sessions tied to a lead. `frontdesk serve` (or
    `frontdesk worker`) runs this every hour; run it once here (e.g. from cron)."""
    from frontdesk.retention import retention_once
    from frontdesk.runtime import build_runtime

    runtime = build_runtime()
    try:
        report = asyncio.run(retention_once(runtime))
    finally:
        runtime.close()
    console.print(
        f"deleted {report.conversations} conversations, {report.traces} traces, "
        f"{report.events} events, {report.checkpoints} checkpoint threads; "
        f"kept {report.kept_for_leads} tied to leads"
    )


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply schema migrations to the configured database (idempotent)."""
    from frontdesk.conversation.checkpoints import setup_checkpoints
    from frontdesk.store import migrate
    from frontdesk.store.db import make_engine

    settings = get_settings()
    settings.ensure_dirs()
    engine = make_engine(settings.database_url)
    migrate.upgrade(engine)
    console.print(f"database at revision {migrate.current_revision(engine)}")
    engine.dispose()
    backend = asyncio.run(setup_checkpoints(settings))
    console.print(f"conversation checkpoints ready ({backend})")
