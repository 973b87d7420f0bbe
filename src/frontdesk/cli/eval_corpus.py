"""`frontdesk eval retrieval --corpus --queries`: retrieval measured on a throwaway index of
a corpus instead of a site. With `--json` the last line of standard output is one JSON
object with the keys of RETRIEVAL_JSON_KEYS."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

RETRIEVAL_JSON_KEYS = (
    "hit@1",
    "hit@5",
    "hit@10",
    "mrr",
    "abstain_precision",
    "abstain_recall",
    "p50_ms",
    "p95_ms",
    "queries",
)


def corpus_retrieval(
    corpus: Path,
    queries: Path,
    k: int,
    threshold: float | None,
    embedding: str | None,
    as_json: bool,
) -> None:
    """Index a corpus into a throwaway site and measure retrieval on its queries."""
    from frontdesk.knowledge.evaluate import evaluate_retrieval

    console = Console()
    try:
        report = evaluate_retrieval(
            corpus, queries, k=k, threshold=threshold, embedding=embedding, progress=not as_json
        )
    except (ValueError, KeyError) as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(code=1) from exc
    metrics = report.metrics()
    table = Table(title=f"retrieval: {corpus.parent.name or corpus.name}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in metrics.items():
        table.add_row(key, "n/a" if value is None else str(value))
    console.print(table)
    if as_json:
        # Plain print: rich would wrap a long line.
        print(json.dumps({key: metrics[key] for key in RETRIEVAL_JSON_KEYS}), flush=True)
