"""`frontdesk traces SESSION`: what happened in every turn of a session."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from frontdesk.cli.common import console


def traces_command(
    session_id: Annotated[str, typer.Argument(help="The session (conversation) id.")],
    site: Annotated[str, typer.Option("--site", help="Site id.")] = "demo",
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw traces.")] = False,
) -> None:
    """Show what happened in every turn of a session: route, intent, nodes and their
    latency, retrieved chunks and scores, citations, engine/model, tokens and cost."""
    from frontdesk.runtime import build_runtime
    from frontdesk.store.repositories import TraceRepository

    runtime = build_runtime(migrate_schema=False)
    try:
        with runtime.sessions() as db:
            traces = list(TraceRepository(db).for_session(site, session_id))
            rows: list[dict[str, Any]] = [
                {
                    "turn": t.turn,
                    "route": t.route,
                    "routing": t.routing,
                    "intent": t.intent,
                    "engine": t.engine,
                    "model": t.model,
                    "prompt_version": t.prompt_version,
                    "latency_ms": round(t.latency_ms, 1),
                    "tokens_in": t.tokens_in,
                    "tokens_out": t.tokens_out,
                    "cost_usd": t.cost_usd,
                    "nodes": t.nodes,
                    "retrieval": t.retrieval,
                    "citations": t.citations,
                    "created_at": t.created_at.isoformat(),
                }
                for t in traces
            ]
    finally:
        runtime.close()
    if not rows:
        console.print(f"no traces for session {session_id} of site {site}")
        raise typer.Exit(code=1)
    if as_json:
        console.print_json(json.dumps(rows, default=str))
        return
    for row in rows:
        table = Table(
            title=f"turn {row['turn']}: {row['route']} / {row['routing']} / {row['intent']} "
            f"— {row['latency_ms']} ms, {row['engine']} {row['model'] or ''} "
            f"(prompts {row['prompt_version']}), tokens {row['tokens_in']}/{row['tokens_out']},"
            f" ${row['cost_usd']:.5f}",
            title_justify="left",
        )
        table.add_column("node")
        table.add_column("ms", justify="right")
        for node in row["nodes"]:
            entry = node if isinstance(node, dict) else {"node": node}
            name = entry.get("node") or entry.get("name") or json.dumps(entry, default=str)
            ms = entry.get("ms", entry.get("latency_ms", ""))
            table.add_row(str(name), str(ms))
        console.print(table)
        for ref in row["retrieval"]:
            console.print(f"  retrieved {json.dumps(ref, default=str)[:160]}", highlight=False)
        for citation in row["citations"]:
            console.print(f"  cited {json.dumps(citation, default=str)[:160]}", highlight=False)
