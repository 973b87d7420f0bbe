"""`frontdesk eval injection --by-source` on the shared datasets: a fast run (at most 150
rows per source) that must clear its gates, and the figures it must report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from frontdesk.cli import app

pytestmark = pytest.mark.integration

runner = CliRunner()
SHARED_DATASETS = Path(__file__).resolve().parents[3].parent / "shared" / "datasets"
needs_datasets = pytest.mark.skipif(
    not (SHARED_DATASETS / "injection" / "dev.jsonl").exists(),
    reason=f"shared datasets not found at {SHARED_DATASETS} (see ../shared/datasets/README.md)",
)


@needs_datasets
def test_fast_leave_source_out_run_clears_its_gates(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "eval",
            "injection",
            "--by-source",
            "--datasets-root",
            str(SHARED_DATASETS),
            "--rows-per-source",
            "150",
            "--min-injection-recall",
            "0.85",
            "--output",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    held = {row["source"]: row for row in summary["held_out"]}
    # Every public source is scored by a model that never saw it.
    assert held["gandalf"]["trained_on_others"] is False
    assert held["gandalf"]["recall"] >= 0.9
    assert held["giskard"]["recall"] >= 0.9
    assert held["clinc150"]["false_positive_rate"] <= 0.03
    external = {row["source"]: row for row in summary["external"]}
    assert {"clinc150_val", "xsid_valid"} <= set(external)
    assert any(name.startswith("sites/") for name in external)
    assert any(name.startswith("retrieval/") for name in external)
    assert summary["external_false_positive_rate"] <= 0.01
    report = json.loads((tmp_path / "injection_sources" / "report.json").read_text("utf-8"))
    assert report["summary"]["passed"] is True


def test_a_missing_datasets_folder_is_an_input_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["eval", "injection", "--by-source", "--datasets-root", str(tmp_path / "none")]
    )
    assert result.exit_code == 2
    assert "--datasets-root" in result.output
