"""`frontdesk eval trust SITE`: the site's trust report, stored for the trend.

    frontdesk eval trust demo                    # a configured site: its served index
    frontdesk eval trust nih-health-en           # a development site of `eval sites`
    frontdesk eval trust demo --questions 20 --json

Exit codes: 0 the report ran, 1 it could not run (already running, a failure), 2 the
site or its data is missing. The figures are not gated: the report describes, the
team decides (see docs/trust.md).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from frontdesk.cli.common import EXIT_FAILED, EXIT_INPUT, SitesDirOption, settings_for

EngineChoice = Literal["auto", "local", "llm"]
T = TypeVar("T")


def eval_trust(
    site: Annotated[str, typer.Argument(help="Site id (configured, or an `eval sites` id).")],
    questions: Annotated[
        int, typer.Option("--questions", "-n", min=3, help="Questions in all (55 % generated).")
    ] = 54,
    engine: Annotated[
        str,
        typer.Option(
            help="Who writes the questions: local (headings and sentences), llm (the site's "
            "model), auto (llm when the site uses one)."
        ),
    ] = "auto",
    pages: Annotated[
        int, typer.Option(min=1, help="Pages of a development site's corpus to index.")
    ] = 150,
    output: Annotated[Path, typer.Option("--output", "-o", help="Report folder.")] = Path(
        "reports"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="End with one JSON line.")] = False,
    datasets_dir: Annotated[
        Path | None, typer.Option(help="The shared datasets folder (development sites).")
    ] = None,
    sites_dir: SitesDirOption = None,
) -> None:
    """Questions from the site's own pages, unanswerable and off-topic probes, through the
    real graph: answered / grounded / abstained / refused, with examples and the trend."""
    from frontdesk.evals.trust import ReportError
    from frontdesk.runtime import build_runtime
    from frontdesk.sites.registry import SiteConfigError
    from frontdesk.store.trust import TrustStore

    errors = Console(stderr=True)
    if engine not in ("auto", "local", "llm"):
        errors.print(f"[bold red]error:[/] --engine must be auto, local or llm, not {engine!r}")
        raise typer.Exit(code=EXIT_INPUT)
    settings = settings_for(sites_dir)
    try:
        runtime = build_runtime(settings)
    except SiteConfigError as exc:
        errors.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(code=EXIT_INPUT) from exc
    from frontdesk.evals.sites import SITES

    known = [*runtime.sites, *(s.id for s in SITES)]
    if site not in known:
        runtime.close()
        errors.print(f"[bold red]error:[/] unknown site {site!r} (known: {', '.join(known)})")
        raise typer.Exit(code=EXIT_INPUT)
    store = TrustStore(runtime.engine)
    try:
        store.fail_stale()  # a run whose process died does not hold the site
        run_id = store.start(site, "cli")
        if run_id is None:
            errors.print(f"[bold red]error:[/] a trust report of {site} is already running")
            raise typer.Exit(code=EXIT_FAILED)
        try:
            work = _run(runtime, site, questions, engine, pages, datasets_dir, errors, not as_json)
            report = asyncio.run(_alive(store, run_id, work))
        except ReportError as exc:
            store.fail(run_id, str(exc))
            errors.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(code=EXIT_INPUT) from exc
        except BaseException as exc:
            store.fail(run_id, f"{type(exc).__name__}: {exc}")
            raise
        store.finish(run_id, report["figures"], report, report["engine"])
        history = store.history(site, limit=8)
    finally:
        runtime.close()
    path = output / "trust" / f"{site}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print_report(Console(), report, history, path)
    if as_json:
        print(json.dumps({"site": site, **report["figures"]}, ensure_ascii=False), flush=True)


async def _alive(store: Any, run_id: str, work: Coroutine[Any, Any, T]) -> T:
    from frontdesk.store.trust import keep_alive

    async with keep_alive(store, run_id):
        return await work


async def _run(
    runtime: Any,
    site_id: str,
    questions: int,
    engine: str,
    pages: int,
    datasets_dir: Path | None,
    console: Console,
    progress: bool,
) -> dict[str, Any]:
    from frontdesk.evals.run import _progress
    from frontdesk.evals.trust import ReportError, counts_for, llm_caller, open_trust_workspace
    from frontdesk.evals.trust import run_report as run

    counts = counts_for(questions)
    with _progress(console, progress) as bar:
        task = bar.add_task(f"trust {site_id}: writing questions", total=None)

        def on_questions(total: int) -> None:
            bar.update(task, total=total, description=f"trust {site_id}")

        def advance() -> None:
            bar.advance(task)

        if site_id in runtime.sites:
            config = runtime.site(site_id).config
            call = None if engine == "local" else llm_caller(config, runtime.settings)
            if engine == "llm" and call is None:
                raise ReportError(f"site {site_id!r} has no LLM configured (--engine llm)")
            async with open_trust_workspace(runtime.settings, site_id, runtime.engine) as space:
                return await run(space, counts, call=call, on_questions=on_questions,
                                 advance=advance)  # fmt: skip
        return await _development_site(
            runtime, site_id, counts, engine, pages, datasets_dir, console, on_questions, advance
        )


async def _development_site(
    runtime: Any,
    site_id: str,
    counts: Any,
    engine: str,
    pages: int,
    datasets_dir: Path | None,
    console: Console,
    on_questions: Any,
    advance: Any,
) -> dict[str, Any]:
    """An `eval sites` site, built as that command builds it (its pages in the eval cache)."""
    from frontdesk.evals.sites import (
        Sample,
        SiteDataError,
        datasets_root,
        load_documents,
        site_by_id,
        site_file,
    )
    from frontdesk.evals.trust import ReportError, llm_caller
    from frontdesk.evals.trust import run_report as run
    from frontdesk.evals.workspace import open_workspace

    try:
        site = site_by_id(site_id)
    except SiteDataError as exc:
        raise ReportError(str(exc)) from exc
    root = datasets_dir or datasets_root()
    try:
        documents = load_documents(site, root, [], Sample(pages=pages))
    except SiteDataError as exc:
        raise ReportError(str(exc)) from exc
    settings = runtime.settings
    sites_dir = settings.data_dir / "eval" / "sites"
    sites_dir.mkdir(parents=True, exist_ok=True)
    (sites_dir / f"{site.id}.yaml").write_text(site_file(site), encoding="utf-8")
    site_settings = settings.model_copy(update={"sites_dir": sites_dir})
    async with open_workspace(site_settings, site.id, console, documents) as space:
        call = None if engine == "local" else llm_caller(space.site.config, settings)
        return await run(space, counts, call=call, on_questions=on_questions, advance=advance)


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * float(value):.0f} %"


def print_report(console: Console, report: dict[str, Any], history: list[Any], path: Path) -> None:
    f = report["figures"]
    table = Table(title=f"Trust report: {report['site']} ({report['engine']} questions)")
    for column in ("measure", "of", "share", "expected"):
        table.add_column(column)
    table.add_row("answered", f"{f['generated']} generated", _pct(f["answered"]), "high")
    table.add_row("grounded", f"{f['generated']} generated", _pct(f["grounded"]), "high")
    table.add_row("abstained", f"{f['unanswerable']} unanswerable", _pct(f["abstained"]), "high")
    table.add_row("refused", f"{f['off_topic']} off-topic", _pct(f["refused"]), "high")
    table.add_row(
        "answered anyway", f"{f['unanswerable']} unanswerable",
        _pct(f["unanswerable_answered"]), "low",
    )  # fmt: skip
    console.print(table)
    console.print(
        f"{f['pages']} pages, {f['questions']} questions, {f['errors']} errors, "
        f"{report['seconds']} s (p50 {f.get('p50_ms')} ms, p95 {f.get('p95_ms')} ms a turn)"
    )
    methods = ", ".join(
        f"{method} {m['questions']} "
        f"(answered {_pct(m['answered'])}, grounded {_pct(m['grounded'])})"
        for method, m in f.get("by_method", {}).items()
    )
    if methods:
        console.print(f"generated questions by method: {methods}")
    for kind, block in report["examples"].items():
        for example in block["misses"][:2]:
            console.print(
                f"[yellow]miss[/] {kind}: {example['text']!r} → {example['outcome']} "
                f"(expected {block['expected']})",
                highlight=False,
            )
    if len(history) > 1:
        trend = Table(title="Trend (newest first)")
        for column in ("finished", "trigger", "status", "answered", "grounded", "abstained",
                       "refused"):  # fmt: skip
            trend.add_column(column)
        for run in history:
            figs = run.figures
            when = run.finished_at.strftime("%Y-%m-%d %H:%M") if run.finished_at else "–"
            trend.add_row(when, run.trigger, run.status, _pct(figs.get("answered")),
                          _pct(figs.get("grounded")), _pct(figs.get("abstained")),
                          _pct(figs.get("refused")))  # fmt: skip
        console.print(trend)
    console.print(f"report: {path}")
