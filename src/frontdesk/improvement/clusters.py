"""Content gaps clustered by meaning: pure functions of questions and their embeddings.

Questions are grouped by agglomerative clustering (average linkage) on cosine distance,
cut at a distance that depends on the embedding model: multilingual e5 puts paraphrases,
also across languages, close together in a narrow band of cosines, so its cut is tighter
than a model whose cosines spread over the whole range. Identical questions (after
normalising case, spaces and end punctuation) are clustered once, with their count.

Trend compares a cluster's questions in the chosen period with the period before it of
the same length; both periods are clustered together so the same topic is one cluster.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

Reason = Literal[
    "cannot_answer", "followup", "low_confidence", "refused", "thumbs_down", "handed_off"
]
REASON_LABELS: dict[str, str] = {
    "cannot_answer": "could not answer",
    "followup": "asked the visitor to clarify",
    "low_confidence": "answered with low confidence",
    "refused": "refused (off-topic)",
    "thumbs_down": "visitor voted not helpful",
    "handed_off": "handed to a person after an answer",
}
# Cut distances (1 - cosine) per embedding model. e5's was measured on 200 paraphrases of
# 10 everyday topics in English and Spanish (docs/improvement.md): 0.16 keeps clusters pure
# (0.92) and still joins the two languages; 0.17 starts merging topics. Other models have
# not been measured: their cosines spread wider, hence the looser default.
CLUSTER_DISTANCES: dict[str, float] = {"local:multilingual-e5-small": 0.16}
DEFAULT_CLUSTER_DISTANCE = 0.4
EXAMPLES_PER_LANGUAGE = 3
Trend = Literal["new", "up", "down", "same"]

_END_PUNCTUATION = re.compile(r"[\s?!.,;:¿¡…]+$")
_LEADING_PUNCTUATION = re.compile(r"^[\s¿¡]+")


def normalise_question(text: str) -> str:
    text = " ".join(text.strip().lower().split())
    return _LEADING_PUNCTUATION.sub("", _END_PUNCTUATION.sub("", text))


def cluster_distance(model: str) -> float:
    return CLUSTER_DISTANCES.get(model, DEFAULT_CLUSTER_DISTANCE)


@dataclass(frozen=True)
class Passage:
    """A passage the search found for a gap question, with its cosine score."""

    doc_id: str
    chunk_id: str
    title: str
    score: float


@dataclass(frozen=True)
class GapQuestion:
    """One visitor question the assistant did not answer well."""

    text: str
    language: str
    reasons: frozenset[str]
    at: datetime
    session_id: str
    turn: int
    current: bool = True  # in the chosen period (False: the one before, for the trend)
    passages: tuple[Passage, ...] = ()
    comment: str | None = None  # the visitor's comment on a 👎


@dataclass
class GapCluster:
    label: str  # the question that stands for the cluster
    size: int  # questions in the chosen period
    previous: int  # questions in the period before
    trend: Trend
    examples: dict[str, list[str]] = field(default_factory=dict)  # per language
    reasons: dict[str, int] = field(default_factory=dict)
    passages: list[Passage] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    sessions: list[tuple[str, int]] = field(default_factory=list)  # (session id, turn)
    questions: list[str] = field(default_factory=list)  # distinct, most asked first

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "size": self.size,
            "previous": self.previous,
            "trend": self.trend,
            "examples": self.examples,
            "reasons": self.reasons,
            "passages": [
                {"doc_id": p.doc_id, "chunk_id": p.chunk_id, "title": p.title, "score": p.score}
                for p in self.passages
            ],
            "comments": self.comments,
        }


def cluster_labels(vectors: NDArray[np.float32], distance: float) -> list[int]:
    """A cluster number per row of `vectors` (L2-normalised embeddings)."""
    count = len(vectors)
    if count == 0:
        return []
    if count == 1:
        return [0]
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=distance
    )
    return [int(label) for label in model.fit_predict(np.asarray(vectors, dtype=np.float64))]


def trend_of(size: int, previous: int) -> Trend:
    if previous == 0:
        return "new" if size else "same"
    if size > previous * 1.2:
        return "up"
    if size < previous * 0.8:
        return "down"
    return "same"


def distinct_questions(questions: Sequence[GapQuestion]) -> list[str]:
    """The normalised texts to embed, one per distinct question, first seen first."""
    return list(dict.fromkeys(normalise_question(q.text) for q in questions if q.text.strip()))


def gap_clusters(
    questions: Sequence[GapQuestion],
    distinct: Sequence[str],
    vectors: NDArray[np.float32],
    distance: float,
    *,
    top_passages: int = 3,
    label_language: str | None = None,
) -> list[GapCluster]:
    """Clusters of `questions` (rows of `vectors` are the embeddings of `distinct`),
    largest first; clusters with no question in the chosen period are left out. A
    cluster's label is its most asked question (in `label_language` on a tie)."""
    label_of = dict(zip(distinct, cluster_labels(vectors, distance), strict=True))
    members: dict[int, list[GapQuestion]] = {}
    for question in questions:
        key = normalise_question(question.text)
        if key in label_of:
            members.setdefault(label_of[key], []).append(question)
    clusters = [_cluster(group, top_passages, label_language) for group in members.values()]
    found = [c for c in clusters if c.size > 0]
    return sorted(found, key=lambda c: (-c.size, -c.previous, c.label))


def _cluster(group: list[GapQuestion], top_passages: int, label_language: str | None) -> GapCluster:
    current = [q for q in group if q.current]
    size, previous = len(current), len(group) - len(current)
    asked = Counter(q.text.strip() for q in current)
    in_language = {q.text.strip() for q in current if q.language == label_language}
    label = max(asked, key=lambda text: (asked[text], text in in_language), default="")
    by_language: dict[str, Counter[str]] = {}
    for question in current:
        by_language.setdefault(question.language, Counter())[question.text.strip()] += 1
    examples = {
        language: [text for text, _n in counts.most_common(EXAMPLES_PER_LANGUAGE)]
        for language, counts in sorted(by_language.items(), key=lambda item: -item[1].total())
    }
    reasons: Counter[str] = Counter()
    for question in current:
        reasons.update(question.reasons)
    best: dict[str, Passage] = {}
    for question in current:
        for passage in question.passages:
            seen = best.get(passage.chunk_id)
            if seen is None or passage.score > seen.score:
                best[passage.chunk_id] = passage
    return GapCluster(
        label=label,
        size=size,
        previous=previous,
        trend=trend_of(size, previous),
        examples=examples,
        reasons=dict(reasons.most_common()),
        passages=sorted(best.values(), key=lambda p: -p.score)[:top_passages],
        comments=[q.comment for q in current if q.comment][:5],
        sessions=[(q.session_id, q.turn) for q in sorted(current, key=lambda q: q.at)][-5:],
        questions=[text for text, _n in asked.most_common()],
    )


def purity(labels: Sequence[int], truth: Sequence[str]) -> float:
    """Share of items whose cluster's majority topic is their own (clustering quality)."""
    groups: dict[int, Counter[str]] = {}
    for label, topic in zip(labels, truth, strict=True):
        groups.setdefault(label, Counter())[topic] += 1
    majority = sum(counts.most_common(1)[0][1] for counts in groups.values())
    return majority / len(labels) if labels else 1.0


UNANSWERED_ROUTINGS = frozenset({"cannot_answer", "followup", "low_confidence"})
OFF_TOPIC_INTENT = "offtopic"  # the classifier's label (stored lower-case on the turn)


def gap_reasons(
    route: str | None,
    routing: str | None,
    intent: str | None = None,
    *,
    voted_down: bool = False,
    handed_off_next: bool = False,
) -> frozenset[str]:
    """Why a turn is a content gap (empty: it is not one). A refusal is a gap when the
    question was refused as off-topic (the site's content did not support it); greetings,
    keyboard mash and attacks are refused too but ask nothing about content. A handoff is
    a gap only after an answer the visitor did not settle for (a hot lead's is a success)."""
    if route == "BLOCKED":
        return frozenset()
    reasons: set[str] = set()
    if routing in UNANSWERED_ROUTINGS:
        reasons.add(str(routing))
    if route == "REDIRECT" and (intent or "").lower() == OFF_TOPIC_INTENT:
        reasons.add("refused")
    if voted_down:
        reasons.add("thumbs_down")
    if handed_off_next and route == "ANSWER":
        reasons.add("handed_off")
    return frozenset(reasons)
