"""Okapi BM25 over pre-stemmed text, held in memory per site.

Posting lists are numpy arrays of (row, precomputed term weight), so a query is a few
vectorised additions: well under a millisecond at 10,000 chunks, where SQLite FTS5's
`bm25()` over common terms took ~30 ms. Statistics (document frequencies, average
length) are the site's own, so one site's documents never shift another's ranking.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Bm25Index:
    size: int
    postings: dict[str, tuple[NDArray[np.int32], NDArray[np.float32]]]

    @classmethod
    def build(cls, bodies: Sequence[str], k1: float = K1, b: float = B) -> Bm25Index:
        """Index space-separated term strings (row i = bodies[i])."""
        counts = [Counter(body.split()) for body in bodies]
        lengths = np.array([sum(c.values()) for c in counts], dtype=np.float32)
        average = float(lengths.mean()) if len(lengths) and lengths.sum() else 1.0
        rows: dict[str, list[int]] = {}
        tfs: dict[str, list[int]] = {}
        for row, counter in enumerate(counts):
            for term, tf in counter.items():
                rows.setdefault(term, []).append(row)
                tfs.setdefault(term, []).append(tf)
        size = len(bodies)
        norm = k1 * (1.0 - b + b * lengths / average)
        postings: dict[str, tuple[NDArray[np.int32], NDArray[np.float32]]] = {}
        for term, term_rows in rows.items():
            df = len(term_rows)
            idf = math.log(1.0 + (size - df + 0.5) / (df + 0.5))
            index = np.array(term_rows, dtype=np.int32)
            freq = np.array(tfs[term], dtype=np.float32)
            weights = (idf * freq * (k1 + 1.0) / (freq + norm[index])).astype(np.float32)
            postings[term] = (index, weights)
        return cls(size=size, postings=postings)

    def top(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """Best rows for the (distinct) terms, highest score first."""
        found = [self.postings[t] for t in dict.fromkeys(terms) if t in self.postings]
        if not found or limit <= 0:
            return []
        scores = np.zeros(self.size, dtype=np.float32)
        for rows, weights in found:
            scores[rows] += weights
        candidates = np.flatnonzero(scores)
        if len(candidates) > limit:
            part = np.argpartition(-scores[candidates], limit - 1)[:limit]
            candidates = candidates[part]
        order = candidates[np.argsort(-scores[candidates], kind="stable")]
        return [(int(row), float(scores[row])) for row in order]
