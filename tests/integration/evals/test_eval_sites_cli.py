"""`frontdesk eval sites` end to end on the bundled clinic (a Spanish dental clinic): the
site is built from its pages, every question runs through the real graph, and the report
and the JSON line carry the per-site gates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from frontdesk.cli import app
from tests.conftest import SHARED_DATASETS

pytestmark = pytest.mark.integration
runner = CliRunner()


def test_missing_datasets_exit_2_and_say_where_to_put_them(tmp_path: Path) -> None:
    done = runner.invoke(app, ["eval", "sites", "--datasets-dir", str(tmp_path / "none")])
    assert done.exit_code == 2
    assert "--datasets-dir" in done.output


def test_unknown_site_exits_2() -> None:
    done = runner.invoke(app, ["eval", "sites", "--only", "acme"])
    assert done.exit_code == 2
    assert "clinica-dental-es" in done.output


@pytest.mark.skipif(
    not (SHARED_DATASETS / "intent" / "clinc150").is_dir(),
    reason=f"shared datasets not found at {SHARED_DATASETS}",
)
def test_full_and_held_out_exclude_each_other() -> None:
    done = runner.invoke(app, ["eval", "sites", "--full", "--held-out", "--only", "stackfaq-en"])
    assert done.exit_code == 2
    assert "exclude each other" in done.output


@pytest.mark.skipif(
    not (SHARED_DATASETS / "intent" / "clinc150").is_dir(),
    reason=f"shared datasets not found at {SHARED_DATASETS}",
)
def test_the_bundled_clinic_is_measured_and_gated(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    done = runner.invoke(
        app, ["eval", "sites", "--only", "clinica-dental-es", "-o", str(out), "--json"]
    )
    assert done.exit_code in (0, 1), done.output  # 1: a gate missed, reported not crashed
    payload = json.loads(done.stdout.strip().splitlines()[-1])
    metrics = payload  # one site: its metrics at the top level
    assert metrics["answerable"] == 26 and metrics["unanswerable"] == 10
    assert metrics["everyday"] == 50  # its own 10 off-topic questions + 40 CLINC150 requests
    assert metrics["errors"] == 0
    gated = {check["metric"] for check in payload["checks"]}
    assert gated >= {"answered", "answerable_not_refused", "everyday_refused", "abstain_recall"}
    assert payload["passed"] == (done.exit_code == 0)
    report = json.loads((out / "sites" / "report.json").read_text(encoding="utf-8"))
    assert len(report["items"]) == 86
    assert all("site_support" in item for item in report["items"])
