"""`frontdesk eval sites`: the product measured on other organisations' sites.

    frontdesk eval sites                       # CI sample of every site (`make test`)
    frontdesk eval sites --full                # every question and page (`make eval-full`)
    frontdesk eval sites --only covid-faq-en --json
    frontdesk eval sites --reads-meaning        # every site opts in to local_reads_meaning
    frontdesk eval sites --held-out --only covid-faq-en --everyday 1000
                                               # questions outside the CI sample, every page

Exit codes as the other eval commands: 0 every gate holds, 1 a gate is missed, 2 the
data is missing or unreadable.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontdesk.cli.common import settings_for


def eval_sites(
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Site id (repeatable; default: all).")
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="Every question and page, not the CI sample.")
    ] = False,
    held_out_: Annotated[
        bool,
        typer.Option(
            "--held-out",
            help="Every question outside the CI sample, every page (the CI sample's figures "
            "checked on questions they were not read from).",
        ),
    ] = False,
    everyday: Annotated[
        int | None,
        typer.Option(help="With --held-out: at most this many everyday requests per site."),
    ] = None,
    datasets_dir: Annotated[
        Path | None,
        typer.Option(help="The shared datasets folder (default: ../shared/datasets)."),
    ] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="Report folder.")] = Path(
        "reports"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="End with one JSON line.")] = False,
    acceptance: Annotated[
        bool,
        typer.Option(
            "--acceptance", help="Gate on the acceptance bar instead of each site's floors."
        ),
    ] = False,
    reads_meaning: Annotated[
        bool,
        typer.Option(
            "--reads-meaning",
            help="Every site opts in to engine.local_reads_meaning (measures the opt-in).",
        ),
    ] = False,
) -> None:
    """Answered / refused / abstention / everyday-request gates per site."""
    from frontdesk.evals.cross_site import run_site
    from frontdesk.evals.report import overall, print_summary, write_report
    from frontdesk.evals.sites import (
        ACCEPTANCE,
        CI_SAMPLE,
        FULL,
        SITES,
        SiteDataError,
        datasets_root,
        held_out,
        site_by_id,
    )

    errors = Console(stderr=True)
    root = datasets_dir or datasets_root()
    try:
        chosen = [site_by_id(s) for s in only] if only else list(SITES)
    except SiteDataError as exc:
        errors.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(code=2) from exc
    if not (root / "intent" / "clinc150").is_dir():
        errors.print(
            f"[bold red]error:[/] shared datasets not found at {root}; pass --datasets-dir "
            "or set FRONTDESK_DATASETS_DIR",
            highlight=False,
        )
        raise typer.Exit(code=2)
    settings = settings_for(None)
    if full and held_out_:
        errors.print("[bold red]error:[/] --full and --held-out exclude each other")
        raise typer.Exit(code=2)
    sample = FULL if full else held_out(everyday) if held_out_ else CI_SAMPLE
    results, items = [], []
    for site in chosen:
        try:
            result, dumped = asyncio.run(
                run_site(
                    site,
                    root,
                    sample,
                    settings,
                    errors,
                    ACCEPTANCE if acceptance else site.floors,
                    progress=not as_json,
                    reads_meaning=reads_meaning,
                )
            )
        except SiteDataError as exc:
            errors.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(code=2) from exc
        results.append(result)
        items += dumped
    meta = {
        "sites": ", ".join(s.id for s in chosen),
        "sample": "full" if full else "held out" if held_out_ else f"{sample}",
        "gates": "acceptance bar" if acceptance else "per-site floors",
        "local_reads_meaning": str(reads_meaning).lower(),
        "datasets": str(root),
    }
    report = write_report(output / "sites", "Frontdesk evaluation: sites", results, meta, items)
    print_summary(Console(), results, report)
    if as_json:
        print(json.dumps(overall(results), ensure_ascii=False, default=str), flush=True)
    if not all(result.passed for result in results):
        raise typer.Exit(code=1)
