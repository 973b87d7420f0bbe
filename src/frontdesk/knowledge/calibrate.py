"""Threshold calibration (retrieval triage).

1. Run answerable and unanswerable queries against the site's index and keep each
   query's best cosine score (the score the threshold is compared with).
2. Plot both distributions (PNG histogram).
3. If the distributions do not overlap, recommend the midpoint of the gap; otherwise the
   threshold that minimises false-positive rate + false-negative rate (Youden's J),
   preferring the middle of an equally good range.
4. Report the rates against the targets: FPR < 5 %, FNR < 10 %.

Questions asked in another language than the page that answers them score lower by their
cosine: when the queries hold enough of both kinds, the site's cross-language offset is
measured from them (`language_pairs.measured_offset`) and every score is compared on the
normalised scale (`recommend_for_pairs`), so one threshold fits both.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from frontdesk.knowledge.evaluate import is_answerable, jsonl_items
from frontdesk.knowledge.search.language_pairs import measured_offset

FPR_TARGET = 0.05
FNR_TARGET = 0.10


@dataclass(frozen=True)
class Calibration:
    threshold: float
    method: str  # "gap-midpoint", "min-error" or "answerable-only"
    false_positive_rate: float | None  # unanswerable queries at or above the threshold
    false_negative_rate: float | None  # answerable queries below the threshold
    answerable: tuple[float, ...]
    unanswerable: tuple[float, ...]

    @property
    def meets_targets(self) -> bool:
        fpr = self.false_positive_rate or 0.0
        fnr = self.false_negative_rate or 0.0
        return fpr < FPR_TARGET and fnr < FNR_TARGET

    def describe(self) -> str:
        def pct(value: float | None) -> str:
            return "n/a" if value is None else f"{value:.1%}"

        return (
            f"threshold {self.threshold:.3f} ({self.method}); false positives "
            f"{pct(self.false_positive_rate)} (target < {FPR_TARGET:.0%}), false negatives "
            f"{pct(self.false_negative_rate)} (target < {FNR_TARGET:.0%})"
        )


def read_calibration_queries(path: Path) -> list[tuple[str, bool]]:
    """JSONL with `query` and `answerable` (or `is_impossible` / `gold_doc_ids`)."""
    queries: list[tuple[str, bool]] = []
    for number, item in jsonl_items(path):
        if not isinstance(item, dict) or not str(item.get("query", "")).strip():
            raise ValueError(f"{path}:{number}: expected an object with a 'query'")
        if "answerable" not in item and "is_impossible" not in item and "gold_doc_ids" not in item:
            item["answerable"] = True
            item["gold_doc_ids"] = ["?"]
        elif "gold_doc_ids" not in item:
            item["gold_doc_ids"] = ["?"]
        queries.append((str(item["query"]), is_answerable(item)))
    return queries


def _rates(
    threshold: float, answerable: Sequence[float], unanswerable: Sequence[float]
) -> tuple[float | None, float | None]:
    fpr = sum(s >= threshold for s in unanswerable) / len(unanswerable) if unanswerable else None
    fnr = sum(s < threshold for s in answerable) / len(answerable) if answerable else None
    return fpr, fnr


def recommend_threshold(answerable: Sequence[float], unanswerable: Sequence[float]) -> Calibration:
    """The recommendation for these score distributions."""
    if not answerable:
        raise ValueError("calibration needs at least one answerable query")
    ans = sorted(answerable)
    una = sorted(unanswerable)
    if not una:
        # Nothing to separate from: keep 95 % of answerable queries above the line.
        index = max(0, int(len(ans) * 0.05) - 1) if len(ans) >= 20 else 0
        threshold = round(max(0.0, ans[index] - 0.02), 3)
        method = "answerable-only"
    elif ans[0] > una[-1]:
        threshold = round((ans[0] + una[-1]) / 2, 3)
        method = "gap-midpoint"
    else:
        cuts = sorted(set(ans) | set(una))
        candidates = [(a + b) / 2 for a, b in itertools.pairwise(cuts)]
        candidates = [cuts[0] - 1e-3, *candidates, cuts[-1] + 1e-3]
        errors = []
        for cut in candidates:
            fpr, fnr = _rates(cut, ans, una)
            errors.append((fpr or 0.0) + (fnr or 0.0))
        best = min(errors)
        tied = [cut for cut, error in zip(candidates, errors, strict=True) if error <= best + 1e-9]
        threshold = round(tied[len(tied) // 2], 3)
        method = "min-error"
    fpr, fnr = _rates(threshold, ans, una)
    return Calibration(threshold, method, fpr, fnr, tuple(ans), tuple(una))


@dataclass(frozen=True)
class ScoredQuery:
    """A calibration query's best cosine, and whether that passage is in another language
    than the query."""

    cosine: float
    answerable: bool
    cross_language: bool = False


def recommend_for_pairs(
    queries: Sequence[ScoredQuery], default_offset: float
) -> tuple[float, Calibration]:
    """The cross-language offset (measured on the answerable queries of both kinds, else
    `default_offset`) and the threshold recommended on the scores it normalises."""
    answerable = [q for q in queries if q.answerable]
    offset = measured_offset(
        [q.cosine for q in answerable if not q.cross_language],
        [q.cosine for q in answerable if q.cross_language],
        default_offset,
    )

    def score(query: ScoredQuery) -> float:
        return query.cosine + offset if query.cross_language else query.cosine

    calibration = recommend_threshold(
        [score(q) for q in answerable], [score(q) for q in queries if not q.answerable]
    )
    return offset, calibration


def plot_histogram(calibration: Calibration, path: Path, *, title: str = "") -> Path:
    """Histogram of best scores, answerable vs unanswerable, with the threshold line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=110)
    values = list(calibration.answerable) + list(calibration.unanswerable)
    low, high = min([*values, calibration.threshold]), max([*values, calibration.threshold])
    bins = [low + (high - low) * i / 30 for i in range(31)] if high > low else 10
    axes.hist(calibration.answerable, bins=bins, alpha=0.6, label="answerable", color="#2a9d8f")
    if calibration.unanswerable:
        axes.hist(
            calibration.unanswerable, bins=bins, alpha=0.6, label="unanswerable", color="#e76f51"
        )
    axes.axvline(
        calibration.threshold,
        color="#264653",
        linestyle="--",
        label=f"threshold {calibration.threshold:.3f}",
    )
    axes.set_xlabel("best cosine score of the query")
    axes.set_ylabel("queries")
    axes.set_title(title or "Relevance threshold calibration")
    axes.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path


_KNOWLEDGE = re.compile(r"^knowledge:\s*(#.*)?$")
# (In a setting's pattern no two adjacent parts can match the same characters: the old
# `\s*[^#\n]*?\s*` could backtrack cubically on a long run of spaces.)


def write_threshold(site_file: Path, threshold: float) -> None:
    """Set `knowledge.relevance_threshold` in the site YAML, keeping comments and layout."""
    write_knowledge_value(site_file, "relevance_threshold", threshold)


def write_knowledge_value(site_file: Path, key: str, number: float) -> None:
    """Set `knowledge.<key>` to a number in the site YAML, keeping comments and layout."""
    if not re.fullmatch(r"[a-z_]+", key):
        raise ValueError(f"not a knowledge setting: {key!r}")
    pattern = re.compile(rf"^([ \t]+){key}:([^#\n]*)(#.*)?$")
    lines = site_file.read_text(encoding="utf-8").splitlines()
    value = f"{number:.3f}"
    start = next((i for i, line in enumerate(lines) if _KNOWLEDGE.match(line)), None)
    if start is None:
        lines += ["knowledge:", f"  {key}: {value}"]
    else:
        end = next(
            (
                i
                for i in range(start + 1, len(lines))
                if lines[i] and not lines[i][0].isspace() and not lines[i].startswith("#")
            ),
            len(lines),
        )
        for i in range(start + 1, end):
            match = pattern.match(lines[i])
            if match:
                old_value, comment = match.group(2), match.group(3)
                gap = old_value[len(old_value.rstrip()) :] if comment else ""
                lines[i] = f"{match.group(1)}{key}: {value}{gap}{comment or ''}"
                break
        else:
            indent = next(
                (
                    re.match(r"\s+", lines[i]).group(0)  # type: ignore[union-attr]
                    for i in range(start + 1, end)
                    if lines[i].strip() and lines[i][0].isspace()
                ),
                "  ",
            )
            lines.insert(start + 1, f"{indent}{key}: {value}")
    site_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
