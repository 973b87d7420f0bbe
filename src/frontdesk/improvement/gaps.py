"""The gap report of a site and period: its gap questions read from the turn log, embedded
with the site's own embedding model (vectors cached beside the passages' ones) and
clustered (`clusters.py`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from frontdesk.improvement.clusters import (
    GapCluster,
    GapQuestion,
    Passage,
    cluster_distance,
    distinct_questions,
    gap_clusters,
    gap_reasons,
)
from frontdesk.knowledge.embedding.embedders import make_embedder
from frontdesk.knowledge.models import content_hash
from frontdesk.runtime import Runtime
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.gaps import GapRepository, StoredGapTurn

log = logging.getLogger(__name__)
PASSAGES_PER_QUESTION = 3


@dataclass
class GapReport:
    site_id: str
    start: datetime
    end: datetime
    days: int
    model: str
    questions: int = 0  # gap questions in the period
    turns: int = 0  # answered turns in the period (all of them)
    clusters: list[GapCluster] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "days": self.days,
            "model": self.model,
            "questions": self.questions,
            "turns": self.turns,
            "clusters": [cluster.as_json() for cluster in self.clusters],
        }


def gap_questions(
    rows: list[StoredGapTurn], since: datetime, default_language: str, titles: dict[str, str]
) -> list[GapQuestion]:
    found = []
    for row in rows:
        handed_off = row.next_route == "HANDOFF" and row.next_routing != "answered"
        reasons = gap_reasons(
            row.route,
            row.routing,
            row.intent,
            voted_down=row.rating == "down",
            handed_off_next=handed_off,
        )
        if not reasons or not row.question.strip():
            continue
        at = row.at if row.at.tzinfo else row.at.replace(tzinfo=UTC)
        passages = tuple(
            Passage(
                doc_id=str(hit.get("doc_id") or ""),
                chunk_id=str(hit.get("chunk_id") or ""),
                title=titles.get(str(hit.get("chunk_id") or ""), str(hit.get("doc_id") or "")),
                score=round(float(hit.get("score") or 0.0), 3),
            )
            for hit in row.retrieval[:PASSAGES_PER_QUESTION]
            if hit.get("chunk_id")
        )
        found.append(
            GapQuestion(
                text=row.question.strip()[:500],
                language=row.language or default_language,
                reasons=reasons,
                at=at,
                session_id=row.session_id,
                turn=row.turn,
                current=at >= since,
                passages=passages,
                comment=row.comment if row.rating == "down" else None,
            )
        )
    return found


def _titles(knowledge: Any, site: SiteConfig, rows: list[StoredGapTurn]) -> dict[str, str]:
    ids = list({str(h["chunk_id"]) for row in rows for h in row.retrieval if h.get("chunk_id")})
    if knowledge is None or not ids:
        return {}
    try:
        chunks = knowledge.index.get_chunks(knowledge.index_key(site), ids)
    except Exception:  # titles are a nicety; the doc ids still say which passage
        log.exception("gap_titles_failed site=%s", site.id)
        return {}
    return {chunk_id: chunk.title for chunk_id, chunk in chunks.items()}


def embed_questions(knowledge: Any, model: str, texts: list[str]) -> np.ndarray[Any, Any]:
    """Query embeddings of `texts`, from the index's vector cache when it has them."""
    embedder = make_embedder(model)
    keys = {text: content_hash(f"gap-question\x1f{text}") for text in texts}
    index = getattr(knowledge, "index", None)
    cached: dict[str, Any] = {}
    if index is not None:
        try:
            cached = index.cached_vectors(embedder.name, list(keys.values()))
        except Exception:
            log.exception("gap_vector_cache_failed")
    fresh = {keys[text]: embedder.embed_query(text) for text in texts if keys[text] not in cached}
    if fresh and index is not None:
        try:
            index.cache_vectors(embedder.name, fresh)
        except Exception:
            log.exception("gap_vector_cache_failed")
    vectors = {**cached, **fresh}
    if not texts:
        return np.zeros((0, 1), dtype=np.float32)
    return np.vstack([vectors[keys[text]] for text in texts]).astype(np.float32)


def gap_report(
    runtime: Runtime,
    knowledge: Any,
    site: SiteConfig,
    days: int,
    now: datetime | None = None,
) -> GapReport:
    """Clusters of the questions of the last `days` days (trend: the `days` before)."""
    end = now or datetime.now(UTC)
    start = end - timedelta(days=days)
    model = site.knowledge.embedding
    report = GapReport(site_id=site.id, start=start, end=end, days=days, model=model)
    with runtime.sessions() as session:
        rows = GapRepository(session).turns(site.id, start - timedelta(days=days), end)
    report.turns = sum(
        1 for row in rows if (row.at if row.at.tzinfo else row.at.replace(tzinfo=UTC)) >= start
    )
    questions = gap_questions(rows, start, site.default_language, _titles(knowledge, site, rows))
    report.questions = sum(1 for q in questions if q.current)
    if not report.questions:
        return report
    distinct = distinct_questions(questions)
    vectors = embed_questions(knowledge, model, distinct)
    report.clusters = gap_clusters(
        questions,
        distinct,
        vectors,
        cluster_distance(model),
        label_language=site.default_language,
    )
    return report
