"""Retrieval evaluation: index a corpus into a throwaway site and score every query.

Dataset format (../shared/datasets/retrieval/*/):
- corpus.jsonl: {"doc_id", "title"?, "text", ...}
- queries.jsonl: {"query_id", "query", "gold_doc_ids", "answerable"?, "is_impossible"?}

A query is unanswerable when `answerable` is false, `is_impossible` is true, or it has no
gold documents. Ranking metrics (hit@k, MRR@k) are over answerable queries, on the
ranking of distinct documents in the search's chunk order; a `no_result` is a miss.
Abstention treats "the search returned no_result" as the prediction "unanswerable".
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontdesk.knowledge.models import Document, RetrievalResult

EVAL_SITE_ID = "eval-retrieval"


@dataclass(frozen=True)
class EvalQuery:
    query_id: str
    query: str
    gold_doc_ids: tuple[str, ...]
    answerable: bool


@dataclass
class QueryOutcome:
    query: EvalQuery
    ranking: list[str]
    status: str
    top_score: float | None
    latency_ms: float

    @property
    def rank(self) -> int | None:
        for position, doc_id in enumerate(self.ranking, start=1):
            if doc_id in self.query.gold_doc_ids:
                return position
        return None


@dataclass
class RetrievalReport:
    outcomes: list[QueryOutcome] = field(default_factory=list)
    k: int = 10

    def metrics(self) -> dict[str, Any]:
        answerable = [o for o in self.outcomes if o.query.answerable]
        unanswerable = [o for o in self.outcomes if not o.query.answerable]
        ranks = [o.rank for o in answerable]

        def hit(k: int) -> float | None:
            if not ranks:
                return None
            return round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 4)

        mrr = (
            round(sum(1.0 / r for r in ranks if r is not None and r <= self.k) / len(ranks), 4)
            if ranks
            else None
        )
        abstained = [o for o in self.outcomes if o.status != "ok"]
        true_abstain = [o for o in abstained if not o.query.answerable]
        precision = round(len(true_abstain) / len(abstained), 4) if abstained else None
        recall = round(len(true_abstain) / len(unanswerable), 4) if unanswerable else None
        latencies = sorted(o.latency_ms for o in self.outcomes)
        return {
            "hit@1": hit(1),
            "hit@5": hit(5),
            "hit@10": hit(10),
            "mrr": mrr,
            "abstain_precision": precision,
            "abstain_recall": recall,
            "p50_ms": round(percentile(latencies, 50), 2) if latencies else None,
            "p95_ms": round(percentile(latencies, 95), 2) if latencies else None,
            "queries": len(self.outcomes),
            "answerable": len(answerable),
            "unanswerable": len(unanswerable),
        }


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("no values")
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def jsonl_items(path: Path) -> Iterator[tuple[int, Any]]:
    """Each non-blank line of a JSONL file, parsed, with its line number (a line that is
    not JSON raises a ValueError naming it)."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            yield number, item


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for number, item in jsonl_items(path):
        if not isinstance(item, dict):
            raise ValueError(f"{path}:{number}: expected a JSON object")
        yield item


def read_corpus(path: Path) -> list[Document]:
    documents = []
    for item in _jsonl(path):
        doc_id = str(item["doc_id"])
        documents.append(
            Document(
                doc_id=doc_id,
                title=str(item.get("title") or ""),
                text=str(item.get("text") or ""),
                kind="text",
                source=f"corpus:{doc_id}",
                url=str(item.get("url") or ""),
            )
        )
    return documents


def is_answerable(item: dict[str, Any]) -> bool:
    gold = [str(g) for g in item.get("gold_doc_ids") or [] if str(g) != "-1"]
    return (
        bool(item.get("answerable", True)) and not item.get("is_impossible", False) and bool(gold)
    )


def read_queries(path: Path) -> list[EvalQuery]:
    queries = []
    for number, item in enumerate(_jsonl(path), start=1):
        gold = tuple(str(g) for g in item.get("gold_doc_ids") or [] if str(g) != "-1")
        queries.append(
            EvalQuery(
                query_id=str(item.get("query_id", number)),
                query=str(item["query"]),
                gold_doc_ids=gold,
                answerable=is_answerable(item),
            )
        )
    return queries


def document_ranking(result: RetrievalResult) -> list[str]:
    """Distinct document ids in the order of their best chunk."""
    return list(dict.fromkeys(chunk.doc_id for chunk in result.chunks))


def evaluate_retrieval(
    corpus: Path,
    queries: Path,
    *,
    k: int = 10,
    threshold: float | None = None,
    embedding: str | None = None,
    progress: bool = False,
) -> RetrievalReport:
    """Index `corpus` into a throwaway SQLite site and run `queries` through `search`."""
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.knowledge import KnowledgeConfig
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    documents = read_corpus(corpus)
    items = read_queries(queries)
    settings: dict[str, Any] = {"relevance_threshold": threshold}
    if embedding:
        settings["embedding"] = embedding
    site = SiteKnowledge(EVAL_SITE_ID, KnowledgeConfig(**settings))
    with tempfile.TemporaryDirectory(prefix="frontdesk-eval-") as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'eval.db'}")
        try:
            upgrade(engine)
            kb = KnowledgeBase(engine)
            kb.ingest_documents(site, documents, progress=progress)
            depth = min(max(k * 3, 10), 50)
            kb.search(site, "warm up")
            report = RetrievalReport(k=k)
            for item in items:
                started = time.perf_counter()
                result = kb.search(site, item.query, top_k=depth)
                elapsed = (time.perf_counter() - started) * 1000.0
                report.outcomes.append(
                    QueryOutcome(
                        item, document_ranking(result), result.status, result.top_score, elapsed
                    )
                )
        finally:
            engine.dispose()
    return report
