"""`frontdesk kb …`: ingest, list, search, remove and calibrate a site's knowledge base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from frontdesk.cli.common import SitesDirOption, console, err_console, fail, settings_for
from frontdesk.cli.crawl import crawl_command
from frontdesk.knowledge.models import IngestReport
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.registry import LoadedSite, SiteConfigError, load_site

kb_app = typer.Typer(
    help="Ingest, crawl, list, search and calibrate knowledge.", no_args_is_help=True
)
kb_app.command("crawl")(crawl_command)

SiteArg = Annotated[str, typer.Argument(help="Site id (the name of its YAML file).")]


def _open(site_id: str, sites_dir: Path | None) -> tuple[LoadedSite, KnowledgeBase]:
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    settings = settings_for(sites_dir)
    try:
        site = load_site(site_id, settings.sites_dir)
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    settings.ensure_dirs()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    return site, KnowledgeBase(engine, console=err_console)


def print_report(report: IngestReport, out: Console = console) -> None:
    for name, error in report.failed.items():
        err_console.print(f"[red]failed[/] {name}: {error}", highlight=False)
    out.print(
        f"[bold]{len(report.ingested)}[/] ingested, [bold]{len(report.updated)}[/] updated, "
        f"[bold]{len(report.skipped)}[/] skipped (unchanged), [bold]{len(report.removed)}[/] "
        f"removed, [bold]{len(report.failed)}[/] failed — {report.chunks_total} chunks written, "
        f"{report.chunks_embedded} embedded"
    )


@kb_app.command("ingest")
def ingest(
    site_id: SiteArg,
    path: Annotated[
        Path | None,
        typer.Argument(help="File or folder to ingest (default: the site's knowledge.sources)."),
    ] = None,
    sites_dir: SitesDirOption = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar while embedding.")] = True,
) -> None:
    """Ingest files into the site's knowledge base (incremental: unchanged files are skipped)."""
    site, kb = _open(site_id, sites_dir)
    sources = site.config.knowledge.file_sources
    paths = [path] if path else [site.base_dir / source for source in sources]
    if not paths:
        raise fail(f"site {site_id!r} has no knowledge.sources; give a PATH")
    _reembed_if_changed(kb, site, progress)
    total = IngestReport()
    for item in paths:
        report = kb.ingest_path(site.config, item, progress=progress)
        total.ingested += report.ingested
        total.updated += report.updated
        total.skipped += report.skipped
        total.removed += report.removed
        total.failed.update(report.failed)
        total.chunks_embedded += report.chunks_embedded
        total.chunks_total += report.chunks_total
    print_report(total)
    if total.ingested or total.updated or total.removed:  # the trust report runs again
        from frontdesk.store.trust import queue_after_sync

        queue_after_sync(kb.index.engine, site.config.id)  # type: ignore[attr-defined]
    if total.failed:
        raise typer.Exit(code=1)


def _reembed_if_changed(kb: KnowledgeBase, site: LoadedSite, progress: bool = True) -> None:
    """A changed `knowledge.embedding` is applied here, in the foreground, with progress."""
    serving = kb.generations.get(site.config.id)
    model = site.config.knowledge.embedding
    if serving is None or serving.embedding_model == model:
        return
    err_console.print(
        f"re-embedding {site.config.id} with {model} (was {serving.embedding_model}); "
        "the old index answers until this is done"
    )
    report = kb.reembed(site.config, progress=progress)
    current = kb.generations.get(site.config.id)
    if current is None or current.embedding_model != model:
        reason = "another process is re-embedding it" if report is None else "see the log"
        raise fail(f"{site.config.id}: re-embedding with {model} did not finish ({reason})")
    err_console.print(
        f"[green]✓[/] {site.config.id} now answers with {model}; recalibrate its threshold: "
        f"frontdesk kb calibrate {site.config.id} --queries QUERIES.jsonl"
    )


@kb_app.command("reembed")
def reembed(
    site_id: SiteArg,
    sites_dir: SitesDirOption = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar while embedding.")] = True,
) -> None:
    """Apply a changed `knowledge.embedding` now (a running server does it in the background
    on the site's next search); the old index answers until the new one is complete."""
    site, kb = _open(site_id, sites_dir)
    serving = kb.generations.get(site_id)
    if serving is None or serving.embedding_model == site.config.knowledge.embedding:
        model = serving.embedding_model if serving else site.config.knowledge.embedding
        console.print(f"{site_id} already answers with {model}: nothing to re-embed")
        return
    _reembed_if_changed(kb, site, progress)


@kb_app.command("list")
def list_documents(site_id: SiteArg, sites_dir: SitesDirOption = None) -> None:
    """List the site's documents."""
    site, kb = _open(site_id, sites_dir)
    documents = kb.list_documents(site.config)
    table = Table(title=f"{site_id}: {len(documents)} documents")
    for column in ("doc id", "title", "kind", "chunks", "updated"):
        table.add_column(column, overflow="fold")
    for doc in documents:
        updated = doc.updated_at.strftime("%Y-%m-%d %H:%M") if doc.updated_at else ""
        table.add_row(doc.doc_id, doc.title, doc.kind, str(doc.chunk_count), updated)
    console.print(table)


@kb_app.command("facts")
def list_facts(
    site_id: SiteArg,
    sites_dir: SitesDirOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per fact.")] = False,
) -> None:
    """What the site's pages state in structure: hours, address, phone, e-mail, prices,
    payment methods — each with the page it was read from."""
    from dataclasses import asdict

    from frontdesk.facts.answer import day_name

    site, kb = _open(site_id, sites_dir)
    facts = kb.site_facts(site.config).facts
    if as_json:
        for fact in facts:
            console.print_json(json.dumps(asdict(fact), ensure_ascii=False))
        return
    table = Table(title=f"{site_id}: {len(facts)} facts")
    for column in ("kind", "about", "value", "read from", "page"):
        table.add_column(column, overflow="fold")
    language = site.config.default_language
    for fact in facts:
        about = fact.label or (day_name(fact.weekday, language) if fact.weekday is not None else "")
        value = ", ".join(f"{a}–{b}" for a, b in fact.ranges) if fact.kind == "hours" else ""
        table.add_row(
            fact.kind,
            about,
            value or fact.note or fact.value,
            (
                f"team ({fact.author}, {fact.corrected_at[:10]})"
                if fact.corrected
                else f"{fact.origin} ({fact.region})"
            ),
            fact.url or fact.doc_id,
        )
    console.print(table)


@kb_app.command("search")
def search(
    site_id: SiteArg,
    question: Annotated[str, typer.Argument(help="The visitor's question.")],
    top_k: Annotated[int | None, typer.Option("--top-k", "-k", help="Chunks to show.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the RetrievalResult.")] = False,
    sites_dir: SitesDirOption = None,
) -> None:
    """Search the site's knowledge base the way the assistant does; show scores and sources."""
    site, kb = _open(site_id, sites_dir)
    result = kb.search(site.config, question, top_k=top_k)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    knowledge = SiteKnowledge.of(site.config)
    threshold = knowledge.relevance_threshold()
    top = f"{result.top_score:.3f}" if result.top_score is not None else "n/a"
    console.print(
        f"status [bold]{result.status}[/]"
        + (f" ({result.reason})" if result.reason else "")
        + f" · best cosine {top} · threshold "
        + (f"{threshold:.3f}" if threshold is not None else "none")
        + (" · proactive case study" if result.proactive_case_study else "")
    )
    if not result.chunks:
        return
    table = Table(show_lines=True)
    for column, justify in (("#", "right"), ("score", "right"), ("rrf", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("source", overflow="fold", max_width=40)
    table.add_column("passage", overflow="fold")
    for rank, chunk in enumerate(result.chunks, start=1):
        where = " > ".join(chunk.heading_path) or chunk.title
        snippet = chunk.content if len(chunk.content) <= 300 else chunk.content[:297] + "…"
        source = f"{chunk.doc_id} #{chunk.chunk_index}" + (f"\n{chunk.url}" if chunk.url else "")
        table.add_row(
            str(rank),
            f"{chunk.score:.3f}",
            f"{chunk.rank_score:.4f}",
            source,
            f"[bold]{where}[/]\n{snippet}",
        )
    console.print(table)


@kb_app.command("remove")
def remove(
    site_id: SiteArg,
    doc_id: Annotated[str, typer.Argument(help="Document id as shown by `kb list`.")],
    sites_dir: SitesDirOption = None,
) -> None:
    """Remove one document (and its chunks) from the site's knowledge base."""
    site, kb = _open(site_id, sites_dir)
    if not kb.remove_document(site.config, doc_id):
        raise fail(f"site {site_id!r} has no document {doc_id!r}")
    console.print(f"removed {doc_id}")


@kb_app.command("reindex")
def reindex(site_id: SiteArg, sites_dir: SitesDirOption = None) -> None:
    """Rebuild the site's vector files (and HNSW graph on large sites) from the database:
    after restoring a backup without them, or if searches log an unreadable base. The
    English second index is rebuilt too; one the site no longer uses is dropped."""
    from frontdesk.knowledge.companion import companion_key, companion_model

    site, kb = _open(site_id, sites_dir)
    knowledge = SiteKnowledge.of(site.config)
    for dropped in kb.companions.prune(knowledge):
        console.print(f"dropped the second index {dropped}: the site no longer uses it")
    rebuild = getattr(kb.index, "rebuild_vectors", None)
    if rebuild is None:
        console.print("nothing to rebuild: this index keeps its vectors in the database")
        return
    second = companion_model(knowledge)
    keys = [kb.index_key(knowledge)]
    if second is not None:
        keys.append(companion_key(knowledge.site_id, second))
    for key in keys:
        with err_console.status(f"rebuilding the vector index {key}"):
            rows = rebuild(key)
        console.print(f"rebuilt the vector index {key}: {rows} chunks")


@kb_app.command("calibrate")
def calibrate(
    site_id: SiteArg,
    queries: Annotated[
        Path,
        typer.Option(
            "--queries",
            exists=True,
            dir_okay=False,
            help="JSONL: {query, answerable} (or is_impossible / gold_doc_ids) per line.",
        ),
    ],
    plot: Annotated[
        Path | None, typer.Option(help="Histogram PNG (default: DATA_DIR/calibration/SITE.png).")
    ] = None,
    write: Annotated[
        bool, typer.Option(help="Store the threshold in the site file's knowledge section.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    sites_dir: SitesDirOption = None,
) -> None:
    """Recommend a relevance threshold from answerable vs unanswerable queries."""
    from frontdesk.evals.report import CHARTS_HINT, charts_installed
    from frontdesk.knowledge.calibrate import (
        ScoredQuery,
        plot_histogram,
        read_calibration_queries,
        recommend_for_pairs,
        write_knowledge_value,
        write_threshold,
    )
    from frontdesk.knowledge.search.query import SearchOptions, query_language
    from frontdesk.text.lexical import passage_language

    site, kb = _open(site_id, sites_dir)
    try:
        items = read_calibration_queries(queries)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    _reembed_if_changed(kb, site)  # calibrate the model the site is configured with
    knowledge = SiteKnowledge.of(site.config)
    retriever = kb.retriever(knowledge)
    # Raw cosines: the offset of questions in another language than their best passage is
    # measured here, not assumed.
    options = SearchOptions(relevance_threshold=None, language=knowledge.language)
    scored: list[ScoredQuery] = []
    for query, is_answerable in items:
        result = retriever.search(kb.index_key(knowledge), query, options)
        if result.status == "error":
            raise fail(f"search failed for {query!r}: {result.reason}")
        best = max(result.chunks, key=lambda chunk: chunk.score, default=None)
        cross = best is not None and passage_language(
            best.content, knowledge.language
        ) != query_language(query, knowledge.language)
        scored.append(ScoredQuery(result.top_score or 0.0, is_answerable, cross))
    try:
        offset, calibration = recommend_for_pairs(scored, knowledge.cross_language_offset())
    except ValueError as exc:
        raise fail(str(exc)) from exc
    answerable = [q for q in scored if q.answerable]
    unanswerable = [q for q in scored if not q.answerable]
    cross_language = sum(q.cross_language for q in answerable)
    target: Path | None = None
    if charts_installed():
        target = plot or settings_for(sites_dir).data_dir / "calibration" / f"{site_id}.png"
        plot_histogram(calibration, target, title=f"{site_id}: relevance threshold calibration")
    else:
        err_console.print(f"[yellow]no histogram: {CHARTS_HINT}[/]")
    if write:
        write_threshold(site.path, calibration.threshold)
        write_knowledge_value(site.path, "cross_language_offset", offset)
    if as_json:
        payload = {
            "threshold": calibration.threshold,
            "method": calibration.method,
            "false_positive_rate": calibration.false_positive_rate,
            "false_negative_rate": calibration.false_negative_rate,
            "meets_targets": calibration.meets_targets,
            "cross_language_offset": offset,
            "answerable": len(answerable),
            "answerable_cross_language": cross_language,
            "unanswerable": len(unanswerable),
            "plot": str(target) if target else None,
            "written": write,
        }
        typer.echo(json.dumps(payload))
        return
    console.print(
        f"{len(answerable)} answerable ({cross_language} best answered in another language),"
        f" {len(unanswerable)} unanswerable queries → "
        + calibration.describe()
        + f"; cross-language offset {offset:.3f}"
    )
    if not calibration.meets_targets:
        console.print(
            "[yellow]the score distributions overlap: no threshold meets the precision and "
            "recall targets; "
            "add documents for the missed questions or accept the trade-off shown[/]"
        )
    if target:
        console.print(f"histogram: {target}")
    if write:
        console.print(
            f"wrote knowledge.relevance_threshold: {calibration.threshold:.3f} and"
            f" knowledge.cross_language_offset: {offset:.3f} to {site.path}"
        )
