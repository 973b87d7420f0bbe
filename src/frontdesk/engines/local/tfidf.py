"""One document's TF-IDF without sklearn's batch machinery, shared by the local intent
classifier and the injection detector: a chat turn scores one message, and building
sparse matrices for it cost several times the arithmetic."""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


def tfidf_one(vectorizer: TfidfVectorizer, text: str) -> tuple[np.ndarray, np.ndarray]:
    """sklearn's TF-IDF of one document (sublinear tf, idf, l2 norm) as index/value arrays."""
    analyzer = vectorizer.__dict__.get("_frontdesk_analyzer")
    if analyzer is None:  # built once per loaded model; not part of the pickle's contract
        analyzer = vectorizer.build_analyzer()
        vectorizer.__dict__["_frontdesk_analyzer"] = analyzer
    vocabulary = vectorizer.vocabulary_
    counts: dict[int, int] = {}
    for gram in analyzer(text):
        column = vocabulary.get(gram)
        if column is not None:
            counts[column] = counts.get(column, 0) + 1
    if not counts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    index = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
    tf: np.ndarray = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
    if vectorizer.sublinear_tf:
        tf = np.log(tf) + 1.0
    weights = (tf * vectorizer.idf_[index]).astype(np.float32)
    norm = float(np.sqrt(np.dot(weights, weights)))
    return index, weights / norm if norm > 0 else weights
