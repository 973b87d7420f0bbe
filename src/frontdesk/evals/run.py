"""Running suites: load datasets, open a workspace, run the graph once, score every suite.

Suites and what they run:
- intent: the held-out split of the shipped intent data through a model trained on the
  train split only (or `--dataset` rows through the site's intent job);
- routes, conversations, answers: the dataset items through the real graph
  (single-turn items for routes, multi-turn items for conversations, both for answers);
- retrieval: single-turn items straight against the site's knowledge base;
- injection: the items' HACK verdicts from the graph (or `--dataset` rows of
  `{text, label: injection|benign}` through the site's intent job);
- all: every suite above, the graph run shared.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from frontdesk.evals.dataset import (
    DatasetError,
    EvalItem,
    ItemInput,
    json_lines,
    load_items,
    matches_site,
)
from frontdesk.evals.judge import Judge, judge_spec, make_judge
from frontdesk.evals.runner import Outcome, SearchOutcome, run_item, run_items, search_item
from frontdesk.evals.suites import (
    SuiteResult,
    Thresholds,
    answers_suite,
    graph_suite,
    injection_suite,
    intent_suite,
    retrieval_suite,
)
from frontdesk.settings import Settings

SEARCH_DEPTH = 10
WARM_UP = "Hello! What do you offer?"


@dataclass
class EvalOptions:
    site_id: str = "demo"
    datasets: list[Path] = field(default_factory=list)
    judge: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    min_hit_at_5: float | None = None
    min_injection_recall: float | None = None
    limit: int | None = None
    progress: bool = True


@dataclass
class EvalRun:
    results: list[SuiteResult]
    items: list[dict[str, Any]]
    meta: dict[str, Any]


def default_datasets(site_path: Path) -> list[Path]:
    """`evals/*.jsonl` next to the sites folder (the demo: src/frontdesk/demo/evals/)."""
    folder = site_path.parent.parent / "evals"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def _progress(console: Console, enabled: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not enabled,
    )


def read_labelled_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of `{text, intent|label, lang?}` (intent or injection datasets)."""
    rows = []
    for number, row in json_lines(path.read_text(encoding="utf-8").splitlines(), str(path)):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            raise DatasetError(f"{path}:{number}: needs a string field `text`")
        rows.append(row)
    return rows


def _is_item_file(path: Path) -> bool:
    with path.open(encoding="utf-8") as handle:
        first = next((line for line in handle if line.strip()), "{}")
    try:
        return "input" in json.loads(first)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:1: not valid JSON ({exc.msg})") from exc


# --- intent -----------------------------------------------------------------------------


def held_out_intent(settings: Settings, thresholds: Thresholds) -> SuiteResult:
    """The test split, predicted by a model that never saw it (trained on the train split).

    The shipped model trains on every row, test split included, so scoring it on the test
    split would measure memory. The train split is written to its own file so the
    classifier's cache (keyed by the file's hash) keeps the held-out model too.
    """
    from frontdesk.engines.local.intent import IntentClassifier
    from frontdesk.engines.local.intent_data import DATA_FILE, INTENTS

    lines = DATA_FILE.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    models = settings.data_dir / "models"
    models.mkdir(parents=True, exist_ok=True)
    train_file = models / "intents-train-split.jsonl"
    train = "".join(
        line + "\n" for line, row in zip(lines, rows, strict=True) if row.get("split") != "test"
    )
    if not train_file.exists() or train_file.read_text(encoding="utf-8") != train:
        train_file.write_text(train, encoding="utf-8")
    classifier = IntentClassifier.load(models, data_path=train_file)
    test = [row for row in rows if row.get("split") == "test"]
    predicted = [p.intent for p in classifier.predict_many([row["text"] for row in test])]
    return intent_suite(
        [row["intent"] for row in test],
        predicted,
        [row.get("lang", "") for row in test],
        [row["text"] for row in test],
        thresholds,
        INTENTS,
        source=f"{DATA_FILE.name} split=test ({len(test)} rows), model trained on split=train",
    )


async def _classify(engines: Any, texts: Sequence[str]) -> list[str]:
    return [(await engines.intent.classify(text, [])).intent for text in texts]


async def dataset_intent(
    engines: Any, paths: Sequence[Path], site_id: str, site_name: str, thresholds: Thresholds
) -> SuiteResult:
    texts, expected, languages = [], [], []
    for path in paths:
        if _is_item_file(path):
            for item in load_items([path]):
                if (
                    item.expected_output.intent
                    and not item.multi_turn
                    and matches_site(item, site_id, site_name)
                ):
                    texts.append(item.query)
                    expected.append(item.expected_output.intent)
                    languages.append(item.expected_output.language or "")
        else:
            for row in read_labelled_rows(path):
                texts.append(row["text"])
                expected.append(str(row.get("intent") or row.get("label")))
                languages.append(str(row.get("lang") or row.get("language") or ""))
    predicted = await _classify(engines, texts)
    source = ", ".join(p.name for p in paths)
    return intent_suite(expected, predicted, languages, texts, thresholds, source=source)


# --- the graph suites -------------------------------------------------------------------


async def run_suites(
    names: Sequence[str], settings: Settings, options: EvalOptions, console: Console
) -> EvalRun:
    """Run the named suites on one workspace; the graph runs each item at most once."""
    from frontdesk.evals.workspace import open_workspace

    results: list[SuiteResult] = []
    meta: dict[str, Any] = {"site": options.site_id, "suites": ", ".join(names)}
    dumps: list[dict[str, Any]] = []
    # Alone, `intent --dataset` scores those rows; within several suites the datasets feed
    # the graph suites and intent keeps the held-out split.
    held_out = "intent" in names and (not options.datasets or len(names) > 1)
    if held_out:
        results.append(held_out_intent(settings, options.thresholds))
    rest = [n for n in names if n != "intent" or not held_out]
    if not rest:
        return EvalRun(results, dumps, meta)
    async with open_workspace(settings, options.site_id, console) as space:
        site = space.site
        paths = options.datasets or default_datasets(site.path)
        if not paths:
            raise DatasetError(f"site {options.site_id!r} has no evals/*.jsonl; pass --dataset")
        meta["datasets"] = ", ".join(str(p) for p in paths)
        meta["engine"] = space.service.engines.name
        if "intent" in rest:
            results.append(
                await dataset_intent(
                    space.service.engines,
                    paths,
                    site.config.id,
                    site.config.name,
                    options.thresholds,
                )
            )
        external = [p for p in paths if not _is_item_file(p)]
        if "injection" in rest and external:
            rows = [row for p in external for row in read_labelled_rows(p)]
            detected = [
                i == "HACK"
                for i in await _classify(space.service.engines, [r["text"] for r in rows])
            ]
            results.append(
                injection_suite(
                    [str(r.get("label")) == "injection" for r in rows],
                    detected,
                    [r["text"] for r in rows],
                    ", ".join(p.name for p in external),
                    options.min_injection_recall,
                )
            )
        item_paths = [p for p in paths if _is_item_file(p)]
        items = [
            i for i in load_items(item_paths) if matches_site(i, site.config.id, site.config.name)
        ][: options.limit]
        single = [i for i in items if not i.multi_turn]
        multi = [i for i in items if i.multi_turn]
        graph_items = _graph_items(rest, single, multi, bool(external))
        outcomes: list[Outcome] = []
        searches: list[SearchOutcome] = []
        if graph_items or "retrieval" in rest:
            await warm_up(space.service, site)
        with _progress(console, options.progress) as progress:
            if graph_items:
                task = progress.add_task("turns", total=len(graph_items))
                outcomes = await run_items(
                    space.service, site, graph_items, advance=lambda: progress.advance(task)
                )
                spec = judge_spec(site.config, options.judge, settings)
                if spec and "answers" in rest:
                    meta["judge"] = spec
                    judge = make_judge(spec, site.config, settings)
                    await _judge(judge, outcomes, site.config.name, progress)
            if "retrieval" in rest:
                task = progress.add_task("retrieval", total=len(single))
                for item in single:
                    searches.append(await search_item(space.service, site, item, SEARCH_DEPTH))
                    progress.advance(task)
        by_id = {o.item.id: o for o in outcomes}
        for name in rest:
            if name == "routes":
                results.append(
                    graph_suite("routes", [by_id[i.id] for i in single], options.thresholds)
                )
            elif name == "conversations":
                results.append(
                    graph_suite("conversations", [by_id[i.id] for i in multi], options.thresholds)
                )
            elif name == "answers":
                results.append(answers_suite(outcomes, options.thresholds))
            elif name == "retrieval":
                results.append(retrieval_suite(searches, options.min_hit_at_5))
            elif name == "injection" and not external:
                labelled = [by_id[i.id] for i in single if i.should_inject is not None]
                results.append(
                    injection_suite(
                        [bool(o.item.should_inject) for o in labelled],
                        [o.injection_detected for o in labelled],
                        [o.item.query for o in labelled],
                        "dataset items",
                        options.min_injection_recall,
                    )
                )
        dumps = [o.as_dict() for o in outcomes]
        meta["items"] = f"{len(single)} single-turn, {len(multi)} multi-turn"
    return EvalRun(results, dumps, meta)


async def warm_up(service: Any, site: Any) -> None:
    """Load every model (embeddings, intent, language detection) with one throwaway turn,
    so that loading is not measured as the first item's latency."""
    await service.warm_up()
    await run_item(service, site, EvalItem(id="warm-up", input=ItemInput(query=WARM_UP)))


def _graph_items(
    names: Sequence[str], single: list[EvalItem], multi: list[EvalItem], external: bool
) -> list[EvalItem]:
    wanted = set(names)
    chosen: list[EvalItem] = []
    if wanted & {"routes", "answers"} or ("injection" in wanted and not external):
        chosen += single
    if wanted & {"conversations", "answers"}:
        chosen += multi
    return chosen


async def _judge(judge: Judge, outcomes: list[Outcome], site_name: str, progress: Progress) -> None:
    scored = [o for o in outcomes if o.item.has_answer_expectation and not o.error]
    task = progress.add_task(f"judging ({judge.spec})", total=len(scored))
    for outcome in scored:
        outcome.judge = await judge.score(outcome, site_name)
        progress.advance(task)
