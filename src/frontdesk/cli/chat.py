"""Commands around conversations: `frontdesk chat` (the terminal chat), `frontdesk graph`
(the diagram) and `frontdesk eval classify` (batch decisions, one fresh session a row)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from frontdesk.cli.common import console, settings_for
from frontdesk.conversation.payload import CompleteEvent, ErrorEvent, TokenEvent, VisitorContext


def graph_command(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the Mermaid diagram here.")
    ] = None,
) -> None:
    """Print (or write) the conversation graph as a Mermaid diagram, drawn from the code."""
    from frontdesk.conversation.graph import mermaid

    diagram = mermaid()
    if output:
        output.write_text(f"```mermaid\n{diagram}```\n", encoding="utf-8")
        console.print(f"wrote {output}")
    else:
        print(diagram)


def _service(sites_dir: Path | None) -> Any:
    from frontdesk.conversation.service import ChatService
    from frontdesk.runtime import build_runtime

    return ChatService(build_runtime(settings_for(sites_dir)))


def chat_command(
    site_id: Annotated[str, typer.Argument(help="Site id, e.g. demo.")] = "demo",
    sites_dir: Annotated[Path | None, typer.Option(help="Folder of site files.")] = None,
    timings: Annotated[bool, typer.Option(help="Show per-node timings.")] = True,
) -> None:
    """Chat with a site in the terminal: answers stream, then route, intent, sources, timings."""
    asyncio.run(_chat(site_id, sites_dir, timings))


async def _chat(site_id: str, sites_dir: Path | None, timings: bool) -> None:
    service = _service(sites_dir)
    site = service.runtime.site(site_id)
    session_id = str(uuid.uuid4())
    with console.status("loading models…"):
        await service.warm_up()
    console.print(f"[bold]{site.config.name}[/] — type a question, or /quit. Session {session_id}")
    try:
        while True:
            try:
                message = await asyncio.to_thread(console.input, "[bold cyan]you ›[/] ")
            except (EOFError, KeyboardInterrupt):
                break
            if message.strip() in ("/quit", "/exit"):
                break
            if not message.strip():
                continue
            console.print("[bold green]bot ›[/] ", end="")
            started = time.perf_counter()
            async for event in service.stream_turn(site, session_id, message, VisitorContext()):
                if isinstance(event, TokenEvent):
                    console.print(escape(event.content), end="", soft_wrap=True)
                elif isinstance(event, CompleteEvent):
                    _show_result(event, (time.perf_counter() - started) * 1000, timings, service)
                elif isinstance(event, ErrorEvent):
                    console.print(f"\n[red]{event.code}: {event.message}[/]")
    finally:
        await service.close()
        service.runtime.close()


def _show_result(event: CompleteEvent, ms: float, timings: bool, service: Any) -> None:
    r = event.result
    console.print()
    if r.low_confidence:
        console.print("[yellow]⚠ I'm not fully sure this matches what you're asking.[/]")
    console.print(
        f"[dim]route={r.route} routing={r.routing} intent={r.intent} lang={r.language} "
        f"lead={r.lead.level} turn={r.turn} {ms:.0f} ms[/]"
    )
    for c in r.citations:
        console.print(f"[dim]  [{c.index}] {c.title} ({c.url or c.doc_id})[/]")
    if r.handoff:
        console.print(f"[magenta]handoff: {r.handoff.reason} ({r.handoff.status})[/]")
    if r.cta:
        console.print(f"[blue]{r.cta.label}: {r.cta.url}[/]")
    for s in r.suggested_follow_ups + r.suggested_answers:
        console.print(f"[dim]  › {s}[/]")


def classify_command(
    site_id: Annotated[str, typer.Option("--site", help="Site id.")],
    input_path: Annotated[Path, typer.Option("--input", help="JSONL rows with a `text` field.")],
    output_path: Annotated[Path, typer.Option("--output", help="Where to write the rows.")],
    sites_dir: Annotated[Path | None, typer.Option(help="Folder of site files.")] = None,
) -> None:
    """Run each row's `text` as the first message of a fresh session; write the decisions."""
    asyncio.run(_classify(site_id, read_rows(input_path), output_path, sites_dir))


def read_rows(input_path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(input_path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise typer.BadParameter(f"{input_path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise typer.BadParameter(f"{input_path}:{number}: needs a string field `text`")
        rows.append(row)
    return rows


async def _classify(
    site_id: str, rows: list[dict[str, Any]], output_path: Path, sites_dir: Path | None
) -> None:
    service = _service(sites_dir)
    site = service.runtime.site(site_id)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with (
            output_path.open("w", encoding="utf-8") as out,
            Progress(
                TextColumn("classifying"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            ) as progress,
        ):
            task = progress.add_task("rows", total=len(rows))
            for row in rows:
                decision = await classify_text(service, site, row["text"])
                out.write(json.dumps({**row, **decision}, ensure_ascii=False) + "\n")
                progress.advance(task)
    finally:
        await service.close()
        service.runtime.close()
    console.print(f"wrote {len(rows)} rows to {output_path}")


async def classify_text(service: Any, site: Any, text: str) -> dict[str, Any]:
    """One message in a fresh session → intent, flags, language, route and routing."""
    session_id = f"classify-{uuid.uuid4()}"
    result = await service.ask(site, session_id, text, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": f"{site.config.id}:{session_id}"}}
    values = (await graph.aget_state(config)).values
    intent = values.get("intent") or {}
    await service.erase(site, session_id)
    return {
        "intent": result.intent,
        "high_stakes": bool(intent.get("high_stakes")),
        "nonsense": bool(intent.get("nonsense")),
        "language": result.language,
        "route": result.route,
        "routing": result.routing,
    }
