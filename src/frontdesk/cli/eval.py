"""`frontdesk eval intent | routes | retrieval | injection | conversations | answers | all`,
and Langfuse dataset transfers (`langfuse-pull`, `langfuse-push`).

Every suite writes a report folder (`--output`, default `reports/`), prints a short
summary and exits with 0 when every threshold holds, 1 when one is missed (CI gates on
this) and 2 when the input is unusable (unknown site, unreadable dataset). With
`--json` the last line of standard output is one JSON object with all metrics.
`eval retrieval --corpus --queries` measures a throwaway index of a corpus instead of a
site; its JSON line has the keys of RETRIEVAL_JSON_KEYS. `eval classify` is in `chat.py`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from frontdesk.cli.common import settings_for
from frontdesk.cli.eval_injection import BySource, DatasetsRoot, RowsPerSource
from frontdesk.cli.eval_sites import eval_sites
from frontdesk.cli.eval_trust import eval_trust
from frontdesk.evals.suites import Thresholds

EXIT_FAILED = 1
EXIT_INPUT = 2
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

eval_app = typer.Typer(help="Evaluate retrieval, intents and routes on datasets.")

Site = Annotated[str, typer.Option("--site", help="Site id.")]
Datasets = Annotated[
    list[Path] | None,
    typer.Option(
        "--dataset",
        "-d",
        exists=True,
        dir_okay=False,
        help="JSONL dataset (repeatable). Default: the site's evals/*.jsonl.",
    ),
]
Output = Annotated[Path, typer.Option("--output", "-o", help="Report folder.")]
AsJson = Annotated[bool, typer.Option("--json", help="End with one JSON line of all metrics.")]
SitesDir = Annotated[Path | None, typer.Option("--sites-dir", help="Folder of site files.")]
Limit = Annotated[int | None, typer.Option(min=1, help="Only the first N items (smoke runs).")]
Judge = Annotated[
    str | None,
    typer.Option(help="Judge model provider:model (default: the site's engine.roles.judge)."),
]
MinMacroF1 = Annotated[float, typer.Option(help="Gate: intent macro-F1.")]
MinClassF1 = Annotated[float, typer.Option(help="Gate: lowest per-class intent F1.")]
MinSkillRecall = Annotated[float, typer.Option(help="Gate: skill recall.")]
MinAnswerAccuracy = Annotated[float, typer.Option(help="Gate: answer accuracy.")]
MinRouteAccuracy = Annotated[float, typer.Option(help="Gate: route accuracy.")]
MinHit5 = Annotated[float | None, typer.Option("--min-hit-at-5", help="Gate: retrieval hit@5.")]
MinInjectionRecall = Annotated[float | None, typer.Option(help="Gate: injection recall.")]

DEFAULTS = Thresholds()


def run_command(
    names: Sequence[str],
    *,
    site: str,
    datasets: list[Path] | None,
    output: Path,
    as_json: bool,
    sites_dir: Path | None = None,
    limit: int | None = None,
    judge: str | None = None,
    thresholds: Thresholds = DEFAULTS,
    min_hit_at_5: float | None = None,
    min_injection_recall: float | None = None,
) -> None:
    """Run suites, write the report, print the summary, exit by the thresholds."""
    from frontdesk.evals.dataset import DatasetError
    from frontdesk.evals.report import overall, print_summary, write_report
    from frontdesk.evals.run import EvalOptions, run_suites
    from frontdesk.sites.registry import SiteConfigError

    settings = settings_for(sites_dir)
    options = EvalOptions(
        site_id=site,
        datasets=list(datasets or []),
        judge=judge,
        thresholds=thresholds,
        min_hit_at_5=min_hit_at_5,
        min_injection_recall=min_injection_recall,
        limit=limit,
    )
    errors = Console(stderr=True)
    try:
        run = asyncio.run(run_suites(names, settings, options, errors))
    except (DatasetError, SiteConfigError) as exc:
        errors.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(code=EXIT_INPUT) from exc
    name = names[0] if len(names) == 1 else "all"
    report = write_report(
        output / name, f"Frontdesk evaluation: {name}", run.results, run.meta, run.items
    )
    print_summary(Console(), run.results, report)
    if as_json:
        print(json.dumps(overall(run.results), ensure_ascii=False, default=str), flush=True)
    if not all(result.passed for result in run.results):
        raise typer.Exit(code=EXIT_FAILED)


def eval_intent(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    min_macro_f1: MinMacroF1 = DEFAULTS.macro_f1,
    min_class_f1: MinClassF1 = DEFAULTS.min_class_f1,
) -> None:
    """Intent macro-F1, per-class and min-class F1 on the held-out split (or --dataset)."""
    thresholds = Thresholds(macro_f1=min_macro_f1, min_class_f1=min_class_f1)
    run_command(
        ["intent"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        thresholds=thresholds,
    )


def eval_routes(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    limit: Limit = None,
    min_route_accuracy: MinRouteAccuracy = DEFAULTS.route_accuracy,
    min_skill_recall: MinSkillRecall = DEFAULTS.skill_recall,
) -> None:
    """Single-turn items through the graph: route, routing, intent, skills, abstention."""
    thresholds = Thresholds(route_accuracy=min_route_accuracy, skill_recall=min_skill_recall)
    run_command(
        ["routes"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        limit=limit,
        thresholds=thresholds,
    )


def eval_conversations(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    limit: Limit = None,
    min_route_accuracy: MinRouteAccuracy = DEFAULTS.route_accuracy,
    min_skill_recall: MinSkillRecall = DEFAULTS.skill_recall,
) -> None:
    """Multi-turn items: history rebuilt into state, then the final query."""
    thresholds = Thresholds(route_accuracy=min_route_accuracy, skill_recall=min_skill_recall)
    run_command(
        ["conversations"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        limit=limit,
        thresholds=thresholds,
    )


def eval_answers(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    limit: Limit = None,
    judge: Judge = None,
    min_answer_accuracy: MinAnswerAccuracy = DEFAULTS.answer_accuracy,
) -> None:
    """Answer quality: LLM judge when configured, else reference overlap + groundedness."""
    run_command(
        ["answers"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        limit=limit,
        judge=judge,
        thresholds=Thresholds(answer_accuracy=min_answer_accuracy),
    )


def eval_injection(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    limit: Limit = None,
    min_injection_recall: MinInjectionRecall = None,
    by_source: BySource = False,
    datasets_root: DatasetsRoot = Path("../shared/datasets"),
    rows_per_source: RowsPerSource = None,
) -> None:
    """Prompt-injection precision/recall (items, or rows {text, label: injection|benign});
    with --by-source, recall and false-positive rate per held-out source."""
    if by_source:
        from frontdesk.cli.eval_injection import run_by_source

        run_by_source(datasets_root, output, as_json, rows_per_source, min_injection_recall)
        return
    run_command(
        ["injection"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        limit=limit,
        min_injection_recall=min_injection_recall,
    )


def eval_retrieval(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    limit: Limit = None,
    min_hit_at_5: MinHit5 = None,
    corpus: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="Corpus mode: corpus.jsonl.")
    ] = None,
    queries: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="Corpus mode: queries.jsonl.")
    ] = None,
    k: Annotated[int, typer.Option("--k", min=1, max=50, help="Corpus mode: MRR cut-off.")] = 10,
    threshold: Annotated[
        float | None, typer.Option(help="Corpus mode: relevance threshold.")
    ] = None,
    embedding: Annotated[str | None, typer.Option(help="Corpus mode: embedding model.")] = None,
) -> None:
    """Retrieval hit@k, MRR and keyword context recall on the site's knowledge base; with
    --corpus and --queries, on a throwaway index of that corpus instead."""
    if corpus is not None or queries is not None:
        if corpus is None or queries is None:
            raise typer.BadParameter("corpus mode needs both --corpus and --queries")
        corpus_retrieval(corpus, queries, k, threshold, embedding, as_json)
        return
    run_command(
        ["retrieval"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        limit=limit,
        min_hit_at_5=min_hit_at_5,
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


def eval_all(
    site: Site = "demo",
    datasets: Datasets = None,
    output: Output = Path("reports"),
    as_json: AsJson = False,
    sites_dir: SitesDir = None,
    limit: Limit = None,
    judge: Judge = None,
    min_macro_f1: MinMacroF1 = DEFAULTS.macro_f1,
    min_class_f1: MinClassF1 = DEFAULTS.min_class_f1,
    min_skill_recall: MinSkillRecall = DEFAULTS.skill_recall,
    min_answer_accuracy: MinAnswerAccuracy = DEFAULTS.answer_accuracy,
    min_route_accuracy: MinRouteAccuracy = DEFAULTS.route_accuracy,
    min_hit_at_5: MinHit5 = None,
    min_injection_recall: MinInjectionRecall = None,
) -> None:
    """Every suite; the CI gate (`make eval`). Intent runs on the held-out split even when
    --dataset is given (the datasets feed the other suites)."""
    thresholds = Thresholds(
        macro_f1=min_macro_f1,
        min_class_f1=min_class_f1,
        skill_recall=min_skill_recall,
        answer_accuracy=min_answer_accuracy,
        route_accuracy=min_route_accuracy,
    )
    run_command(
        ["intent", "routes", "retrieval", "injection", "conversations", "answers"],
        site=site,
        datasets=datasets,
        output=output,
        as_json=as_json,
        sites_dir=sites_dir,
        limit=limit,
        judge=judge,
        thresholds=thresholds,
        min_hit_at_5=min_hit_at_5,
        min_injection_recall=min_injection_recall,
    )


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


# Registered here, in the order `frontdesk eval --help` lists them.
eval_app.command("intent")(eval_intent)
eval_app.command("routes")(eval_routes)
eval_app.command("retrieval")(eval_retrieval)
eval_app.command("injection")(eval_injection)
eval_app.command("conversations")(eval_conversations)
eval_app.command("answers")(eval_answers)
eval_app.command("all")(eval_all)
eval_app.command("sites")(eval_sites)
eval_app.command("trust")(eval_trust)
eval_app.command("langfuse-pull")(langfuse_pull)
eval_app.command("langfuse-push")(langfuse_push)
