"""`frontdesk worker` (delivery and the scheduled jobs as a process of their own)
and `frontdesk leads list SITE`."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from frontdesk.cli.common import SitesDirOption, console, err_console, fail, settings_for
from frontdesk.sites.registry import SiteConfigError

leads_app = typer.Typer(help="Leads captured by the assistant (the CRM table).")

UNVERIFIED_NOTE = "email, name, company (unverified): typed by the visitor, not checked"


def claimed(value: str | None, unverified: bool) -> Text:
    """A lead column as the visitor typed it: plain text (never Rich markup, so
    "[bold]Globex[/bold]" shows as typed), marked unverified when it is the visitor's word."""
    if not value:
        return Text("")
    text = Text(value)
    if unverified:
        text.append(" (unverified)", style="yellow")
    return text


def worker_command(
    once: Annotated[
        bool, typer.Option("--once", help="One attempt for every row due now, then exit.")
    ] = False,
    drain: Annotated[
        bool,
        typer.Option("--drain", help="Deliver until nothing is pending (retries included)."),
    ] = False,
    sites_dir: SitesDirOption = None,
) -> None:
    """Deliver handoffs (Slack, CRM, webhooks, fallback email) from the outbox,
    re-sync web sources on their schedules and run queued trust reports.

    Runs until interrupted; rows left pending by a stopped or crashed process are
    picked up here. `frontdesk serve` runs all of this itself by default; use the worker
    when the API runs with FRONTDESK_RUN_JOBS=false and FRONTDESK_DISPATCH_IN_PROCESS=false.
    """
    from frontdesk.handoff.dispatcher import Dispatcher
    from frontdesk.observability.logging import configure_logging
    from frontdesk.runtime import build_runtime

    settings = settings_for(sites_dir)
    configure_logging(settings.log_level, settings.log_json)
    try:
        runtime = build_runtime(settings)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    if not settings.smtp_host:
        err_console.print(
            "[yellow]warning:[/] FRONTDESK_SMTP_HOST is not set: fallback emails cannot be sent"
        )

    async def work() -> None:
        dispatcher = Dispatcher(runtime)
        try:
            if once:
                await dispatcher.run_once()
            elif drain:
                await dispatcher.drain(timeout_s=3600)
            else:
                stop = asyncio.Event()
                loop = asyncio.get_running_loop()
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.add_signal_handler(sig, stop.set)
                console.print(
                    "dispatcher, retention job, crawl and digest schedules running; Ctrl-C to stop"
                )
                # Every scheduled job beside delivery, as `frontdesk serve` runs them
                # (FRONTDESK_RUN_JOBS): re-syncs (here in this process: it is the worker),
                # trust reports, retention, the digest; each once per period across
                # processes. And the replay of turns spooled while the store could not write.
                from frontdesk.api.ingestion import open_knowledge_base
                from frontdesk.conversation.replay import spool_replays
                from frontdesk.jobs import start_jobs
                from frontdesk.knowledge.web.service import WebSync
                from frontdesk.site_follow import follow_site_changes

                knowledge = open_knowledge_base(runtime)
                web = WebSync(
                    runtime.engine,
                    runtime.sites,
                    knowledge=knowledge,
                    redis_url=settings.redis_url,
                    redis_prefix=settings.redis_prefix,
                    lease_ttl_s=settings.job_lease_s,
                )
                jobs = start_jobs(runtime, web, knowledge)
                replays = asyncio.create_task(spool_replays(runtime, stop))
                # Site settings saved in the console reach this process's deliveries and
                # re-syncs (frontdesk.site_follow).
                follower = (
                    asyncio.create_task(
                        follow_site_changes(
                            runtime,
                            settings.sites_follow_s,
                            lambda: setattr(web, "sites", runtime.sites),
                        )
                    )
                    if settings.sites_follow_s > 0
                    else None
                )
                await dispatcher.run(stop)
                await replays
                if follower is not None:
                    follower.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await follower
                await jobs.aclose()
        finally:
            await dispatcher.aclose()
        stats = dispatcher.stats
        console.print(
            f"attempts {stats.attempts}, delivered {stats.delivered}, retries scheduled "
            f"{stats.retried}, failed {stats.failed}, fallback emails queued {stats.fallbacks}"
        )

    try:
        asyncio.run(work())
    finally:
        runtime.close()


@leads_app.command("list")
def leads_list(
    site_id: Annotated[str, typer.Argument(help="Site id.")],
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="Newest first.")] = 50,
    sites_dir: SitesDirOption = None,
) -> None:
    """List a site's leads, newest first."""
    from frontdesk.handoff.packets import LEAD_UNVERIFIED_COLUMNS, UNVERIFIED
    from frontdesk.runtime import build_runtime
    from frontdesk.store.handoffs import LeadRepository

    settings = settings_for(sites_dir)
    try:
        runtime = build_runtime(settings)
        runtime.site(site_id)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    try:
        with runtime.sessions() as session:
            leads = LeadRepository(session).list(site_id, limit=limit)
            table = Table(
                "created (UTC)",
                "level",
                "reason",
                "context",
                "email",
                "name",
                "company",
                "session",
                "id",
                title=f"Leads of {site_id} ({len(leads)})",
                caption=UNVERIFIED_NOTE if leads else None,
            )
            for lead in leads:
                # The row names the columns that hold the visitor's word; a row written
                # before rows said so holds nothing else in them.
                marked = (lead.details or {}).get(UNVERIFIED) or LEAD_UNVERIFIED_COLUMNS
                table.add_row(
                    lead.created_at.strftime("%Y-%m-%d %H:%M"),
                    lead.level,
                    Text(lead.reason or ""),
                    Text(lead.capture_context or ""),
                    *(claimed(getattr(lead, c), c in marked) for c in ("email", "name", "company")),
                    lead.session_id,
                    lead.id,
                )
        console.print(table)
    finally:
        runtime.close()
