"""The cross-lingual development set of benchmarks/multilingual_retrieval.py: visitors'
questions in other languages about the demo's English pages, each with its gold pages."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / "benchmarks" / "data" / "crosslingual_demo.jsonl"
KB = REPO / "src" / "frontdesk" / "demo" / "kb"


def test_every_question_has_english_gold_pages_that_exist() -> None:
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    english = {path.name for path in KB.glob("*.md") if not path.name.startswith("ru-")}
    assert len({row["query_id"] for row in rows}) == len(rows)
    for row in rows:
        assert row["gold_doc_ids"] and set(row["gold_doc_ids"]) <= english, row
    per_language = Counter(row["lang"] for row in rows)
    assert per_language["ru"] >= 40 and per_language["es"] >= 40, per_language
    assert set(per_language) == {"ru", "es", "fr", "pt"}
