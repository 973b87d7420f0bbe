"""Prompt-injection detection for the local engine: a small linear model over character
and word n-grams, shipped as a trained artifact (`data/injection_model.json.gz`).

Why a model of its own rather than one more intent label: an injection is a property of
how a message addresses the assistant ("ignore your instructions", "print the text
above", "you are DAN now"), not of what the visitor wants, and its training data comes
from other places (public injection collections, everyday requests, benign look-alikes)
than the intent phrases. `data/build_injection.py` trains it from `../shared/datasets`
and the hand-written files in `data/injection/`; the attribution is recorded beside it.

Two thresholds (docs/injection.md): a score at or above
`SUSPECT_AT` makes the turn an attack for the reply ("I can't help with that"); only
`CONFIDENT_AT` and above counts toward the session block.
"""

from __future__ import annotations

import gzip
import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from frontdesk.engines.local.intent_rules import INJECTION_CUES, injection_cues
from frontdesk.engines.local.tfidf import tfidf_one

MODEL_FILE = Path(__file__).resolve().parent / "data" / "injection_model.json.gz"
FORMAT_VERSION = 1
SUSPECT_AT = 0.5
CONFIDENT_AT = 0.85
# Whole-text n-grams of a very long paste say nothing more than its first pages do, and
# scoring them all costs time on every turn.
MAX_SCORED_CHARS = 4_000


def _cue_matrix(texts: Sequence[str]) -> sparse.csr_matrix:
    return sparse.csr_matrix(np.asarray([injection_cues(t) for t in texts], dtype=np.float32))


def normalize(text: str) -> str:
    return " ".join(text.replace("’", "'").replace("\u00a0", " ").lower().split())


def _vectorizers(
    chars_max: int | None = 60_000, words_max: int | None = 30_000
) -> tuple[TfidfVectorizer, TfidfVectorizer]:
    chars = TfidfVectorizer(
        analyzer="char_wb",
        ngram_range=(2, 5),
        min_df=2,
        max_features=chars_max,
        sublinear_tf=True,
        preprocessor=normalize,
        dtype=np.float32,
    )
    words = TfidfVectorizer(
        analyzer="word",
        ngram_range=(1, 2),
        min_df=2,
        max_features=words_max,
        token_pattern=r"(?u)\b\w+\b",
        sublinear_tf=True,
        preprocessor=normalize,
        dtype=np.float32,
    )
    return chars, words


@dataclass(frozen=True)
class InjectionVerdict:
    score: float  # probability-like, 0..1

    @property
    def suspected(self) -> bool:
        return self.score >= SUSPECT_AT

    @property
    def confident(self) -> bool:
        return self.score >= CONFIDENT_AT


class InjectionDetector:
    """Scores a message 0..1 for being a prompt-injection attempt."""

    def __init__(
        self,
        chars: TfidfVectorizer,
        words: TfidfVectorizer,
        weights: np.ndarray,
        bias: float,
        attribution: str = "",
    ) -> None:
        self._chars = chars
        self._words = words
        self._weights = np.asarray(weights, dtype=np.float32)
        self._bias = float(bias)
        self.attribution = attribution

    # --- training and the artifact ---------------------------------------------------

    @classmethod
    def train(
        cls, texts: Sequence[str], labels: Sequence[bool], *, c: float = 4.0
    ) -> InjectionDetector:
        """Fit on `texts` (True = injection). Classes are weighted to balance: a few
        hundred attacks stand against tens of thousands of ordinary messages."""
        chars, words = _vectorizers()
        clipped = [t[:MAX_SCORED_CHARS] for t in texts]
        matrix = sparse.hstack(
            [chars.fit_transform(clipped), words.fit_transform(clipped), _cue_matrix(clipped)],
            format="csr",
        )
        model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000)
        model.fit(matrix, np.asarray(labels, dtype=np.int8))
        return cls(chars, words, model.coef_.ravel(), float(model.intercept_[0]))

    def to_json(self) -> dict[str, Any]:
        def part(vectorizer: TfidfVectorizer, weights: np.ndarray) -> dict[str, Any]:
            terms = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.__getitem__)
            return {
                "terms": terms,
                "idf": [round(float(v), 4) for v in vectorizer.idf_],
                "weights": [round(float(v), 5) for v in weights],
            }

        chars_end = len(self._chars.vocabulary_)
        words_end = chars_end + len(self._words.vocabulary_)
        return {
            "format": FORMAT_VERSION,
            "sklearn": sklearn.__version__,
            "chars": part(self._chars, self._weights[:chars_end]),
            "words": part(self._words, self._weights[chars_end:words_end]),
            "cues": {
                "names": list(INJECTION_CUES),
                "weights": [round(float(v), 5) for v in self._weights[words_end:]],
            },
            "bias": self._bias,
            "attribution": self.attribution,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InjectionDetector:
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(
                f"injection model format {data.get('format')!r}, expected {FORMAT_VERSION}: "
                "rebuild it with src/frontdesk/engines/local/data/build_injection.py"
            )
        chars, words = _vectorizers(None, None)
        for vectorizer, key in ((chars, "chars"), (words, "words")):
            terms: list[str] = data[key]["terms"]
            vectorizer.vocabulary = {term: i for i, term in enumerate(terms)}
            vectorizer.idf_ = np.asarray(data[key]["idf"], dtype=np.float32)
        if data["cues"]["names"] != list(INJECTION_CUES):
            raise ValueError(
                "the injection model was built with other cue families: rebuild it with "
                "src/frontdesk/engines/local/data/build_injection.py"
            )
        weights = np.concatenate(
            [
                np.asarray(data[key]["weights"], dtype=np.float32)
                for key in ("chars", "words", "cues")
            ]
        )
        return cls(chars, words, weights, float(data["bias"]), str(data.get("attribution", "")))

    def save(self, path: Path = MODEL_FILE) -> None:
        payload = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
        # mtime=0 keeps the artifact byte-identical when the model is.
        with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
            out.write(payload.encode("utf-8"))

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> InjectionDetector:
        if not path.exists():
            raise FileNotFoundError(
                f"{path} is missing: build it with "
                "`python src/frontdesk/engines/local/data/build_injection.py`"
            )
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return cls.from_json(json.load(f))

    # --- scoring --------------------------------------------------------------------

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty(0, dtype=np.float32)
        clipped = [t[:MAX_SCORED_CHARS] for t in texts]
        with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
            matrix = sparse.hstack(
                [
                    self._chars.transform(clipped),
                    self._words.transform(clipped),
                    _cue_matrix(clipped),
                ],
                format="csr",
            )
        margins = np.asarray(matrix @ self._weights).reshape(-1) + self._bias
        result: np.ndarray = 1.0 / (1.0 + np.exp(-margins))
        return result

    def score(self, text: str) -> float:
        """`scores([text])[0]` without building sparse matrices (~0.1 ms, not ~1 ms)."""
        clipped = text[:MAX_SCORED_CHARS]
        margin = self._bias
        offset = 0
        for vectorizer in (self._chars, self._words):
            index, values = tfidf_one(vectorizer, clipped)
            margin += float(values @ self._weights[index + offset])
            offset += len(vectorizer.vocabulary_)
        cues = np.asarray(injection_cues(clipped), dtype=np.float32)
        margin += float(cues @ self._weights[offset:])
        return 1.0 / (1.0 + math.exp(-margin))

    def verdict(self, text: str) -> InjectionVerdict:
        return InjectionVerdict(score=round(self.score(text), 4))


_default: InjectionDetector | None = None
_default_lock = threading.Lock()


def get_injection_detector() -> InjectionDetector:
    """The process-wide detector, loaded from the shipped artifact on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = InjectionDetector.load()
    return _default
