"""Visitor intent for the local engine: a TF-IDF + linear SVM model over the
shipped multilingual training set, with rule layers for nonsense and high-stakes
wording (see `intent_rules`). Whether a message is an attack (HACK) is the injection
detector's call (`injection.py`), not this model's.

Character n-grams carry most of the signal: they survive typos, inflection and the
eight languages without stemmers. Word n-grams add phrase-level cues ("cancel the
demo"). Training takes a few seconds, so the model is trained on first use and
cached on disk under a name derived from the training data, the code version and
the scikit-learn version; a stale cache is simply never looked up again.
"""

from __future__ import annotations

import logging
import os
import pickle
import re
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sklearn
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC

from frontdesk.engines.local.injection import SUSPECT_AT, get_injection_detector
from frontdesk.engines.local.intent_data import (
    ACTS,
    DATA_FILE,
    INTENTS,
    Act,
    Intent,
    IntentExample,
    data_hash,
    external_act_examples,
    external_examples,
    load_examples,
)
from frontdesk.engines.local.intent_rules import high_stakes_hit, looks_like_nonsense
from frontdesk.engines.local.tfidf import tfidf_one

MODEL_VERSION = "4"
# The model the package ships: trained on DATA_FILE plus the public CLINC150/banking77 rows
# (`python -m frontdesk.engines.local.data.build_model`), which the repository never holds.
SHIPPED_MODEL = DATA_FILE.parent / "intent_model.pkl"
# Intents a high-stakes message can carry; elsewhere the wording means something else
# ("cancel my dinner reservation" is off-topic, "cancel the demo" is STOP_BOOKING).
_HIGH_STAKES_INTENTS = frozenset({"SUPPORT", "LEARN", "CONTEXT", "OTHER"})
_MARGIN_SCALE = 4.0
_WORDS = re.compile(r"[^\W\d_]+")
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IntentPrediction:
    intent: Intent
    confidence: float
    probabilities: dict[str, float]
    high_stakes: bool
    nonsense: bool
    # The conversation act the message is on its own (the act head), if any.
    act: Act | None = None


# The act head's label for a message that is no act of its own.
NO_ACT = "none"


def _normalize(text: str) -> str:
    return text.replace("’", "'").replace("\u00a0", " ").strip().lower()


class _Features:
    """Character and word TF-IDF, concatenated. Kept outside an sklearn Pipeline so
    one transform feeds both linear models and a single prediction skips the
    per-call validation overhead (a Pipeline made one prediction ~20 ms)."""

    def __init__(self) -> None:
        self.chars = TfidfVectorizer(
            analyzer="char_wb",
            ngram_range=(2, 5),
            min_df=2,
            sublinear_tf=True,
            preprocessor=_normalize,
            max_features=150_000,
            dtype=np.float32,
        )
        self.words = TfidfVectorizer(
            analyzer="word",
            ngram_range=(1, 2),
            token_pattern=r"(?u)\b\w+\b",
            sublinear_tf=True,
            preprocessor=_normalize,
            dtype=np.float32,
        )

    def fit_transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        return sparse.hstack(
            [self.chars.fit_transform(texts), self.words.fit_transform(texts)], format="csr"
        )

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        return sparse.hstack(
            [self.chars.transform(texts), self.words.transform(texts)], format="csr"
        )

    def transform_one(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """One text's non-zero features as (column indices, values): the same numbers as
        `transform`, without building sparse matrices (a chat turn classifies one
        message, and sklearn's batch machinery cost ~4 ms of a ~5 ms prediction)."""
        columns: list[np.ndarray] = []
        values: list[np.ndarray] = []
        offset = 0
        for vectorizer in (self.chars, self.words):
            index, weights = tfidf_one(vectorizer, text)
            columns.append(index + offset)
            values.append(weights)
            offset += len(vectorizer.vocabulary_)
        return np.concatenate(columns), np.concatenate(values)


def _linear_svm(
    features: sparse.csr_matrix, labels: Sequence[str | int], *, balanced: bool = False
) -> LinearSVC:
    # A linear SVM trains in a fraction of logistic regression's time on these sparse
    # features and separated off-topic requests better in our measurements.
    weights = "balanced" if balanced else None
    return LinearSVC(C=0.5, class_weight=weights).fit(features, labels)


class IntentClassifier:
    """Predicts one of INTENTS plus the high-stakes and nonsense flags."""

    def __init__(
        self,
        features: _Features,
        intents: LinearSVC,
        high_stakes: LinearSVC,
        vocabulary: frozenset[str],
        acts: LinearSVC,
    ) -> None:
        self._features = features
        self._labels: list[str] = [str(c) for c in intents.classes_]
        self._weights = np.ascontiguousarray(intents.coef_.T, dtype=np.float32)
        self._bias = np.asarray(intents.intercept_, dtype=np.float32)
        # Binary SVM over labels 0/1: a positive margin means high stakes.
        self._hs_weights = np.asarray(high_stakes.coef_.ravel(), dtype=np.float32)
        self._hs_bias = float(high_stakes.intercept_[0])
        self._vocabulary = vocabulary
        # One-vs-rest act head over the same features: the act with the largest margin,
        # unless "none" has it.
        self._act_labels: list[str] = [str(c) for c in acts.classes_]
        self._act_weights = np.ascontiguousarray(acts.coef_.T, dtype=np.float32)
        self._act_bias = np.asarray(acts.intercept_, dtype=np.float32)

    @classmethod
    def train(
        cls, examples: Sequence[IntentExample], act_examples: Sequence[IntentExample] = ()
    ) -> IntentClassifier:
        """The intent and high-stakes heads learn from `examples`; the act head from them
        and `act_examples` (rows that teach an act only, such as a bare "yes")."""
        features = _Features()
        matrix = features.fit_transform([e.text for e in examples])
        intents = _linear_svm(matrix, [e.intent for e in examples])
        high_stakes = _linear_svm(matrix, [int(e.high_stakes) for e in examples])
        act_rows = [*examples, *act_examples]
        act_matrix = (
            sparse.vstack([matrix, features.transform([e.text for e in act_examples])], "csr")
            if act_examples
            else matrix
        )
        # Acts are a few hundred rows among thousands: weighted by their rarity, held-out
        # acts were recognised 129 of 184 times instead of 109.
        acts = _linear_svm(act_matrix, [e.act or NO_ACT for e in act_rows], balanced=True)
        vocabulary = frozenset(
            word for e in examples if not e.nonsense for word in _WORDS.findall(_normalize(e.text))
        )
        return cls(features, intents, high_stakes, vocabulary, acts)

    @classmethod
    def load(cls, cache_dir: Path | None = None, data_path: Path = DATA_FILE) -> IntentClassifier:
        """The model for `data_path`: the shipped one when it was built from this data with
        this scikit-learn; else from `cache_dir` if cached, else trained and cached (with
        the public rows when ../shared/datasets is there, as the shipped one was)."""
        shipped = load_shipped() if data_path == DATA_FILE else None
        if shipped is not None:
            return shipped
        external = external_examples() if data_path == DATA_FILE else []
        directory = cache_dir or default_cache_dir()
        name = (
            f"intent-{data_hash(data_path)}-x{len(external)}-v{MODEL_VERSION}"
            f"-sk{sklearn.__version__}.pkl"
        )
        path = directory / name
        if path.exists():
            try:
                with path.open("rb") as f:
                    model = pickle.load(f)
                if isinstance(model, cls):
                    return model
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                pass  # a corrupt or foreign cache file is rebuilt below
        if data_path == DATA_FILE:
            log.warning(
                "the shipped intent model %s does not match %s or scikit-learn %s: training "
                "one (%d public rows found); rebuild it with "
                "`python -m frontdesk.engines.local.data.build_model`",
                SHIPPED_MODEL.name,
                DATA_FILE.name,
                sklearn.__version__,
                len(external),
            )
        acts = external_act_examples() if data_path == DATA_FILE else []
        model = cls.train([*load_examples(data_path), *external], acts)
        _save_atomically(model, path)
        return model

    def predict(self, text: str) -> IntentPrediction:
        columns, values = self._features.transform_one(text)
        margins = values @ self._weights[columns] + self._bias
        hs_margin = float(values @ self._hs_weights[columns]) + self._hs_bias
        act_margins = values @ self._act_weights[columns] + self._act_bias
        injection = get_injection_detector().score(text)
        return self._decide(
            text, _softmax(margins[np.newaxis, :])[0], hs_margin > 0, injection, act_margins
        )

    def predict_many(self, texts: Sequence[str]) -> list[IntentPrediction]:
        if not texts:
            return []
        # Inputs are our own strings: skip sklearn's per-call checks (a third of the time).
        with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
            matrix = self._features.transform(list(texts))
        intent_probs = _softmax(np.asarray(matrix @ self._weights) + self._bias)
        hs_margins = np.asarray(matrix @ self._hs_weights).reshape(-1) + self._hs_bias
        act_margins = np.asarray(matrix @ self._act_weights) + self._act_bias
        injection = get_injection_detector().scores(list(texts))
        return [
            self._decide(text, probs, float(margin) > 0, float(score), acts)
            for text, probs, margin, score, acts in zip(
                texts, intent_probs, hs_margins, injection, act_margins, strict=True
            )
        ]

    def _act(self, margins: np.ndarray) -> Act | None:
        label = self._act_labels[int(np.argmax(margins))]
        for act in ACTS:
            if act == label:
                return act
        return None  # NO_ACT

    def _decide(
        self,
        text: str,
        probs: np.ndarray,
        hs_model: bool,
        injection: float,
        act_margins: np.ndarray,
    ) -> IntentPrediction:
        probabilities = {label: float(p) for label, p in zip(self._labels, probs, strict=True)}
        intent: str = max(probabilities, key=lambda label: probabilities[label])
        confidence = probabilities[intent]
        nonsense = False
        if injection >= SUSPECT_AT:
            # The detector's score is the confidence: only a confident one counts toward
            # the session block (`guard.abuse.counts_toward_block`).
            intent, confidence = "HACK", injection
        else:
            if intent == "HACK":
                # The intent phrases' HACK rows mix in abuse that is no injection (SQL in
                # a message); without the detector behind it the label goes to the runner-up.
                intent = max(
                    (label for label in probabilities if label != "HACK"),
                    key=lambda label: probabilities[label],
                )
                confidence = probabilities[intent]
            if looks_like_nonsense(text, self._vocabulary):
                intent, confidence = "OTHER", max(probabilities.get("OTHER", 0.0), 0.9)
                nonsense = True
        high_stakes = False
        if intent in _HIGH_STAKES_INTENTS and (high_stakes_hit(text) or hs_model):
            high_stakes = True
            if intent == "OTHER":
                # An angry "I want my money back" is a customer problem, not small talk.
                intent, confidence = "SUPPORT", max(probabilities.get("SUPPORT", 0.0), 0.6)
        if probabilities[intent] < confidence:
            probabilities = _reweight(probabilities, intent, confidence)
        return IntentPrediction(
            intent=_as_intent(intent),
            confidence=confidence,
            probabilities=probabilities,
            high_stakes=high_stakes,
            nonsense=nonsense,
            # An attack, keyboard mash or a high-stakes message is never a mere act.
            act=None if nonsense or high_stakes or intent == "HACK" else self._act(act_margins),
        )


def shipped_key() -> str:
    """What the shipped model must have been built from to be used as it is."""
    return f"{data_hash(DATA_FILE)}-v{MODEL_VERSION}-sk{sklearn.__version__}"


def load_shipped(path: Path = SHIPPED_MODEL) -> IntentClassifier | None:
    """The packaged model, or None when absent, unreadable or built from other data."""
    try:
        with path.open("rb") as f:
            packed = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None
    if not isinstance(packed, dict) or packed.get("key") != shipped_key():
        return None
    model = packed.get("model")
    return model if isinstance(model, IntentClassifier) else None


def build_shipped(path: Path = SHIPPED_MODEL) -> IntentClassifier:
    """Train on the shipped rows and the public datasets; write the packaged model."""
    external = external_examples()
    if not external:
        raise FileNotFoundError(
            "CLINC150/banking77 train splits not found: put ../shared/datasets beside the "
            "repository or set FRONTDESK_DATASETS_DIR"
        )
    model = IntentClassifier.train([*load_examples(DATA_FILE), *external], external_act_examples())
    _save_atomically({"key": shipped_key(), "model": model}, path)
    return model


def _softmax(margins: np.ndarray) -> np.ndarray:
    """SVM margins to probability-like scores; the scale was chosen so that held-out
    predictions scoring 0.5 are right about half the time."""
    scaled = np.asarray(margins, dtype=float) * _MARGIN_SCALE
    scaled -= scaled.max(axis=1, keepdims=True)
    exp = np.exp(scaled)
    result: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return result


def _reweight(probabilities: dict[str, float], intent: str, confidence: float) -> dict[str, float]:
    """Give a rule's verdict `confidence` and scale the others to keep the sum at 1."""
    rest = sum(p for label, p in probabilities.items() if label != intent)
    scale = (1.0 - confidence) / rest if rest > 0 else 0.0
    return {
        label: confidence if label == intent else p * scale for label, p in probabilities.items()
    }


def _as_intent(label: str) -> Intent:
    for intent in INTENTS:
        if intent == label:
            return intent
    raise ValueError(f"unknown intent label {label!r}")


def _save_atomically(model: object, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(model, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs a retrain next time


def default_cache_dir() -> Path:
    """$FRONTDESK_DATA_DIR/models, else ~/.cache/frontdesk."""
    data_dir = os.environ.get("FRONTDESK_DATA_DIR")
    if data_dir:
        return Path(data_dir) / "models"
    return Path.home() / ".cache" / "frontdesk"


_default: IntentClassifier | None = None
_default_lock = threading.Lock()


def get_intent_classifier(cache_dir: Path | None = None) -> IntentClassifier:
    """The process-wide classifier, loaded or trained on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = IntentClassifier.load(cache_dir)
    return _default
