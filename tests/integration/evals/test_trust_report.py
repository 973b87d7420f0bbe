"""`frontdesk eval trust` end to end on a small site (three pages, hashing embedder): the
questions come from its pages, every one goes through the real graph, the report is
stored and the trend grows; a sync that changes content queues a run the worker runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from frontdesk.cli import app
from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.trust import TrustStore
from tests.conftest import SHARED_DATASETS
from tests.integration.evals.conftest import PAGES

pytestmark = pytest.mark.integration
runner = CliRunner()


def _ingest(settings: Settings) -> None:
    runtime = build_runtime(settings)
    try:
        ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
    finally:
        runtime.close()


def _trust(settings: Settings, out: Path, *extra: str) -> object:
    args = ["eval", "trust", "tiny", "-n", "9", "--sites-dir", str(settings.sites_dir)]
    return runner.invoke(app, [*args, "-o", str(out), "--json", *extra])


def test_the_report_runs_through_the_graph_is_stored_and_shows_the_trend(
    tiny_settings: Settings, tmp_path: Path
) -> None:
    _ingest(tiny_settings)
    out = tmp_path / "reports"
    done = _trust(tiny_settings, out)
    assert done.exit_code == 0, done.output
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["site"] == "tiny" and figures["errors"] == 0
    assert (figures["generated"], figures["unanswerable"], figures["off_topic"]) == (5, 2, 2)
    assert figures["pages"] == len(PAGES)
    for share in ("answered", "grounded", "abstained", "refused"):
        assert 0.0 <= figures[share] <= 1.0
    assert figures["grounded"] <= figures["answered"]
    report = json.loads((out / "trust" / "tiny.json").read_text(encoding="utf-8"))
    generated = [q for q in report["questions"] if q["kind"] == "generated"]
    assert {q["doc_id"] for q in generated} <= set(PAGES)
    assert all(q["routing"] for q in report["questions"])  # each went through the graph
    for question in generated:  # grounded is checked, never assumed
        if question["grounded"]:
            assert question["doc_id"] in question["cited_doc_ids"]
            assert question["support"] >= 0.5
    assert set(report["examples"]) == {"generated", "unanswerable", "off_topic"}

    again = _trust(tiny_settings, out)
    assert again.exit_code == 0, again.output
    assert "Trend" in again.stdout
    runtime = build_runtime(tiny_settings)
    try:
        store = TrustStore(runtime.engine)
        runs = store.history("tiny")
        full = [store.get(run.id) for run in runs]
    finally:
        runtime.close()
    assert [run.status for run in runs] == ["done", "done"]
    asked = [[q["text"] for q in (run.report or {}).get("questions", [])] for run in full]
    assert asked[0] == asked[1] and asked[0]  # the same content, the same questions


def test_a_site_without_content_or_an_unknown_site_exits_2_and_keeps_earlier_runs(
    tiny_settings: Settings, tmp_path: Path
) -> None:
    done = _trust(tiny_settings, tmp_path)
    assert done.exit_code == 2
    assert "no indexed content" in done.output
    unknown = runner.invoke(
        app, ["eval", "trust", "acme", "--sites-dir", str(tiny_settings.sites_dir)]
    )
    assert unknown.exit_code == 2 and "tiny" in unknown.output
    runtime = build_runtime(tiny_settings)
    try:
        runs = TrustStore(runtime.engine).history("tiny")
    finally:
        runtime.close()
    assert [(run.status, run.trigger) for run in runs] == [("failed", "cli")]
    assert "no indexed content" in (runs[0].error or "")


async def test_an_upload_that_changes_content_queues_a_run_that_the_worker_runs(
    tiny_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontdesk.api.ingestion import ingest_upload, open_knowledge_base
    from frontdesk.evals.trust_jobs import run_queued

    _ingest(tiny_settings)
    settings = tiny_settings.model_copy(update={"trust_questions": 6})
    runtime = build_runtime(settings)
    try:
        store = TrustStore(runtime.engine)
        knowledge = open_knowledge_base(runtime)
        page = b"# Gift cards\n\nGift cards are sold in the shop and never expire."
        ingest_upload(knowledge, runtime.site("tiny"), page, "gift-cards.md")
        ingest_upload(knowledge, runtime.site("tiny"), page, "gift-cards.md")  # unchanged
        queued = store.next_queued()
        assert [(run.site_id, run.trigger) for run in queued] == [("tiny", "sync")]
        ran = await run_queued(runtime)
        assert ran == [queued[0].id]
        run = store.get(queued[0].id)
        assert run is not None and run.status == "done", run and run.error
        assert run.figures["questions"] == 6 and run.report is not None
        assert run.figures["pages"] == len(PAGES) + 1
        assert store.next_queued() == []
    finally:
        runtime.close()


RUTUBE = SHARED_DATASETS / "sites" / "rutube_support_ru"


def test_a_development_site_without_its_dataset_exits_2_and_says_where(tmp_path: Path) -> None:
    done = runner.invoke(
        app, ["eval", "trust", "rutube-support-ru", "--datasets-dir", str(tmp_path / "none")]
    )
    assert done.exit_code == 2
    assert "not found" in done.output


@pytest.mark.skipif(not RUTUBE.is_dir(), reason=f"shared datasets not found at {RUTUBE}")
def test_a_development_site_gets_questions_in_its_own_language(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    args = ["eval", "trust", "rutube-support-ru", "-n", "9", "--pages", "12", "--json"]
    done = runner.invoke(app, [*args, "-o", str(out)])
    assert done.exit_code == 0, done.output
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["pages"] == 12 and figures["errors"] == 0
    report = json.loads((out / "trust" / "rutube-support-ru.json").read_text(encoding="utf-8"))
    generated = [q for q in report["questions"] if q["kind"] == "generated"]
    assert generated and all(q["language"] == "ru" for q in generated)
    assert all(q["doc_id"].startswith("rt-") for q in generated)
