"""`frontdesk eval intent | routes | retrieval | injection | conversations | answers | all`,
and Langfuse dataset transfers (`langfuse-pull`, `langfuse-push`).

Every suite writes a report folder (`--output`, default `reports/`), prints a short
summary and exits with 0 when every threshold holds, 1 when one is missed (CI gates on
this) and 2 when the input is unusable (unknown site, unreadable dataset). With
`--json` the last line of standard output is one JSON object with all metrics.
`eval retrieval --corpus --queries` measures a throwaway index of a corpus instead of a
site (`eval_corpus.py`). `eval classify` is in `chat.py`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontdesk.cli.common import EXIT_FAILED, EXIT_INPUT, settings_for
from frontdesk.cli.eval_corpus import corpus_retrieval
from frontdesk.cli.eval_injection import BySource, DatasetsRoot, RowsPerSource
from frontdesk.cli.eval_langfuse import langfuse_pull, langfuse_push
from frontdesk.cli.eval_sites import eval_sites
from frontdesk.cli.eval_trust import eval_trust
from frontdesk.evals.suites import Thresholds

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


def graph_suite(suite: str, summary: str) -> Callable[..., None]:
    """The command of a suite whose items go through the graph (`routes`, `conversations`):
    both take the same options and gates."""

    def command(
        site: Site = "demo",
        datasets: Datasets = None,
        output: Output = Path("reports"),
        as_json: AsJson = False,
        sites_dir: SitesDir = None,
        limit: Limit = None,
        min_route_accuracy: MinRouteAccuracy = DEFAULTS.route_accuracy,
        min_skill_recall: MinSkillRecall = DEFAULTS.skill_recall,
    ) -> None:
        thresholds = Thresholds(route_accuracy=min_route_accuracy, skill_recall=min_skill_recall)
        run_command(
            [suite],
            site=site,
            datasets=datasets,
            output=output,
            as_json=as_json,
            sites_dir=sites_dir,
            limit=limit,
            thresholds=thresholds,
        )

    command.__doc__ = summary
    return command


eval_routes = graph_suite(
    "routes", "Single-turn items through the graph: route, routing, intent, skills, abstention."
)
eval_conversations = graph_suite(
    "conversations", "Multi-turn items: history rebuilt into state, then the final query."
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
