"""Threshold recommendation, the histogram and writing the site file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from frontdesk.knowledge.calibrate import (
    plot_histogram,
    read_calibration_queries,
    recommend_threshold,
    write_threshold,
)

pytestmark = pytest.mark.unit


def test_separated_distributions_use_the_midpoint_of_the_gap() -> None:
    calibration = recommend_threshold([0.43, 0.6, 0.7], [0.2, 0.345])
    assert calibration.method == "gap-midpoint"
    assert calibration.threshold == pytest.approx(0.3875, abs=1e-3)
    assert calibration.false_positive_rate == 0.0
    assert calibration.false_negative_rate == 0.0
    assert calibration.meets_targets


def test_overlapping_distributions_minimise_total_error() -> None:
    answerable = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.35]
    unanswerable = [0.2, 0.25, 0.3, 0.4, 0.62]
    calibration = recommend_threshold(answerable, unanswerable)
    assert calibration.method == "min-error"
    assert 0.4 < calibration.threshold < 0.5
    assert calibration.false_positive_rate == pytest.approx(1 / 5)
    assert calibration.false_negative_rate == pytest.approx(1 / 7)
    assert not calibration.meets_targets
    assert "false positives 20.0%" in calibration.describe()


def test_answerable_only_keeps_most_answerable_queries() -> None:
    scores = [0.4 + i / 100 for i in range(40)]
    calibration = recommend_threshold(scores, [])
    assert calibration.method == "answerable-only"
    assert calibration.false_negative_rate is not None
    assert calibration.false_negative_rate <= 0.05
    with pytest.raises(ValueError, match="answerable"):
        recommend_threshold([], [0.1])


def test_histogram_is_a_png(tmp_path: Path) -> None:
    calibration = recommend_threshold([0.5, 0.6, 0.7], [0.1, 0.3])
    path = plot_histogram(calibration, tmp_path / "plots" / "site.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


SITE = """# Demo site
id: demo
knowledge:
  sources: [../kb]   # the docs
  top_k: 7
  relevance_threshold: 0.35  # calibrated once
widget:
  public_key: pk_x
"""


def test_write_threshold_replaces_value_and_keeps_comments(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(SITE, encoding="utf-8")
    write_threshold(path, 0.4123)
    text = path.read_text(encoding="utf-8")
    assert "  relevance_threshold: 0.412  # calibrated once" in text
    assert "# Demo site" in text and "# the docs" in text
    assert yaml.safe_load(text)["knowledge"]["relevance_threshold"] == 0.412


def test_write_threshold_inserts_into_knowledge_or_adds_section(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("id: a\nknowledge:\n    top_k: 5\nwidget:\n  public_key: k\n", "utf-8")
    write_threshold(path, 0.3)
    loaded = yaml.safe_load(path.read_text("utf-8"))
    assert loaded["knowledge"] == {"relevance_threshold": 0.3, "top_k": 5}
    bare = tmp_path / "b.yaml"
    bare.write_text("id: b\nwidget:\n  public_key: k\n", "utf-8")
    write_threshold(bare, 0.25)
    assert yaml.safe_load(bare.read_text("utf-8"))["knowledge"]["relevance_threshold"] == 0.25


def test_read_calibration_queries(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"query": "refunds?", "answerable": true}\n\n'
        '{"query": "weather?", "answerable": false}\n'
        '{"query": "tax?", "is_impossible": true}\n'
        '{"query": "plan?", "gold_doc_ids": ["p"]}\n'
        '{"query": "bare"}\n',
        encoding="utf-8",
    )
    assert read_calibration_queries(path) == [
        ("refunds?", True),
        ("weather?", False),
        ("tax?", False),
        ("plan?", True),
        ("bare", True),
    ]
    path.write_text('{"question": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"q\.jsonl:1"):
        read_calibration_queries(path)


def test_write_threshold_survives_a_line_built_to_backtrack(tmp_path: Path) -> None:
    # The old pattern (`\s*[^#\n]*?(\s*#.*)?`) backtracked cubically on a long run of
    # spaces: this line would hang it. The file's other lines must survive untouched.
    site = tmp_path / "site.yaml"
    site.write_text("id: x\nknowledge:\n  relevance_threshold:" + " " * 5000 + "\n", "utf-8")
    write_threshold(site, 0.5)
    assert site.read_text("utf-8").splitlines() == [
        "id: x",
        "knowledge:",
        "  relevance_threshold: 0.500",
    ]
