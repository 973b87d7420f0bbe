"""all-MiniLM-L6-v2 on onnxruntime (`minilm_onnx.py`): the same tokens as the model's own
tokenizer and the torch model's vectors to int8 rounding, on real questions and pages."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from frontdesk.knowledge.embedding.embedders import (
    LocalEmbedder,
    bundled_model_dir,
    make_embedder,
)
from frontdesk.knowledge.embedding.minilm_onnx import MiniLMEmbedder, load_onnx_minilm

pytestmark = pytest.mark.integration
DATASETS = Path(__file__).resolve().parents[3].parent / "shared" / "datasets"
TEXTS = [
    "How do I reset my password?",
    "Can I change the delivery address after ordering?",
    "I was charged twice for the same invoice, please help!!",
    "Error 500 when uploading a file larger than 2 GB via the API (v2, Python SDK).",
    "Price: $49/month, billed annually; 3 seats included; extra seats cost $12.",
    "ÉCOLE café naïve — “quotes” … 日本語",
    "Wie kann ich mein Passwort zurücksetzen?",
    "word " * 400,  # past the 256-token window: cut there, as sentence-transformers does
]


def real_texts() -> list[str]:
    """Questions and pages of the English sets, when the shared datasets are present."""
    folder = DATASETS / "retrieval" / "covid_faq"
    if not (folder / "corpus.jsonl").is_file():
        return []
    pages = [json.loads(line) for line in (folder / "corpus.jsonl").open()][:20]
    questions = [json.loads(line) for line in (folder / "queries.jsonl").open()][:20]
    return [q["query"] for q in questions] + [f"{p['title']}\n{p['text']}" for p in pages]


def test_token_counts_equal_the_model_tokenizers() -> None:
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    embedder = make_embedder("local:all-MiniLM-L6-v2")
    assert isinstance(embedder, MiniLMEmbedder)
    for text in TEXTS:
        assert embedder.count_tokens(text) == len(reference.encode(text).ids)


def test_vectors_match_the_torch_models(_model_cache: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    texts = TEXTS + real_texts()
    onnx = load_onnx_minilm(bundled_model_dir(), _model_cache).embed(texts, is_query=False)
    torch = LocalEmbedder().embed_documents(texts)
    cosines = np.sum(onnx * torch, axis=1)
    assert np.allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)
    assert cosines.min() >= 0.99, [t[:40] for t, c in zip(texts, cosines, strict=True) if c < 0.99]
    assert float(np.mean(cosines)) >= 0.995
