"""`frontdesk eval langfuse-pull | langfuse-push`: Langfuse datasets as JSONL items."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontdesk.cli.common import EXIT_INPUT


def langfuse_pull(
    name: Annotated[str, typer.Argument(help="Langfuse dataset name.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="JSONL file to write.")],
) -> None:
    """Download a Langfuse dataset as JSONL items (needs LANGFUSE_* keys)."""
    from frontdesk.evals.dataset import dump_items
    from frontdesk.evals.langfuse_io import LangfuseUnavailableError, pull

    try:
        items = pull(name)
    except LangfuseUnavailableError as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=EXIT_INPUT) from exc
    output.write_text(dump_items(items), encoding="utf-8")
    Console().print(f"wrote {len(items)} items to {output}")


def langfuse_push(
    name: Annotated[str, typer.Argument(help="Langfuse dataset name.")],
    datasets: Annotated[list[Path], typer.Option("--dataset", "-d", exists=True, dir_okay=False)],
) -> None:
    """Upload JSONL items to a Langfuse dataset (needs LANGFUSE_* keys)."""
    from frontdesk.evals.dataset import load_items
    from frontdesk.evals.langfuse_io import LangfuseUnavailableError, push

    try:
        count = push(name, load_items(datasets))
    except LangfuseUnavailableError as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=EXIT_INPUT) from exc
    Console().print(f"uploaded {count} items to Langfuse dataset {name!r}")
