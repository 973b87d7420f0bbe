"""The `frontdesk` command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from frontdesk import __version__
from frontdesk.settings import Settings, get_settings
from frontdesk.sites.registry import SiteConfigError, load_site_file, load_sites, site_files

app = typer.Typer(
    name="frontdesk",
    help="Frontdesk: a self-hosted AI assistant for company websites.",
    no_args_is_help=True,
    rich_markup_mode="rich",
)
sites_app = typer.Typer(help="Inspect and validate site (tenant) configuration files.")
db_app = typer.Typer(help="Manage the app store's schema.")
eval_app = typer.Typer(help="Evaluate retrieval, intents and routes on datasets.")
app.add_typer(sites_app, name="sites")
app.add_typer(db_app, name="db")
app.add_typer(eval_app, name="eval")


def _mount_feature_commands() -> None:
    # Feature modules own their commands; the top-level CLI only mounts them.
    from frontdesk.conversation.cli import chat_command, classify_command, graph_command
    from frontdesk.evals.cli import mount as mount_eval_commands
    from frontdesk.handoff.cli import leads_app, worker_command
    from frontdesk.knowledge.cli import kb_app
    from frontdesk.store.cli import retention_command, traces_command

    app.add_typer(kb_app, name="kb", help="Ingest, list, search and calibrate knowledge.")
    app.command("chat")(chat_command)
    app.command("graph")(graph_command)
    app.add_typer(leads_app, name="leads")
    app.command("worker")(worker_command)
    app.command("traces")(traces_command)
    db_app.command("retention")(retention_command)
    mount_eval_commands(eval_app)  # intent, routes, retrieval, ..., all (frontdesk.evals)
    eval_app.command("classify")(classify_command)


_mount_feature_commands()

console = Console()
err_console = Console(stderr=True)

SitesDirOption = Annotated[
    Path | None,
    typer.Option("--sites-dir", help="Folder of site YAML files (default: FRONTDESK_SITES_DIR)."),
]


def _settings(sites_dir: Path | None = None) -> Settings:
    base = get_settings()
    return base.model_copy(update={"sites_dir": sites_dir}) if sites_dir else base


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=1)


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

    settings = _settings(sites_dir)
    options = {"host": host, "port": port, "workers": workers}
    settings = settings.model_copy(update={k: v for k, v in options.items() if v is not None})
    if settings.workers > 1:
        _serve_workers(settings)
        return
    configure_logging(settings.log_level, settings.log_json)
    try:
        application = create_app(settings)
        console.print(
            f"Frontdesk on [bold]http://{settings.host}:{settings.port}/[/] "
            f"(demo page), API docs at /docs"
        )
        uvicorn.run(application, host=settings.host, port=settings.port, log_config=None)
    except SiteConfigError as exc:
        raise _fail(str(exc)) from exc


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
        raise _fail(
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
        raise _fail(str(exc)) from exc
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
        f"Frontdesk on [bold]http://{settings.host}:{settings.port}/[/] with {count} workers "
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
        raise _fail(f"FRONTDESK_REDIS_URL needs the redis package ({exc})") from exc
    except Exception as exc:  # connection refused, bad URL, auth: one line, no traceback
        raise _fail(f"Redis (FRONTDESK_REDIS_URL) is not reachable: {exc}") from exc


@app.command()
def demo(
    serve_after: Annotated[
        bool, typer.Option("--serve/--no-serve", help="Start the server when ready.")
    ] = True,
) -> None:
    """Prepare the bundled demo site (database, migrations, knowledge base), then serve it."""
    from frontdesk.demo_setup import prepare_demo

    settings = get_settings()
    try:
        prepare_demo(settings, console)
    except SiteConfigError as exc:
        raise _fail(str(exc)) from exc
    if serve_after:
        serve(host=None, port=None, sites_dir=None)


@sites_app.command("list")
def sites_list(sites_dir: SitesDirOption = None) -> None:
    """List the sites in the sites folder."""
    settings = _settings(sites_dir)
    try:
        sites = load_sites(settings.sites_dir)
    except SiteConfigError as exc:
        raise _fail(str(exc)) from exc
    table = Table("id", "name", "languages", "engine", "file")
    for site in sites.values():
        cfg = site.config
        table.add_row(cfg.id, cfg.name, ",".join(cfg.languages), cfg.engine.name, str(site.path))
    console.print(table)


@sites_app.command("show")
def sites_show(site_id: str, sites_dir: SitesDirOption = None) -> None:
    """Print one site's full configuration (with defaults filled in) as JSON."""
    settings = _settings(sites_dir)
    try:
        site = load_sites(settings.sites_dir).get(site_id)
    except SiteConfigError as exc:
        raise _fail(str(exc)) from exc
    if site is None:
        raise _fail(f"unknown site {site_id!r}")
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
        raise _fail(f"{target}: no site files (*.yaml) found")
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


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply schema migrations to the configured database (idempotent)."""
    from frontdesk.store import migrate
    from frontdesk.store.db import make_engine

    settings = get_settings()
    settings.ensure_dirs()
    engine = make_engine(settings.database_url)
    migrate.upgrade(engine)
    console.print(f"database at revision {migrate.current_revision(engine)}")
    engine.dispose()
    import asyncio

    from frontdesk.conversation.checkpoints import setup_checkpoints

    backend = asyncio.run(setup_checkpoints(settings))
    console.print(f"conversation checkpoints ready ({backend})")


def main() -> None:  # pragma: no cover - console entry point
    app()
