"""`frontdesk kb crawl SITE [URL]`: learn a website (or re-sync the site's web sources)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from frontdesk.cli.common import SitesDirOption, console, err_console, fail
from frontdesk.knowledge.web.crawl import PageOutcome
from frontdesk.knowledge.web.sync import CrawlSummary
from frontdesk.store.trust import queue_after_sync

if TYPE_CHECKING:
    from frontdesk.knowledge.web.sync import SiteSync
    from frontdesk.sites.knowledge import WebSource

MAX_LISTED = 15  # failures listed one by one; the rest are counted by reason


def crawl_command(
    site_id: Annotated[str, typer.Argument(help="Site id (the name of its YAML file).")],
    url: Annotated[
        str | None,
        typer.Argument(
            help="Start URL: crawl it with the default rules (sitemap from robots.txt, same "
            "site only) and keep it as a source. Default: the site's web sources."
        ),
    ] = None,
    allow_private_network: Annotated[
        bool,
        typer.Option(
            "--allow-private-network",
            help="Allow addresses on private, loopback or link-local networks (intranets, "
            "a local `frontdesk serve`).",
        ),
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar while crawling.")] = True,
    sites_dir: SitesDirOption = None,
) -> None:
    """Crawl a website into the site's knowledge base (incremental: unchanged pages cost
    one conditional request; a crawl that fails halfway changes nothing)."""
    from pydantic import ValidationError

    from frontdesk.cli.kb import _open
    from frontdesk.knowledge.web import CrawlAborted, CrawlStore, site_sync, web_sources
    from frontdesk.sites.knowledge import WebSource

    site, kb = _open(site_id, sites_dir)
    engine = kb.index.engine  # type: ignore[attr-defined]
    store = CrawlStore(engine)
    if url:
        try:
            source = WebSource.model_validate(
                {"url": url, "allow_private_network": allow_private_network}
            )
        except ValidationError as exc:
            raise fail(f"{url!r} is not a web address ({exc.errors()[0]['msg']})") from exc
        sources = [source]
    else:
        sources = web_sources(site_id, site.config.knowledge, store)
        if allow_private_network:
            sources = [s.model_copy(update={"allow_private_network": True}) for s in sources]
        if not sources:
            raise fail(
                f"site {site_id!r} has no web sources; give a URL "
                f"(frontdesk kb crawl {site_id} https://example.com/) or add `- url: …` "
                "to knowledge.sources"
            )
    sync = site_sync(engine, kb, site.config, progress=progress)
    failed = False
    for source in sources:
        try:
            summary = asyncio.run(_crawl(sync, site_id, source, progress))
        except CrawlAborted as exc:
            err_console.print(
                f"[bold red]crawl of {source.start_url} failed:[/] {exc}\n"
                "nothing was changed: the previous knowledge base keeps serving",
                highlight=False,
            )
            failed = True
            continue
        if url:
            store.add_source(site_id, str(source.url), allow_private_network=allow_private_network)
        print_summary(summary)
        if summary.changed or summary.removed:  # serve (or the worker) re-runs the trust report
            queue_after_sync(engine, site_id)
        failed = failed or bool(summary.failed and not (summary.changed or summary.unchanged))
    if failed:
        raise typer.Exit(code=1)


async def _crawl(sync: SiteSync, site_id: str, source: WebSource, progress: bool) -> CrawlSummary:
    with Progress(
        TextColumn("[bold]crawling[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not progress,
    ) as bar:
        task = bar.add_task(source.start_url, total=0, counts="")
        counts = {"changed": 0, "unchanged": 0, "failed": 0}

        def on_progress(event: str, outcome: PageOutcome | None) -> None:
            if event == "found":
                bar.update(task, total=(bar.tasks[0].total or 0) + 1)
                return
            if outcome is not None:
                key = "failed" if outcome.status in ("failed", "gone") else outcome.status
                counts[key] = counts.get(key, 0) + 1
            text = f"{counts['changed']} new/changed · {counts['unchanged']} unchanged"
            bar.update(task, advance=1, counts=text + f" · {counts['failed']} failed")

        return await sync.sync(site_id, source, trigger="cli", on_progress=on_progress)


def print_summary(summary: CrawlSummary, out: Console = console) -> None:
    """The crawl's summary: counts, then why pages failed (listed, then grouped)."""
    table = Table(title=f"{summary.source_url} in {summary.seconds:.1f} s", show_header=True)
    for column in ("found", "fetched", "unchanged", "changed", "removed", "skipped", "failed"):
        table.add_column(column, justify="right")
    table.add_row(
        *(
            str(value)
            for value in (
                summary.found,
                summary.fetched,
                summary.unchanged,
                summary.changed,
                summary.removed,
                len(summary.skipped),
                len(summary.failed),
            )
        )
    )
    out.print(table)
    out.print(f"{summary.chunks_embedded} chunks embedded")
    for url, reason in sorted(summary.failed.items())[:MAX_LISTED]:
        out.print(f"[red]failed[/] {url}: {reason}", highlight=False)
    rest = list(summary.failed.values())[MAX_LISTED:]
    if rest:
        out.print(f"… and {len(rest)} more failures")
    reasons: dict[str, int] = {}
    for reason in summary.skipped.values():
        key = reason.split(" ", 1)[0] if reason.startswith(("canonical", "duplicate")) else reason
        key = "redirects" if reason.startswith("redirects to") else key
        reasons[key] = reasons.get(key, 0) + 1
    if reasons:
        out.print(
            "skipped: "
            + ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items()))
        )
