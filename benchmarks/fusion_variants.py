"""Variants of the hybrid search's fusion, ranked offline on the product's own vectors.

    PYTHONPATH=src .venv/bin/python benchmarks/fusion_variants.py \
        [--tasks stackfaq,covid,nih,rutube,demo,crosslingual,xsid] [--db FILE] [--json]

Each set (the tasks of `multilingual_retrieval.py`) is ingested once with the default
embedding into a SQLite store; then every question is ranked, without a threshold, by the
shipped fusion — dense top 50 by cosine and BM25 (FTS5) top 50, weighted RRF, k 30,
dense 1.0, lexical 0.2, reproduced here on the stored vectors — and by variants that add
one signal:

- `candidates 100`: 100 per list instead of 50;
- `heading max` / `heading +0.5` / `heading +0.5 query:` / `heading list`: the cosine of
  the question to the chunk's heading path (title and headings, embedded once per distinct
  path, as a passage unless `query:`), taken as max(passage, heading), added at 0.5, or
  ranked as a third RRF list of weight 1.0;
- `heading BM25 0.1`: BM25 (k1 1.2, b 0.75) over the stemmed heading paths alone, a third
  list of weight 0.1 (what a heading field in the lexical index would add);
- `page +0.5`: the cosine to the page's vector (the mean of its chunks' vectors) added at
  0.5.

hit@5 and MRR@10 over the documents in the order of their best chunk, as
`frontdesk eval retrieval` counts them. This is how docs/knowledge.md's "Closing the English
gap" table was measured; the `heading BM25 0.1` list is now the product's heading field
(`SearchOptions.heading_weight`; `multilingual_retrieval.py --heading-weights` measures it).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from multilingual_retrieval import (
    DATASETS,
    Task,
    crosslingual_tasks,
    demo_tasks,
    folder_task,
    nih_task,
    xsid_tasks,
)

MODEL = "local:multilingual-e5-small"
RRF_K = 30


def rrf(lists: Sequence[tuple[Sequence[str], float]]) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for ids, weight in lists:
        for rank, chunk_id in enumerate(ids, start=1):
            scores[chunk_id] += weight / (RRF_K + rank)
    return [c for c, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


class HeadingBm25:
    """BM25 over each chunk's stemmed heading path (a chunk without one has no terms)."""

    def __init__(self, ids: list[str], headings: list[list[str]]) -> None:
        self.postings: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
        for chunk_id, words in zip(ids, headings, strict=True):
            for word, count in Counter(words).items():
                self.postings[word].append((chunk_id, count, len(words)))
        self.count = len(ids)
        self.average = sum(len(words) for words in headings) / max(self.count, 1) or 1.0

    def search(self, words: Sequence[str], limit: int) -> list[str]:
        scores: dict[str, float] = defaultdict(float)
        for word in set(words):
            found = self.postings.get(word, [])
            idf = math.log(1 + (self.count - len(found) + 0.5) / (len(found) + 0.5))
            for chunk_id, tf, length in found:
                norm = 1.2 * (0.25 + 0.75 * length / self.average)
                scores[chunk_id] += idf * tf * 2.2 / (tf + norm)
        return [c for c, _ in sorted(scores.items(), key=lambda item: -item[1])[:limit]]


def run(task: Task, kb: Any, engine: Any) -> dict[str, tuple[float, float]]:
    from frontdesk.knowledge.evaluate import read_corpus
    from frontdesk.knowledge.search.query import query_language
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.knowledge import KnowledgeConfig
    from frontdesk.sites.schema import SUPPORTED_LANGUAGES
    from frontdesk.text.lexical import query_terms, terms

    name, docs, queries, lang = task
    language = lang if lang in SUPPORTED_LANGUAGES else "en"
    # e5 alone: the variants are ranked from its stored vectors.
    config = KnowledgeConfig(embedding=MODEL, relevance_threshold=None, english_embedding=None)
    site = SiteKnowledge(f"fusion-{name}", config, language=language)
    corpus = Path(tempfile.mkdtemp(prefix="frontdesk-fusion-")) / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n")
    kb.ingest_documents(site, read_corpus(corpus), progress=False)
    key = kb.index_key(site)
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT chunk_id, doc_id, heading_path, embedding FROM knowledge_chunks"
            " WHERE site_id = ? AND embedding_model = ?",
            (key, MODEL),
        ).all()
    ids = [row[0] for row in rows]
    doc_of = {row[0]: row[1] for row in rows}
    vectors = np.vstack([np.frombuffer(row[3], dtype=np.float32) for row in rows])
    paths = [" > ".join(part for part in json.loads(row[2]) if part) for row in rows]
    has_heading = np.array([bool(path) for path in paths])
    distinct = sorted({path for path in paths if path})
    where = {path: i for i, path in enumerate(distinct)}
    heading_row = np.array([where.get(path, 0) for path in paths])
    embedder = kb.embedder(site)
    as_passage = embedder.embed_documents(distinct) if distinct else np.zeros((1, 384))
    as_query = (
        np.vstack([embedder.embed_query(path) for path in distinct])
        if distinct
        else np.zeros((1, 384))
    )
    pages = sorted(set(doc_of.values()))
    page_row = np.array([pages.index(doc_of[c]) for c in ids])
    page_vectors = np.zeros((len(pages), vectors.shape[1]), dtype=np.float32)
    np.add.at(page_vectors, page_row, vectors)
    page_vectors /= np.linalg.norm(page_vectors, axis=1, keepdims=True)
    bm25 = HeadingBm25(ids, [terms(path, language) if path else [] for path in paths])
    retriever = kb.retriever(site)

    def top(scores: np.ndarray, n: int = 50) -> list[str]:
        return [ids[i] for i in np.argsort(-scores)[:n]]

    def lexical(words: list[str], n: int) -> list[str]:
        return [hit.chunk_id for hit in kb.index.lexical_search(key, words, n)] if words else []

    ranks: dict[str, list[int | None]] = defaultdict(list)
    for question in (q for q in queries if q.get("gold_doc_ids")):
        text, gold = question["query"], set(question["gold_doc_ids"])
        query = retriever.embed_query(text)
        passage = vectors @ query
        words = query_terms(text, query_language(text, language))
        lexical_50 = lexical(words, 50)
        # A chunk without a heading path keeps its passage cosine as its heading cosine.
        heading = np.where(has_heading, (as_passage @ query)[heading_row], passage)
        heading_q = np.where(has_heading, (as_query @ query)[heading_row], passage)
        heading_only = [ids[i] for i in np.argsort(-heading) if has_heading[i]][:50]
        page = (page_vectors @ query)[page_row]
        orders = {
            "shipped": rrf([(top(passage), 1.0), (lexical_50, 0.2)]),
            "candidates 100": rrf([(top(passage, 100), 1.0), (lexical(words, 100), 0.2)]),
            "heading max": rrf([(top(np.maximum(passage, heading)), 1.0), (lexical_50, 0.2)]),
            "heading +0.5": rrf([(top(passage + 0.5 * heading), 1.0), (lexical_50, 0.2)]),
            "heading +0.5 query:": rrf([(top(passage + 0.5 * heading_q), 1.0), (lexical_50, 0.2)]),
            "heading list": rrf([(top(passage), 1.0), (heading_only, 1.0), (lexical_50, 0.2)]),
            "heading BM25 0.1": rrf(
                [(top(passage), 1.0), (lexical_50, 0.2), (bm25.search(words, 50), 0.1)]
            ),
            "page +0.5": rrf([(top(passage + 0.5 * page), 1.0), (lexical_50, 0.2)]),
        }
        for variant, order in orders.items():
            ranking = list(dict.fromkeys(doc_of[c] for c in order))
            ranks[variant].append(next((i for i, d in enumerate(ranking, 1) if d in gold), None))
    return {
        variant: (
            round(sum(1 for r in found if r and r <= 5) / len(found), 3),
            round(sum(1 / r for r in found if r and r <= 10) / len(found), 3),
        )
        for variant, found in ranks.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="stackfaq,covid,nih,rutube,demo,crosslingual,xsid")
    parser.add_argument("--db", type=Path, default=None, help="SQLite file to keep (vectors)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    wanted = set(args.tasks.split(","))
    tasks: list[Task] = []
    if "stackfaq" in wanted:
        tasks += folder_task("stackfaq/en", DATASETS / "retrieval" / "stackfaq", "en", 2000)
    if "covid" in wanted:
        tasks += folder_task("covid_faq/en", DATASETS / "retrieval" / "covid_faq", "en", 2000)
    if "nih" in wanted:
        tasks += nih_task(300)
    if "rutube" in wanted:
        tasks += folder_task("rutube/ru", DATASETS / "sites" / "rutube_support_ru", "ru", 300)
    if "demo" in wanted:
        tasks += [task for task in demo_tasks() if task[0] == "demo/en"]
    if "crosslingual" in wanted:
        tasks += crosslingual_tasks()
    if "xsid" in wanted:
        tasks += [task for task in xsid_tasks(300) if "→" in task[0] or task[0].endswith("/en")]
    database = args.db or Path(tempfile.mkdtemp(prefix="frontdesk-fusion-")) / "fusion.db"
    engine = make_engine(f"sqlite:///{database}")
    upgrade(engine)
    kb = KnowledgeBase(engine)
    results = {}
    for task in tasks:
        results[task[0]] = found = run(task, kb, engine)
        if not args.json:
            print(f"== {task[0]}", flush=True)
            for variant, (hit5, mrr) in found.items():
                print(f"   {variant:22} {hit5:.3f} {mrr:.3f}", flush=True)
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
