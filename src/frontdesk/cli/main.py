"""The root of the `frontdesk` command line: version, serve and demo, and every command
group mounted under its name."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from frontdesk import __version__
from frontdesk.cli.chat import chat_command, classify_command, graph_command
from frontdesk.cli.common import SitesDirOption, console, fail, settings_for, site_url
from frontdesk.cli.db import db_app
from frontdesk.cli.digest import digest_app
from frontdesk.cli.eval import eval_app
from frontdesk.cli.handoff import leads_app, worker_command
from frontdesk.cli.kb import kb_app
from frontdesk.cli.operators import operators_app
from frontdesk.cli.sites import sites_app
from frontdesk.cli.traces import traces_command
from frontdesk.settings import Settings, get_settings
from frontdesk.sites.registry import SiteConfigError

app = typer.Typer(
    name="frontdesk",
    help="Frontdesk: a self-hosted AI assistant for company websites.",
    no_args_is_help=True,
    rich_markup_mode="rich",
)
app.add_typer(sites_app, name="sites")
app.add_typer(db_app, name="db")
app.add_typer(digest_app, name="digest")
app.add_typer(eval_app, name="eval")
app.add_typer(kb_app, name="kb")
app.command("chat")(chat_command)
app.command("graph")(graph_command)
app.add_typer(leads_app, name="leads")
app.add_typer(operators_app, name="operators")
app.command("worker")(worker_command)
app.command("traces")(traces_command)
eval_app.command("classify")(classify_command)


@app.command()
def version() -> None:
    """Print the Frontdesk version."""
    console.print(f"frontdesk {__version__}")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to bind.")] = None,
    sites_dir: SitesDirOption = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Worker processes on the port, one per core (default: FRONTDESK_WORKERS, "
            "1); more than 1 needs FRONTDESK_REDIS_URL.",
        ),
    ] = None,
) -> None:
    """Start the HTTP API, widget and demo page (migrates the store first)."""
    import uvicorn

    from frontdesk.api.app import create_app
    from frontdesk.observability.logging import configure_logging

    settings = settings_for(sites_dir)
    options = {"host": host, "port": port, "workers": workers}
    settings = settings.model_copy(update={k: v for k, v in options.items() if v is not None})
    proxies = _proxy_options(settings)
    if settings.workers > 1:
        _serve_workers(settings)
        return
    configure_logging(settings.log_level, settings.log_json)
    try:
        application = create_app(settings)
        console.print(
            f"Frontdesk on [bold]{site_url(settings)}/[/] "
            f"(demo page), console at /console, API docs at /docs",
            soft_wrap=True,
        )
        uvicorn.run(application, host=settings.host, port=settings.port, log_config=None, **proxies)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc


def _proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy-header settings: X-Forwarded-For only from FRONTDESK_TRUSTED_PROXIES
    (none by default; see `frontdesk.api.proxies`)."""
    from frontdesk.api.proxies import server_options

    try:
        return server_options(settings)
    except ValueError as exc:
        raise fail(str(exc)) from exc


# A spawned worker must answer uvicorn's health ping while it imports Frontdesk and loads
# models on a busy machine; uvicorn's 5 s default would kill and respawn it in a loop.
WORKER_HEALTHCHECK_S = 30


def _serve_workers(settings: Settings) -> None:
    """`serve --workers N`: uvicorn's supervisor binds the port and spawns N workers, each
    building the app from the environment (`create_worker_app`)."""
    import asyncio
    import os

    import uvicorn

    from frontdesk.conversation.checkpoints import setup_checkpoints
    from frontdesk.observability.logging import configure_logging
    from frontdesk.runtime import build_runtime

    count = settings.workers
    if not settings.redis_url:
        # In-memory locks and limits would be per worker: two turns of one session could
        # run at once, and every limit would be N times too high.
        raise fail(
            f"--workers {count} needs FRONTDESK_REDIS_URL (e.g. redis://127.0.0.1:6379/0) "
            "to share session locks and rate limits between workers; set it, or use --workers 1"
        )
    _check_redis(settings.redis_url)
    configure_logging(settings.log_level, settings.log_json)
    try:
        # Once, before any worker starts: migrations, site validation and mirror, checkpoint
        # tables. Workers skip the migrations; their checkpointer's own setup runs again when
        # it opens, a no-op once the tables exist (CREATE … IF NOT EXISTS on SQLite, under an
        # advisory lock on PostgreSQL).
        build_runtime(settings).close()
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    asyncio.run(setup_checkpoints(settings))
    # Workers are spawned (fresh interpreters) and read Settings from the environment:
    # hand on what the command line changed.
    os.environ.update(
        FRONTDESK_SITES_DIR=str(settings.sites_dir.resolve()),
        FRONTDESK_HOST=settings.host,
        FRONTDESK_PORT=str(settings.port),
        FRONTDESK_WORKERS=str(count),
    )
    console.print(
        f"Frontdesk on [bold]{site_url(settings)}/[/] with {count} workers "
        f"(demo page), API docs at /docs",
        soft_wrap=True,
    )
    uvicorn.run(
        "frontdesk.api.app:create_worker_app",
        factory=True,
        workers=count,
        host=settings.host,
        port=settings.port,
        log_config=None,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
        **_proxy_options(settings),
    )


def _check_redis(url: str) -> None:
    try:
        from frontdesk.guard.redis import redis_sync_client

        client = redis_sync_client(url, timeout_s=5.0)
        try:
            client.ping()
        finally:
            client.close()
    except ImportError as exc:
        raise fail(f"FRONTDESK_REDIS_URL needs the redis package ({exc})") from exc
    except Exception as exc:  # connection refused, bad URL, auth: one line, no traceback
        raise fail(f"Redis (FRONTDESK_REDIS_URL) is not reachable: {exc}") from exc


@app.command()
def demo(
    serve_after: Annotated[
        bool, typer.Option("--serve/--no-serve", help="Start the server when ready.")
    ] = True,
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to bind.")] = None,
) -> None:
    """Prepare the bundled demo site (database, migrations, knowledge base), then serve it."""
    from frontdesk.demo_setup import prepare_demo

    options = {"host": host, "port": port}
    settings = get_settings()
    # The links printed here name the address the server is about to listen on.
    settings = settings.model_copy(update={k: v for k, v in options.items() if v is not None})
    try:
        prepare_demo(settings, console)
        _print_console_link(settings)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    if serve_after:
        serve(host=host, port=port, sites_dir=None)


def _print_console_link(settings: Settings) -> None:
    """The console's address, and while nobody can sign in yet, the link that creates
    the first owner (once; it expires in 7 days)."""
    from frontdesk.cli.operators import console_url, first_owner_link
    from frontdesk.runtime import build_runtime

    runtime = build_runtime(settings)
    try:
        link = first_owner_link(runtime)
    finally:
        runtime.close()
    console.print(f"Console: [bold]{console_url(settings)}[/]")
    if link:
        console.print("Create the first owner (one-time link):")
        console.print(f"  [bold]{link}[/]", soft_wrap=True)


def main() -> None:  # pragma: no cover - console entry point
    app()
