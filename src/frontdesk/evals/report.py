"""Reports of an evaluation run: Markdown and JSON, PNG plots, and a short console summary.

Everything goes into one folder per run name (`reports/<name>/` by default):
`report.md`, `report.json` (metrics, checks and every item's outcome) and the plots —
`confusion_<suite>.png`, `scores.png` (score histograms) and `latency.png`. The plots
need matplotlib, the `charts` extra (`make test` installs it; `make run` does not, which
keeps the product's install lean): without it the report says how to get them.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from frontdesk.evals.suites import SuiteResult

logger = logging.getLogger(__name__)
CHARTS_HINT = "plots need matplotlib: pip install 'frontdesk[charts]'"

HEADLINE = (
    "macro_f1", "min_class_f1", "accuracy", "route_accuracy", "routing_accuracy",
    "skill_recall", "intent_accuracy", "item_pass_rate", "hit@5", "mrr", "context_recall",
    "precision", "recall", "specificity", "external_specificity", "answer_accuracy",
    "reference_recall", "groundedness",
    "answered", "refused_offtopic", "abstain_precision", "abstain_recall", "everyday_refused",
    "one_language",
    "p50_ms", "p95_ms",
)  # fmt: skip


def overall(results: Sequence[SuiteResult]) -> dict[str, Any]:
    """The one JSON object of `--json`: a single suite's metrics at the top level, or one
    key per suite for several; the threshold checks and the verdict in both cases."""
    checks = [c.as_dict() for r in results for c in r.checks]
    passed = all(r.passed for r in results)
    if len(results) == 1:
        return {**results[0].metrics, "checks": checks, "passed": passed}
    return {**{r.name: r.metrics for r in results}, "checks": checks, "passed": passed}


def _fmt(value: Any, key: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}" if value <= 1.0 and not key.endswith("_ms") else f"{value:.1f}"
    return str(value)


def markdown(title: str, results: Sequence[SuiteResult], meta: dict[str, Any]) -> str:
    lines = [f"# {title}", ""]
    lines += [f"- {key}: {value}" for key, value in meta.items()]
    if not charts_installed():
        lines.append(f"- {CHARTS_HINT}")
    verdict = "PASSED" if all(r.passed for r in results) else "FAILED"
    lines += [
        "",
        f"**{verdict}**",
        "",
        "| suite | metric | value | threshold | |",
        "|---|---|---|---|---|",
    ]
    for result in results:
        for c in result.checks:
            mark = "✅" if c.passed else "❌"
            lines.append(f"| {c.suite} | {c.metric} | {_fmt(c.value)} | {c.threshold} | {mark} |")
    for result in results:
        lines += ["", f"## {result.name}", "", "| metric | value |", "|---|---|"]
        for key, value in result.metrics.items():
            if isinstance(value, dict):
                inner = ", ".join(
                    f"{k}={_fmt(v if not isinstance(v, dict) else v.get('f1'))}"
                    for k, v in value.items()
                )
                lines.append(f"| {key} | {inner} |")
            else:
                lines.append(f"| {key} | {_fmt(value, key)} |")
        for plot in ("confusion", "scores", "latency") if charts_installed() else ():
            path = _plot_name(result, plot)
            if path:
                lines += ["", f"![{result.name} {plot}]({path})"]
        if result.failures:
            lines += ["", f"### Misses ({len(result.failures)})", ""]
            for failure in result.failures[:40]:
                lines.append(f"- `{json.dumps(failure, ensure_ascii=False)[:500]}`")
    return "\n".join(lines) + "\n"


def _plot_name(result: SuiteResult, kind: str) -> str | None:
    if kind == "confusion" and result.confusion and result.confusion.get("labels"):
        return f"confusion_{result.name}.png"
    if kind == "scores" and any(result.scores.values()):
        return f"scores_{result.name}.png"
    if kind == "latency" and result.latencies_ms:
        return f"latency_{result.name}.png"
    return None


def charts_installed() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def plot(result: SuiteResult, folder: Path) -> list[Path]:
    """The suite's PNG plots (matplotlib's Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: list[Path] = []
    name = _plot_name(result, "confusion")
    if name and result.confusion:
        labels, matrix = result.confusion["labels"], result.confusion["matrix"]
        fig, ax = plt.subplots(figsize=(1.1 * len(labels) + 2.5, 0.9 * len(labels) + 2))
        ax.imshow(matrix, cmap="Blues")
        ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("predicted")
        ax.set_ylabel("expected")
        ax.set_title(result.confusion.get("title", "confusion matrix"))
        peak = max((v for row in matrix for v in row), default=0)
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                color = "white" if value > peak / 2 else "black"
                ax.text(j, i, str(value), ha="center", va="center", color=color, fontsize=8)
        fig.tight_layout()
        written.append(_save(fig, folder / name, plt))
    name = _plot_name(result, "scores")
    if name:
        series = {k: v for k, v in result.scores.items() if v}
        fig, axes = plt.subplots(1, len(series), figsize=(4 * len(series), 3), squeeze=False)
        for ax, (label, values) in zip(axes[0], series.items(), strict=True):
            ax.hist(values, bins=10, range=(0, 1), color="#4c72b0", edgecolor="white")
            ax.set_title(label)
            ax.set_xlabel("score")
        fig.tight_layout()
        written.append(_save(fig, folder / name, plt))
    name = _plot_name(result, "latency")
    if name:
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.hist(result.latencies_ms, bins=20, color="#55a868", edgecolor="white")
        ax.set_title(f"{result.name}: latency per turn")
        ax.set_xlabel("ms")
        fig.tight_layout()
        written.append(_save(fig, folder / name, plt))
    return written


def _save(fig: Any, path: Path, plt: Any) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(
    folder: Path,
    title: str,
    results: Sequence[SuiteResult],
    meta: dict[str, Any],
    items: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write report.md, report.json and the plots into `folder`; return report.md's path."""
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"generated": datetime.now(UTC).isoformat(timespec="seconds"), **meta}
    if charts_installed():
        for result in results:
            plot(result, folder)
    else:
        logger.warning("evaluation report without plots: %s", CHARTS_HINT)
    payload = {
        "meta": meta,
        "summary": overall(results),
        "failures": {r.name: r.failures for r in results},
        "items": list(items),
    }
    (folder / "report.json").write_text(
        json.dumps(payload, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
    )
    path = folder / "report.md"
    path.write_text(markdown(title, results, meta), encoding="utf-8")
    return path


def print_summary(console: Console, results: Sequence[SuiteResult], report: Path | None) -> None:
    table = Table(title="evaluation")
    for column in ("suite", "metric", "value", "gate"):
        table.add_column(column, justify="right" if column == "value" else "left")
    gated = {(c.suite, c.metric): c for r in results for c in r.checks}
    for result in results:
        for key in HEADLINE:
            if key in result.metrics and not isinstance(result.metrics[key], dict):
                check = gated.get((result.name, key))
                gate = "" if check is None else ("[green]✓[/]" if check.passed else "[red]✗[/]")
                gate += f" ≥ {check.threshold}" if check else ""
                table.add_row(result.name, key, _fmt(result.metrics[key], key), gate)
    console.print(table)
    failed = [c for r in results for c in r.checks if not c.passed]
    for check in failed:
        console.print(
            f"[red]✗ {check.suite}.{check.metric} = {_fmt(check.value)} < {check.threshold}[/]"
        )
    if report is not None:
        console.print(f"report: {report}")
