"""The bundled MiniLM model, offline: loading (onnxruntime by default, torch when asked),
chunk-size cap, multilingual hybrid search."""

from __future__ import annotations

import os

import numpy as np
import pytest

from frontdesk.knowledge.embedding.embedders import LocalEmbedder, bundled_model_dir, make_embedder
from frontdesk.knowledge.embedding.minilm_onnx import MiniLMEmbedder
from frontdesk.knowledge.ingest.ingestor import IngestOptions, effective_options
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("engine", ["onnxruntime", "torch"])
def test_bundled_model_loads_offline(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert (bundled_model_dir() / "model.safetensors").is_file()
    monkeypatch.setenv("FRONTDESK_MINILM_ENGINE", engine)
    make_embedder.cache_clear()
    embedder = make_embedder("local:all-MiniLM-L6-v2")
    make_embedder.cache_clear()
    if engine == "torch":
        pytest.importorskip("sentence_transformers")
        assert isinstance(embedder, LocalEmbedder)
        embedder.embed_query("warm up")
        assert os.environ.get("HF_HUB_OFFLINE") == "1"
    else:
        assert isinstance(embedder, MiniLMEmbedder)
    vectors = embedder.embed_documents(["reset my password", "password reset steps", "pizza"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert embedder.max_input_tokens == 256
    capped = effective_options(IngestOptions(chunk_size=512, chunk_overlap=64), embedder)
    assert (capped.chunk_size, capped.chunk_overlap) == (256, 64)


def test_hybrid_search_with_minilm(kb: KnowledgeBase) -> None:
    site = SiteKnowledge("demo", KnowledgeConfig(embedding="local:all-MiniLM-L6-v2"), language="en")
    docs = [
        Document(
            "password.md",
            "Resetting your password",
            "Open Settings, choose Security and click 'Reset password'. A link is e-mailed.",
            "markdown",
            "kb/password.md",
        ),
        Document(
            "e20.md",
            "Error E20",
            "E20 means the drain pump is blocked. Clean the filter.",
            "markdown",
            "kb/e20.md",
        ),
        Document(
            "ru-billing.md",
            "Оплата и счета",
            "Счета выставляются ежемесячно. Оплатить можно картой или банковским переводом.",
            "markdown",
            "kb/ru-billing.md",
        ),
        Document(
            "case-study-bank.md",
            "Case study: a retail bank",
            "A retail bank automated card dispute handling and cut response times by 60%.",
            "markdown",
            "kb/case-study-bank.md",
        ),
    ]
    report = kb.ingest_documents(site, docs, progress=False)
    assert report.chunks_total == 4
    assert kb.search(site, "I forgot my login credentials").chunks[0].doc_id == "password.md"
    assert kb.search(site, "what does E20 mean").chunks[0].doc_id == "e20.md"
    assert kb.search(site, "как оплатить счёт").chunks[0].doc_id == "ru-billing.md"
    banking = kb.search(site, "do you have experience automating disputes for banks?")
    assert banking.chunks[0].doc_id == "case-study-bank.md"
    assert banking.proactive_case_study
    off_topic = kb.search(site, "best lasagne recipe with spinach")
    assert off_topic.status == "no_result"
    assert off_topic.reason == "below_threshold"


def test_minilm_chunks_fit_its_256_word_piece_window(kb: KnowledgeBase) -> None:
    embedder = make_embedder("local:all-MiniLM-L6-v2")
    assert isinstance(embedder, MiniLMEmbedder)
    russian = " ".join(
        f"Шаг {n}: откройте раздел «Оплата», выберите счёт и подтвердите перевод."
        for n in range(80)
    )
    site = SiteKnowledge("minilm-window", KnowledgeConfig(embedding="local:all-MiniLM-L6-v2"))
    kb.ingest_documents(
        site,
        [Document("ru-pay.md", "Оплата счетов", russian, "markdown", "kb/ru-pay.md")],
        progress=False,
    )
    [stored] = kb.list_documents(site)
    assert stored.chunk_count > 3  # ~980 word pieces of Russian did not fit in one chunk
    ingestor = kb.ingestor(site, progress=False)
    assert ingestor.max_tokens == 256 and ingestor.token_counter is not None
    from frontdesk.knowledge.ingest.chunker import chunk_document

    chunks = chunk_document(
        Document("ru-pay.md", "Оплата счетов", russian, "markdown", "kb/ru-pay.md"),
        chunk_size=ingestor.options.chunk_size,
        chunk_overlap=ingestor.options.chunk_overlap,
        tokens=ingestor.token_counter,
        max_tokens=ingestor.max_tokens,
    )
    assert max(embedder.count_tokens(c.indexed_text) for c in chunks) <= 256
