"""Acceptance on ../shared/datasets/retrieval (skipped when the datasets are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from frontdesk.knowledge.evaluate import evaluate_retrieval

# About a minute each on an idle 2-core machine; generous limits for a busy one.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]

DATASETS = Path(__file__).resolve().parents[3].parent / "shared" / "datasets" / "retrieval"


def dataset(name: str) -> Path:
    folder = DATASETS / name
    if not (folder / "corpus.jsonl").is_file() or not (folder / "queries.jsonl").is_file():
        pytest.skip(f"dataset {folder} is not available (needs ../shared/datasets/retrieval)")
    return folder


MINILM = "local:all-MiniLM-L6-v2"
E5 = "local:multilingual-e5-small"


def test_stackfaq_beats_plain_whole_document_cosine() -> None:
    folder = dataset("stackfaq")
    metrics = evaluate_retrieval(
        folder / "corpus.jsonl", folder / "queries.jsonl", embedding=MINILM
    ).metrics()
    # Plain whole-document MiniLM cosine: hit@5 0.994, MRR 0.942 on this set.
    assert metrics["hit@5"] >= 0.98
    assert metrics["mrr"] >= 0.942
    assert metrics["queries"] == 1249


def test_stackfaq_with_the_multilingual_default() -> None:
    folder = dataset("stackfaq")
    metrics = evaluate_retrieval(
        folder / "corpus.jsonl", folder / "queries.jsonl", embedding=E5
    ).metrics()
    # The product's default for an English site, e5 with MiniLM's second index: measured
    # 0.998 hit@5 / 0.958 MRR (benchmarks/english_fusion.py), e5 alone 0.993 / 0.945. The
    # bar for English is 0.99.
    assert metrics["hit@5"] >= 0.99
    assert metrics["mrr"] >= 0.935


def test_covid_faq_reports_abstention() -> None:
    folder = dataset("covid_faq")
    metrics = evaluate_retrieval(
        folder / "corpus.jsonl", folder / "queries.jsonl", embedding=MINILM
    ).metrics()
    assert metrics["unanswerable"] == 121
    assert metrics["abstain_precision"] is not None and metrics["abstain_precision"] >= 0.8
    assert metrics["abstain_recall"] is not None and metrics["abstain_recall"] > 0.0
    assert metrics["hit@5"] >= 0.8
