"""The LLM judge path end to end: `frontdesk eval answers` with the site's judge role set to
a loopback server speaking the OpenAI API (the product itself stays on the local engine)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from frontdesk.cli import app
from frontdesk.evals.judge import CRITERIA
from tests.support.simulator import SimulatedProvider

pytestmark = pytest.mark.integration


def verdict(name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if name != "AnswerQuality":
        return None
    return {c: {"reasoning": f"{c}: fine", "score": 5 if c != "format" else 3} for c in CRITERIA}


@pytest.fixture
def provider() -> Iterator[SimulatedProvider]:
    with SimulatedProvider(structured=verdict) as sim:
        yield sim


def test_answers_are_scored_by_the_site_judge(
    provider: SimulatedProvider, tiny_sites: Path, tmp_path: Path
) -> None:
    site_file = tiny_sites / "tiny.yaml"
    config = yaml.safe_load(site_file.read_text(encoding="utf-8"))
    config["engine"] = {
        "name": "local",
        "roles": {"judge": "openai:judge-model"},
        "base_url": provider.base_url,
        "timeout_s": 5,
    }
    site_file.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps(
            {
                "id": "sla",
                "input": {"query": "What is your uptime SLA?"},
                "expected_output": {"response": "Gives 99.9% on Growth and 99.95% on Enterprise."},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "reports"
    done = CliRunner().invoke(
        app,
        [
            "eval",
            "answers",
            "--site",
            "tiny",
            "--sites-dir",
            str(tiny_sites),
            "-d",
            str(items),
            "-o",
            str(out),
            "--json",
        ],
    )
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout.strip().splitlines()[-1])
    assert payload["scored_by"] == "llm_judge" and payload["answer_accuracy"] == 1.0
    assert payload["judge_correctness"] == 1.0 and payload["judge_format"] == 0.5
    judged = provider.requests[-1]
    assert judged["model"] == "judge-model"
    assert "Gives 99.9% on Growth" in json.dumps(judged["messages"])
    report = json.loads((out / "answers" / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["judge"] == "openai:judge-model"
    scores = report["items"][0]["judge"]
    assert scores["format"] == {"score": 3, "normalised": 0.5, "reasoning": "format: fine"}
