"""Preparing the bundled demo site: store, migrations, and its knowledge base."""

from __future__ import annotations

from rich.console import Console

from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings


def ingest_sources(runtime: Runtime, console: Console, *, only_if_empty: bool = True) -> None:
    """Ingest every site's configured knowledge sources (incremental; skipped when filled)."""
    from frontdesk.knowledge.service import KnowledgeBase

    knowledge = KnowledgeBase(runtime.engine, console=console)
    for site in runtime.sites.values():
        config = site.config
        serving = knowledge.generations.get(config.id)
        model = config.knowledge.embedding
        if serving is not None and serving.embedding_model != model:
            # A changed model (e.g. the default became multilingual): re-embed before
            # serving, since the old model may no longer be installed.
            console.print(f"re-embedding {config.id} with {model} (was {serving.embedding_model})")
            knowledge.reembed(config)
        if only_if_empty and knowledge.list_documents(config.id):
            count = len(knowledge.list_documents(config.id))
            console.print(f"[green]✓[/] {config.id}: knowledge base ready ({count} documents)")
            continue
        for source in config.knowledge.file_sources:
            path = (site.base_dir / source).resolve()
            report = knowledge.ingest_path(config, path)
            mark = "[green]✓[/]" if report.ok else "[yellow]![/]"
            console.print(f"{mark} {config.id}: {path.name}: {report.summary()}")
            for name, reason in report.failed.items():
                console.print(f"    [red]✗[/] {name}: {reason}")


def prepare_demo(settings: Settings, console: Console) -> None:
    """Create and migrate the database, mirror the sites, ingest knowledge when empty."""
    runtime = build_runtime(settings)
    try:
        console.print(f"[green]✓[/] database ready: {settings.database_url}")
        for site in runtime.sites.values():
            console.print(f"[green]✓[/] site [bold]{site.config.id}[/] ({site.config.name})")
        ingest_sources(runtime, console)
    finally:
        runtime.close()
