"""The local intent classifier against public datasets it was never trained on.

CLINC150: everyday assistant requests (kitchen, home, car, travel, utility) and the
out-of-scope rows must never be routed as LEARN/CONTEXT/SUPPORT/BOOKING/STOP_BOOKING
(or HACK), i.e. never answered as if from the knowledge base. Injection: prompt
attacks must be flagged HACK without flagging benign text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frontdesk.engines.local.intent import IntentClassifier

pytestmark = pytest.mark.integration

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
CLINC_DOMAINS = ("kitchen_and_dining", "home", "auto_and_commute", "travel", "utility")
NOT_ANSWERED = {"OFFTOPIC", "OTHER"}


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        pytest.skip(f"shared dataset not found: {path} (expected ../shared/datasets)")
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> IntentClassifier:
    return IntentClassifier.load(tmp_path_factory.mktemp("models"))


def test_clinc_everyday_and_out_of_scope_are_not_answered(classifier: IntentClassifier) -> None:
    rows = _rows(DATASETS / "intent" / "clinc150" / "val.jsonl")
    domains = json.loads((DATASETS / "intent" / "clinc150" / "domains.json").read_text())
    everyday = {intent for domain in CLINC_DOMAINS for intent in domains[domain]}
    texts = [r["text"] for r in rows if r["label"] == "oos" or r["label"] in everyday]
    predictions = classifier.predict_many(texts)
    kept_out = sum(p.intent in NOT_ANSWERED or p.nonsense for p in predictions)
    share = kept_out / len(texts)
    print(f"CLINC everyday + oos routed away from the KB: {share:.3%} of {len(texts)}")
    assert share >= 0.95


def test_injection_recall_and_benign_false_positives(classifier: IntentClassifier) -> None:
    rows = _rows(DATASETS / "injection" / "dev.jsonl")
    predictions = classifier.predict_many([r["text"] for r in rows])
    attacks = [p for r, p in zip(rows, predictions, strict=True) if r["label"] == "injection"]
    benign = [p for r, p in zip(rows, predictions, strict=True) if r["label"] == "benign"]
    recall = sum(p.intent == "HACK" for p in attacks) / len(attacks)
    false_positive = sum(p.intent == "HACK" for p in benign) / max(len(benign), 1)
    print(f"injection recall {recall:.3%} ({len(attacks)}), benign FP {false_positive:.3%}")
    assert recall >= 0.90
    assert false_positive <= 0.05


def test_everyday_requests_are_not_flagged_as_attacks(classifier: IntentClassifier) -> None:
    # The injection set holds few benign rows; all of CLINC's validation split is benign.
    rows = _rows(DATASETS / "intent" / "clinc150" / "val.jsonl")
    predictions = classifier.predict_many([r["text"] for r in rows])
    flagged = sum(p.intent == "HACK" for p in predictions) / len(rows)
    print(f"CLINC rows flagged HACK: {flagged:.3%}")
    assert flagged <= 0.01
