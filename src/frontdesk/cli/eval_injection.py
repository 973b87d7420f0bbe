"""`frontdesk eval injection --by-source`: the local detector on sources it never saw
(measurement in `evals/injection_sources.py`, docs in docs/injection.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

# Options of `eval injection` (in cli/eval.py); the work below imports its models lazily,
# so that loading the CLI does not load scikit-learn.
BySource = Annotated[
    bool,
    typer.Option(
        "--by-source",
        help="Leave whole sources out: retrain the local detector without each source of "
        "--datasets-root and score it on that source, then on benign sets never trained on.",
    ),
]
DatasetsRoot = Annotated[
    Path, typer.Option(help="The shared datasets folder (README.md, injection/, intent/…).")
]
RowsPerSource = Annotated[
    int | None, typer.Option(min=50, help="--by-source: at most N rows per source (fast run).")
]


def _table(title: str, rows: list[dict[str, object]], mark_measured: bool = True) -> Table:
    table = Table(title=title)
    table.add_column("source", no_wrap=True)
    for column in ("attacks", "recall", "benign", "flagged"):
        table.add_column(column, justify="right")
    for row in rows:
        measured_only = mark_measured and not row["trained_on_others"]
        table.add_row(
            str(row["source"]) + (" *" if measured_only else ""),
            str(row["injections"]),
            "—" if row["recall"] is None else f"{row['recall']:.3f}",
            str(row["benign"]),
            "—" if row["false_positive_rate"] is None else f"{row['false_positive_rate']:.3f}",
        )
    return table


def run_by_source(
    datasets: Path,
    output: Path,
    as_json: bool,
    rows_per_source: int | None,
    min_recall: float | None,
) -> None:
    from frontdesk.cli.common import EXIT_FAILED, EXIT_INPUT
    from frontdesk.engines.local.injection import get_injection_detector
    from frontdesk.engines.local.injection_corpus import load_corpus
    from frontdesk.evals.injection_sources import MIN_RECALL, cross_source_suite
    from frontdesk.evals.report import overall, print_summary, write_report

    console = Console()
    if not (datasets / "injection" / "dev.jsonl").exists():
        Console(stderr=True).print(
            f"[bold red]error:[/] {datasets}/injection/dev.jsonl not found; pass the shared "
            "datasets folder with --datasets-root"
        )
        raise typer.Exit(code=EXIT_INPUT)
    corpus = load_corpus(datasets)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as progress:
        task = progress.add_task(
            "training without each source", total=len(corpus.trainable) + len(corpus.held_out)
        )

        def advance(source: str) -> None:
            progress.update(task, advance=1, description=f"without {source}")

        result = cross_source_suite(
            datasets,
            corpus=corpus,
            detector=get_injection_detector(),
            limit=rows_per_source,
            min_recall=MIN_RECALL if min_recall is None else min_recall,
            on_source=advance,
        )
    console.print(
        _table("held out (* measured only, never trained on)", result.metrics["held_out"])
    )
    external = result.metrics["external"]
    console.print(_table("benign sets never trained on", external, mark_measured=False))
    report = write_report(
        output / "injection_sources",
        "Frontdesk evaluation: injection by source",
        [result],
        {"datasets": str(datasets), "rows_per_source": rows_per_source or "all"},
    )
    print_summary(console, [result], report)
    if as_json:
        print(json.dumps(overall([result]), ensure_ascii=False, default=str), flush=True)
    if not result.passed:
        raise typer.Exit(code=EXIT_FAILED)
