"""`frontdesk eval retrieval`: hit@k, MRR, abstention and latency on a JSONL dataset.

The lead CLI mounts `eval_retrieval` as the `retrieval` command of `frontdesk eval`.
With `--json` the last line of standard output is one JSON object with the keys
hit@1, hit@5, hit@10, mrr, abstain_precision, abstain_recall, p50_ms, p95_ms, queries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

JSON_KEYS = (
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


def eval_retrieval(
    corpus: Annotated[
        Path, typer.Option(exists=True, dir_okay=False, help="corpus.jsonl: doc_id, title, text.")
    ],
    queries: Annotated[
        Path,
        typer.Option(exists=True, dir_okay=False, help="queries.jsonl: query, gold_doc_ids."),
    ],
    k: Annotated[int, typer.Option("--k", min=1, max=50, help="Cut-off for MRR.")] = 10,
    threshold: Annotated[
        float | None,
        typer.Option(help="Relevance threshold (default: the embedding model's default)."),
    ] = None,
    embedding: Annotated[
        str | None, typer.Option(help="Embedding model, provider:model (default: local MiniLM).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="End with one JSON line.")] = False,
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
        print(json.dumps({key: metrics[key] for key in JSON_KEYS}), flush=True)
