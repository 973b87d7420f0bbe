"""`frontdesk kb …` and `frontdesk eval retrieval` through Typer's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from frontdesk.cli.eval import eval_retrieval
from frontdesk.cli.eval_corpus import RETRIEVAL_JSON_KEYS
from frontdesk.cli.kb import kb_app

pytestmark = pytest.mark.integration

runner = CliRunner()


@pytest.fixture
def kb_site(sites_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A site file `kbtest.yaml` (hashing embedder) beside the demo site, and its kb folder."""
    kb = tmp_path / "kbtest-docs"
    kb.mkdir()
    (kb / "refunds.md").write_text(
        "# Refunds\n\nRefunds are paid back to the original card within 30 days.", "utf-8"
    )
    (kb / "shipping.txt").write_text("Orders ship from our warehouse within two days.", "utf-8")
    (kb / "case-study-bank.html").write_text(
        "<html><body><main><h1>Case study: bank</h1><p>A retail bank cut support tickets "
        "with automation.</p></main></body></html>",
        "utf-8",
    )
    config = yaml.safe_load((sites_dir / "demo.yaml").read_text("utf-8"))
    config["id"] = "kbtest"
    config["widget"]["public_key"] = "pk_kbtest_0000000001"
    config["knowledge"] = {"sources": [str(kb)], "embedding": "hash:256", "top_k": 3}
    site_file = sites_dir / "kbtest.yaml"
    site_file.write_text("# test site\n" + yaml.safe_dump(config, sort_keys=False), "utf-8")
    return site_file, kb


def invoke(*args: str, sites_dir: Path) -> tuple[int, str]:
    result = runner.invoke(kb_app, [*args, "--sites-dir", str(sites_dir)], env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_ingest_list_search_remove(kb_site: tuple[Path, Path], sites_dir: Path) -> None:
    _site_file, kb = kb_site
    code, out = invoke("ingest", "kbtest", "--no-progress", sites_dir=sites_dir)
    assert code == 0, out
    assert "3 ingested" in out and "0 failed" in out
    code, out = invoke("ingest", "kbtest", str(kb), "--no-progress", sites_dir=sites_dir)
    assert code == 0 and "3 skipped (unchanged)" in out

    code, out = invoke("list", "kbtest", sites_dir=sites_dir)
    assert code == 0
    for doc_id in ("refunds.md", "shipping.txt", "case-study-bank.html"):
        assert doc_id in out

    code, out = invoke("search", "kbtest", "refunds original card", sites_dir=sites_dir)
    assert code == 0, out
    assert "status ok" in out and "refunds.md" in out and "score" in out

    code, out = invoke("search", "kbtest", "refunds original card", "--json", sites_dir=sites_dir)
    payload = json.loads(out)
    assert payload["status"] == "ok"
    assert set(payload["chunks"][0]) >= {
        "chunk_id",
        "doc_id",
        "title",
        "url",
        "content",
        "score",
        "source",
        "chunk_index",
    }
    assert "proactive_case_study" in payload

    code, out = invoke("remove", "kbtest", "shipping.txt", sites_dir=sites_dir)
    assert code == 0 and "removed shipping.txt" in out
    code, out = invoke("remove", "kbtest", "shipping.txt", sites_dir=sites_dir)
    assert code == 1 and "no document" in out

    code, out = invoke("reindex", "kbtest", sites_dir=sites_dir)
    assert code == 0 and "2 chunks" in out, out  # refunds + case study, shipping removed
    code, out = invoke("search", "kbtest", "refunds original card", sites_dir=sites_dir)
    assert code == 0 and "refunds.md" in out


def test_reindex_rebuilds_the_second_index_and_drops_one_turned_off(
    kb_site: tuple[Path, Path], sites_dir: Path
) -> None:
    site_file, _ = kb_site
    config = yaml.safe_load(site_file.read_text("utf-8"))
    config["knowledge"]["english_embedding"] = "hash:128"
    site_file.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    code, out = invoke("ingest", "kbtest", "--no-progress", sites_dir=sites_dir)
    assert code == 0 and "3 ingested" in out, out

    code, out = invoke("reindex", "kbtest", sites_dir=sites_dir)
    assert code == 0, out
    assert "rebuilt the vector index kbtest: 3 chunks" in out
    assert "rebuilt the vector index kbtest#hash:128: 3 chunks" in out

    config["knowledge"]["english_embedding"] = None
    site_file.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    code, out = invoke("reindex", "kbtest", sites_dir=sites_dir)
    assert code == 0, out
    assert "dropped the second index kbtest#hash:128" in out
    assert "rebuilt the vector index kbtest: 3 chunks" in out
    assert out.count("rebuilt the vector index") == 1
    code, out = invoke("search", "kbtest", "refunds original card", sites_dir=sites_dir)
    assert code == 0 and "refunds.md" in out


def test_ingest_reports_failures_and_exits_non_zero(
    kb_site: tuple[Path, Path], sites_dir: Path
) -> None:
    _, kb = kb_site
    (kb / "manual.pdf").write_bytes(b"%PDF-1.4 broken")
    code, out = invoke("ingest", "kbtest", str(kb), "--no-progress", sites_dir=sites_dir)
    assert code == 1
    assert "manual.pdf: not a readable PDF" in out
    assert "3 ingested" in out and "1 failed" in out


def test_unknown_site_is_a_clear_error(sites_dir: Path) -> None:
    code, out = invoke("list", "nope", sites_dir=sites_dir)
    assert code == 1 and "unknown site 'nope'" in out


def test_calibrate_writes_threshold_and_plot(
    kb_site: tuple[Path, Path], sites_dir: Path, tmp_path: Path
) -> None:
    site_file, _ = kb_site
    assert invoke("ingest", "kbtest", "--no-progress", sites_dir=sites_dir)[0] == 0
    queries = tmp_path / "calibration.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps(item)
            for item in [
                {"query": "refunds paid back to the original card", "answerable": True},
                {"query": "orders ship from our warehouse", "answerable": True},
                {"query": "retail bank support tickets automation", "answerable": True},
                {"query": "quantum chromodynamics on a lattice", "answerable": False},
                {"query": "lasagne recipe with spinach", "answerable": False},
            ]
        ),
        "utf-8",
    )
    plot = tmp_path / "hist.png"
    code, out = invoke(
        "calibrate",
        "kbtest",
        "--queries",
        str(queries),
        "--plot",
        str(plot),
        "--json",
        sites_dir=sites_dir,
    )
    assert code == 0, out
    payload = json.loads(out.strip().splitlines()[-1])
    assert payload["method"] == "gap-midpoint"
    assert payload["meets_targets"] is True
    assert plot.read_bytes()[:4] == b"\x89PNG"
    written = yaml.safe_load(site_file.read_text("utf-8"))
    assert written["knowledge"]["relevance_threshold"] == pytest.approx(payload["threshold"])
    assert site_file.read_text("utf-8").startswith("# test site")
    code, out = invoke("search", "kbtest", "lasagne recipe with spinach", sites_dir=sites_dir)
    assert "no_result" in out and "below_threshold" in out


def test_calibrate_measures_the_cross_language_offset(
    kb_site: tuple[Path, Path], sites_dir: Path, tmp_path: Path
) -> None:
    """Questions asked in another language than the pages score lower by their cosine: the
    site's offset is measured from them and written beside the threshold."""
    site_file, _ = kb_site
    assert invoke("ingest", "kbtest", "--no-progress", sites_dir=sites_dir)[0] == 0
    english = [
        "refunds paid back to the original card",
        "orders ship from our warehouse",
        "retail bank support tickets automation",
        "refunds to the card",
        "when do orders ship",
        "warehouse shipping times",
        "support tickets for banks",
        "paid back refunds",
    ]
    russian = [
        "возврат денег на карту",
        "когда отправляют заказы",
        "автоматизация обращений банка",
        "сроки доставки со склада",
        "как вернуть оплату",
        "заказы со склада",
        "поддержка для розницы",
        "деньги вернут на карту",
    ]
    queries = tmp_path / "calibration.jsonl"
    items = [{"query": q, "answerable": True} for q in english + russian]
    items += [{"query": "quantum chromodynamics on a lattice", "answerable": False}]
    queries.write_text("\n".join(json.dumps(item) for item in items), "utf-8")
    code, out = invoke(
        "calibrate", "kbtest", "--queries", str(queries), "--json", sites_dir=sites_dir
    )
    assert code == 0, out
    payload = json.loads(out.strip().splitlines()[-1])
    assert payload["answerable_cross_language"] == len(russian)
    assert payload["cross_language_offset"] > 0
    written = yaml.safe_load(site_file.read_text("utf-8"))["knowledge"]
    assert written["cross_language_offset"] == pytest.approx(payload["cross_language_offset"])
    assert written["relevance_threshold"] == pytest.approx(payload["threshold"])


CORPUS = [
    {"doc_id": "d1", "title": "Refunds", "text": "Refunds are paid to the original card."},
    {"doc_id": "d2", "title": "Shipping", "text": "Orders ship within two days."},
    {"doc_id": "d3", "title": "Passwords", "text": "Reset your password under Security."},
]
QUERIES = [
    {"query_id": "q1", "query": "refunds to my card", "gold_doc_ids": ["d1"]},
    {"query_id": "q2", "query": "when do orders ship", "gold_doc_ids": ["d2"]},
    {"query_id": "q3", "query": "reset password", "gold_doc_ids": ["d3"], "answerable": True},
    {"query_id": "q4", "query": "quantum lattice gauge", "gold_doc_ids": [], "answerable": False},
    {"query_id": "q5", "query": "volcano eruption", "gold_doc_ids": ["-1"], "is_impossible": True},
]


def write_dataset(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    corpus, queries = folder / "corpus.jsonl", folder / "queries.jsonl"
    corpus.write_text("\n".join(json.dumps(x) for x in CORPUS) + "\n", "utf-8")
    queries.write_text("\n".join(json.dumps(x) for x in QUERIES) + "\n", "utf-8")
    return corpus, queries


def check_json_contract(stdout: str) -> dict[str, object]:
    last = stdout.strip().splitlines()[-1]
    payload = json.loads(last)
    assert list(payload) == list(RETRIEVAL_JSON_KEYS)
    assert payload["queries"] == 5
    for key in ("hit@1", "hit@5", "hit@10", "mrr", "abstain_precision", "abstain_recall"):
        assert isinstance(payload[key], float | int) and 0.0 <= payload[key] <= 1.0
    assert payload["p95_ms"] >= payload["p50_ms"] > 0
    return payload


def test_eval_retrieval_json_contract(tmp_path: Path) -> None:
    corpus, queries = write_dataset(tmp_path / "tiny")
    app = typer.Typer()
    app.command()(eval_retrieval)
    result = runner.invoke(
        app,
        [
            "--corpus",
            str(corpus),
            "--queries",
            str(queries),
            "--embedding",
            "hash:256",
            "--threshold",
            "0.2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = check_json_contract(result.stdout)
    assert payload["abstain_recall"] == 1.0 and payload["abstain_precision"] == 1.0
    table = runner.invoke(
        app, ["--corpus", str(corpus), "--queries", str(queries), "--embedding", "hash:256"]
    )
    assert table.exit_code == 0 and "hit@5" in table.stdout and "{" not in table.stdout


def test_frontdesk_eval_retrieval_subprocess(tmp_path: Path) -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "frontdesk", "eval", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    if "retrieval" not in help_text:
        pytest.skip("`frontdesk eval retrieval` is not mounted in frontdesk.cli yet")
    corpus, queries = write_dataset(tmp_path / "tiny")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "frontdesk",
            "eval",
            "retrieval",
            "--corpus",
            str(corpus),
            "--queries",
            str(queries),
            "--embedding",
            "hash:256",
            "--threshold",
            "0.2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    check_json_contract(done.stdout)


def test_crawl_learns_a_site_keeps_it_as_a_source_and_fails_cleanly(
    kb_site: tuple[Path, Path], sites_dir: Path
) -> None:
    from tests.support.website import LoopbackWebsite

    with LoopbackWebsite(pages=30, slow_s=0.0) as website:
        start = website.url + "/"
        refused = invoke("crawl", "kbtest", start, "--no-progress", sites_dir=sites_dir)
        assert refused[0] == 1 and "not a public address" in refused[1]
        assert "nothing was changed" in refused[1]

        code, out = invoke(
            "crawl", "kbtest", start, "--allow-private-network", "--no-progress",
            sites_dir=sites_dir,
        )  # fmt: skip
        assert code == 0, out
        for column in ("found", "fetched", "unchanged", "changed", "removed", "failed"):
            assert column in out
        assert "HTTP 404" in out and "1 disallowed by robots.txt" in out
        assert "1 canonical" in out and "1 duplicate" in out and "1 redirects" in out
        code, listed = invoke("list", "kbtest", sites_dir=sites_dir)
        assert f"{website.url}/docs/page-29.html" in listed.replace("\n", "")

        # Kept as a source: a plain `kb crawl kbtest` re-syncs it, and nothing changed.
        code, again = invoke("crawl", "kbtest", "--no-progress", sites_dir=sites_dir)
        assert code == 0, again
        assert "0 chunks embedded" in again
    # The server is gone: the crawl fails, says so, and the knowledge base is untouched.
    code, out = invoke("crawl", "kbtest", "--no-progress", sites_dir=sites_dir)
    assert code == 1 and "did not answer" in out and "nothing was changed" in out
    code, listed_after = invoke("list", "kbtest", sites_dir=sites_dir)
    assert listed_after == listed


def test_a_changed_embedding_model_is_re_embedded_by_kb_reembed(
    kb_site: tuple[Path, Path], sites_dir: Path
) -> None:
    site_file, kb = kb_site
    code, out = invoke("ingest", "kbtest", "--no-progress", sites_dir=sites_dir)
    assert code == 0, out
    code, out = invoke("reembed", "kbtest", sites_dir=sites_dir)
    assert code == 0 and "nothing to re-embed" in out
    # The file that was ingested from the folder is gone: its text comes from its chunks.
    (kb / "shipping.txt").unlink()
    config = yaml.safe_load(site_file.read_text("utf-8"))
    config["knowledge"]["embedding"] = "hash:128"
    site_file.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")

    code, out = invoke("reembed", "kbtest", "--no-progress", sites_dir=sites_dir)
    assert code == 0, out
    assert "now answers with hash:128" in out and "kb calibrate kbtest" in out
    code, out = invoke("list", "kbtest", sites_dir=sites_dir)
    for doc_id in ("refunds.md", "shipping.txt", "case-study-bank.html"):
        assert doc_id in out
    code, out = invoke("search", "kbtest", "how fast do orders ship", "--json", sites_dir=sites_dir)
    payload = json.loads(out)
    assert payload["status"] == "ok" and payload["chunks"][0]["doc_id"] == "shipping.txt"
    assert "warehouse within two days" in payload["chunks"][0]["content"]
    # The vector files rebuilt are the new generation's, the one that answers now.
    code, out = invoke("reindex", "kbtest", sites_dir=sites_dir)
    assert code == 0 and "rebuilt the vector index kbtest@1: 3 chunks" in out, out
