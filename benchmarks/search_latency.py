"""Search latency on a synthetic 10,000-chunk site (embedded SQLite default).

    .venv/bin/python benchmarks/search_latency.py [--chunks 10000] [--queries 300] [--json]

Chunks are synthetic texts over a Zipf-distributed vocabulary (so the lexical index has
realistic posting lists) with random unit vectors of the model's dimension (so building
the site takes seconds, not minutes of embedding); queries are embedded with the real
model. Reported separately:
- index: lexical (FTS5) + dense (in-memory matrix) + RRF fusion + threshold + chunk
  fetch, given the query vector — what the index contributes;
- embed: one query through MiniLM on the CPU;
- end-to-end: `KnowledgeBase.search` with a cold query-vector cache, and warm (a repeated
  question, served from the cache).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex
from frontdesk.knowledge.lexical import lexical_text
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.knowledge.search import SearchOptions
from frontdesk.knowledge.service import KnowledgeBase, SiteKnowledge
from frontdesk.sites.schema import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

SITE = "bench-site"
SYLLABLES = ["ka", "lo", "mi", "ne", "sor", "tu", "va", "rex", "pli", "dan", "gor", "shi", "em"]


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def build_site(
    index: SqliteKnowledgeIndex, chunks: int, dim: int, model: str, seed: int
) -> list[str]:
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    words = vocabulary(5000, rng)
    weights = [1.0 / (rank + 1) for rank in range(len(words))]  # Zipf
    texts: list[str] = []
    per_doc = 10
    for doc_number in range(chunks // per_doc):
        doc_id = f"doc-{doc_number:05d}.md"
        document = Document(doc_id, f"Document {doc_number}", "", "markdown", f"bench:{doc_id}")
        doc_chunks = []
        for index_in_doc in range(per_doc):
            text = " ".join(rng.choices(words, weights=weights, k=rng.randint(60, 120))) + "."
            texts.append(text)
            doc_chunks.append(
                Chunk(
                    f"{doc_number:05d}-{index_in_doc:02d}",
                    doc_id,
                    index_in_doc,
                    text,
                    (document.title,),
                    document.title,
                    "",
                    document.source,
                )
            )
        vectors = np_rng.standard_normal((per_doc, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        lexical = [lexical_text(c.indexed_text) for c in doc_chunks]
        index.replace_document(SITE, document, "bench", doc_chunks, vectors, lexical, model)
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="End with one JSON line.")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="frontdesk-bench-") as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'bench.db'}")
        upgrade(engine)
        index = SqliteKnowledgeIndex(engine)
        kb = KnowledgeBase(index=index)
        site = SiteKnowledge(SITE, KnowledgeConfig(relevance_threshold=0.0))
        retriever = kb.retriever(site)
        model = retriever.embedder.name
        dim = int(retriever.embedder.embed_query("warm up").shape[0])

        started = time.perf_counter()
        texts = build_site(index, args.chunks, dim, model, args.seed)
        build_s = time.perf_counter() - started
        assert index.chunk_count(SITE) == args.chunks

        rng = random.Random(args.seed + 1)
        queries = [
            " ".join(rng.sample(rng.choice(texts).rstrip(".").split(), k=rng.randint(3, 8)))
            for _ in range(args.queries)
        ]
        options = SearchOptions(top_k=7, relevance_threshold=0.0, proactive_threshold=0.1)
        started = time.perf_counter()
        retriever.search_with_vector(
            SITE, "first query loads the matrix", retriever.embed_query("warm"), options
        )
        load_ms = (time.perf_counter() - started) * 1000

        embed_ms: list[float] = []
        vectors = []
        for query in queries:
            started = time.perf_counter()
            vectors.append(retriever.embedder.embed_query(query))
            embed_ms.append((time.perf_counter() - started) * 1000)

        index_ms: list[float] = []
        for query, vector in zip(queries, vectors, strict=True):
            started = time.perf_counter()
            result = retriever.search_with_vector(SITE, query, vector, options)
            index_ms.append((time.perf_counter() - started) * 1000)
            assert result.status == "ok", result

        end_to_end_ms: list[float] = []
        fresh = [f"{query} {n}" for n, query in enumerate(queries)]  # not in the vector cache
        for query in fresh:
            started = time.perf_counter()
            kb.search(site, query)
            end_to_end_ms.append((time.perf_counter() - started) * 1000)
        cached_ms: list[float] = []
        for query in fresh:
            started = time.perf_counter()
            kb.search(site, query)
            cached_ms.append((time.perf_counter() - started) * 1000)
        engine.dispose()

    report = {
        "chunks": args.chunks,
        "queries": args.queries,
        "build_s": round(build_s, 1),
        "first_search_load_ms": round(load_ms, 1),
        "index_p50_ms": round(percentile(index_ms, 50), 2),
        "index_p95_ms": round(percentile(index_ms, 95), 2),
        "embed_p50_ms": round(percentile(embed_ms, 50), 2),
        "embed_p95_ms": round(percentile(embed_ms, 95), 2),
        "end_to_end_p50_ms": round(percentile(end_to_end_ms, 50), 2),
        "end_to_end_p95_ms": round(percentile(end_to_end_ms, 95), 2),
        "cached_query_p50_ms": round(percentile(cached_ms, 50), 2),
        "cached_query_p95_ms": round(percentile(cached_ms, 95), 2),
        "index_mean_ms": round(statistics.fmean(index_ms), 2),
    }
    for key, value in report.items():
        print(f"{key:>22}: {value}")
    if args.json:
        print(json.dumps(report))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
