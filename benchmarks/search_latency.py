"""Search latency of the embedded index (SQLite) while it changes, at a chosen size.

    nice .venv/bin/python benchmarks/search_latency.py --chunks 100000 [--json]

The corpus is synthetic: chunk texts over a Zipf-distributed vocabulary (realistic
posting lists) and 384-dimensional "real-ish" vectors — unit vectors around 2,000 topic
centres (clustered like embeddings of a site's pages, not uniform noise, on which no
index structure helps); a query vector is a chunk's vector plus noise, and its words are
drawn from that chunk. Query embedding is not timed (see benchmarks/ingest_speed.py).

Reported:
- build: writing the site through `replace_document` (one transaction per document) and
  building the vector base (HNSW from `ANN_MIN_ROWS` chunks on);
- search p50/p95: `Retriever.search_with_vector` — lexical (FTS5 bm25) + dense + RRF
  fusion + threshold + chunk fetch, given the query vector; wall time, and the CPU time
  of the searching thread (what a search costs on an idle core);
- recall@10 of the index's dense search against an exact scan of the same vectors: of
  a dense search for 10, and of the top 10 of a search for `candidates` (50), which is
  what a hybrid search asks for;
- worker memory: a fresh process that opens the index and runs 200 searches — VmRSS
  (which counts the shared, memory-mapped vector pages it touched), RssAnon (its own),
  and its VmRSS before opening the index (Python, numpy, lingua's language models);
- during re-ingestion of `--reingest` chunks by another process: search p99, and how
  long after its write a new page is found by lexical and by dense search.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from frontdesk.knowledge.embeddings import HashingEmbedder
from frontdesk.knowledge.index.base import upsert_document
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex
from frontdesk.knowledge.lexical import lexical_text, query_terms, text_language
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.knowledge.search import Retriever, SearchOptions
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

SITE = "bench-site"
DIM = 384
MODEL = f"hash:{DIM}"  # the name only; vectors are synthetic
PER_DOC = 20
CENTRES = 2_000
SYLLABLES = ["ka", "lo", "mi", "ne", "sor", "tu", "va", "rex", "pli", "dan", "gor", "shi", "em"]
OPTIONS = SearchOptions(top_k=7, relevance_threshold=0.0, proactive_threshold=None)


def percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.array(values), q)), 2)


class Corpus:
    """Deterministic synthetic chunks: text and vector of chunk n from the seed alone."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        words: set[str] = set()
        while len(words) < 5000:
            words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        # Cumulative once: `choices(weights=...)` would re-add 5,000 weights per chunk.
        self.cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(5000)))
        centres = np.random.default_rng(seed).standard_normal((CENTRES, DIM)).astype(np.float32)
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        self.seed = seed

    def text(self, n: int, version: int = 0) -> str:
        rng = random.Random(self.seed * 1_000_003 + n * 7 + version)
        count = rng.randint(60, 120)
        return " ".join(rng.choices(self.words, cum_weights=self.cumulative, k=count))

    def vectors(self, first: int, count: int, version: int = 0) -> np.ndarray:
        rng = np.random.default_rng([self.seed, first, version])
        topics = rng.integers(0, CENTRES, count)
        noise = rng.standard_normal((count, DIM)).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        rows = self.centres[topics] + 0.6 * noise
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def write_doc(self, index: SqliteKnowledgeIndex, number: int, version: int = 0) -> None:
        doc_id = f"doc-{number:07d}.md"
        document = Document(doc_id, f"Document {number}", "", "markdown", f"bench:{doc_id}")
        first = number * PER_DOC
        chunks = [
            Chunk(f"{number:07d}-{i:02d}", doc_id, i, self.text(first + i, version), (), doc_id)
            for i in range(PER_DOC)
        ]
        lexical = [lexical_text(c.content) for c in chunks]
        vectors = self.vectors(first, PER_DOC, version)
        index.replace_document(SITE, document, "bench", chunks, vectors, lexical, MODEL)


def bulk_write(index: SqliteKnowledgeIndex, corpus: Corpus, docs: int) -> None:
    """The initial site in transactions of 500 documents (`--bulk`): the same rows, FTS
    rows and change log as `replace_document` writes, minutes faster at 1M chunks. Only
    the build uses it; the timed re-ingestion goes through `replace_document`."""
    now = datetime.now(UTC)
    for start in range(0, docs, 500):
        with index.engine.begin() as conn:
            for number in range(start, min(docs, start + 500)):
                doc_id = f"doc-{number:07d}.md"
                document = Document(doc_id, f"Document {number}", "", "markdown", "bench")
                upsert_document(conn, SITE, document, "bench", PER_DOC, now)
                first = number * PER_DOC
                vectors = corpus.vectors(first, PER_DOC)
                rows = []
                for i in range(PER_DOC):
                    body = corpus.text(first + i)
                    cursor = conn.exec_driver_sql(
                        "INSERT INTO knowledge_chunks (site_id, doc_id, chunk_id, chunk_index,"
                        " title, heading_path, content, url, source, content_hash,"
                        " embedding_model, embedding) VALUES (?, ?, ?, ?, ?, '[]', ?, '', ?,"
                        " '', ?, ?)",
                        (
                            SITE,
                            doc_id,
                            f"{number:07d}-{i:02d}",
                            i,
                            doc_id,
                            body,
                            "bench",
                            MODEL,
                            vectors[i].astype("<f4").tobytes(),
                        ),
                    )
                    rows.append((int(cursor.lastrowid or 0), lexical_text(body)))
                index.lexicon.add(conn, SITE, rows)
            conn.exec_driver_sql(
                "INSERT INTO knowledge_sites (site_id, revision, updated_at) VALUES (?, 1, ?)"
                " ON CONFLICT (site_id) DO UPDATE SET revision = knowledge_sites.revision + 1",
                (SITE, now.isoformat()),
            )


def dense_write(index: SqliteKnowledgeIndex, corpus: Corpus, chunks: int) -> None:
    """`--dense-only`: chunk rows with vectors and a one-word text, no lexical rows — to
    measure the vector index at sizes where writing a million texts takes an hour here."""
    now = datetime.now(UTC)
    for start in range(0, chunks, 10_000):
        with index.engine.begin() as conn:
            doc_id = f"block-{start:07d}"
            document = Document(doc_id, doc_id, "", "markdown", "bench")
            upsert_document(conn, SITE, document, "bench", 10_000, now)
            count = min(10_000, chunks - start)
            vectors = np.vstack(
                [corpus.vectors(first, PER_DOC) for first in range(start, start + count, PER_DOC)]
            )
            conn.exec_driver_sql(
                "INSERT INTO knowledge_chunks (site_id, doc_id, chunk_id, chunk_index, title,"
                " heading_path, content, url, source, content_hash, embedding_model, embedding)"
                " VALUES (?, ?, ?, ?, '', '[]', 'text', '', 'bench', '', ?, ?)",
                [
                    (
                        SITE,
                        doc_id,
                        f"{n // PER_DOC:07d}-{n % PER_DOC:02d}",
                        n,
                        MODEL,
                        vectors[n - start].astype("<f4").tobytes(),
                    )
                    for n in range(start, start + count)
                ],
            )
            conn.exec_driver_sql(
                "INSERT INTO knowledge_sites (site_id, revision, updated_at) VALUES (?, 1, ?)"
                " ON CONFLICT (site_id) DO UPDATE SET revision = knowledge_sites.revision + 1",
                (SITE, now.isoformat()),
            )


def dense_searches(index: SqliteKnowledgeIndex, work: list[tuple[str, np.ndarray]]) -> list[float]:
    times = []
    for _, vector in work:
        started = time.perf_counter()
        assert index.dense_search(SITE, MODEL, vector, 50)
        times.append((time.perf_counter() - started) * 1000)
    return times


def open_index(path: Path) -> SqliteKnowledgeIndex:
    return SqliteKnowledgeIndex(make_engine(f"sqlite:///{path}"))


def queries(corpus: Corpus, chunks: int, count: int, seed: int) -> list[tuple[str, np.ndarray]]:
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    found = []
    for _ in range(count):
        n = rng.randrange(chunks)
        words = rng.sample(corpus.text(n).split(), k=rng.randint(3, 8))
        vector = corpus.vectors((n // PER_DOC) * PER_DOC, PER_DOC)[n % PER_DOC]
        vector = vector + 0.3 * np_rng.standard_normal(DIM).astype(np.float32) / np.sqrt(DIM)
        found.append((" ".join(words), (vector / np.linalg.norm(vector)).astype(np.float32)))
    return found


def timed_searches(
    retriever: Retriever, work: list[tuple[str, np.ndarray]], cpu: list[float] | None = None
) -> list[float]:
    """Wall time of each search in ms; with `cpu`, the searching thread's CPU time too
    (what a search costs on an idle core: on a shared machine wall time adds the wait)."""
    times = []
    for query, vector in work:
        started, started_cpu = time.perf_counter(), time.thread_time()
        result = retriever.search_with_vector(SITE, query, vector, OPTIONS)
        times.append((time.perf_counter() - started) * 1000)
        if cpu is not None:
            cpu.append((time.thread_time() - started_cpu) * 1000)
        assert result.status == "ok", result
    return times


def recall_at_10(
    index: SqliteKnowledgeIndex, work: list[tuple[str, np.ndarray]]
) -> dict[str, float]:
    """Overlap of the index's dense top 10 with an exact scan (one blocked pass over the
    base for all queries: the truth at 1M chunks would otherwise take minutes)."""
    base = index.vectors.live(SITE, MODEL).base
    vectors = np.stack([vector for _, vector in work])
    best_scores = np.full((len(work), 10), -np.inf, dtype=np.float32)
    best_rows = np.zeros((len(work), 10), dtype=np.int64)
    for start in range(0, len(base.ids), 65_536):
        scores = np.asarray(base.matrix[start : start + 65_536]) @ vectors.T  # (block, q)
        merged_scores = np.concatenate([best_scores, scores.T], axis=1)
        merged_rows = np.concatenate(
            [best_rows, np.broadcast_to(np.arange(start, start + len(scores)), scores.T.shape)],
            axis=1,
        )
        keep = np.argsort(-merged_scores, axis=1)[:, :10]
        best_scores = np.take_along_axis(merged_scores, keep, axis=1)
        best_rows = np.take_along_axis(merged_rows, keep, axis=1)
    with index.engine.connect() as conn:
        truth_ids = sorted({int(base.ids[r]) for r in best_rows.ravel()})
        placeholders = ",".join(map(str, truth_ids))  # integers from the base
        names = dict(
            conn.exec_driver_sql(
                f"SELECT id, chunk_id FROM knowledge_chunks WHERE id IN ({placeholders})"
            ).all()
        )
    recalls: dict[int, list[float]] = {10: [], OPTIONS.candidates: []}
    for q, (_, vector) in enumerate(work):
        truth = {names[int(base.ids[r])] for r in best_rows[q]}
        for limit, found in recalls.items():
            hits = index.dense_search(SITE, MODEL, vector, limit)[:10]
            found.append(len(truth & {hit.chunk_id for hit in hits}) / 10)
    return {
        "recall_at_10": round(float(np.mean(recalls[10])), 4),
        # What a search uses: the top 10 of its `candidates` (50) dense candidates.
        f"recall_at_10_of_{OPTIONS.candidates}": round(
            float(np.mean(recalls[OPTIONS.candidates])), 4
        ),
    }


def worker_memory(path: Path, chunks: int, seed: int, dense_only: bool) -> dict[str, float]:
    """A fresh process, as a serving worker: open, search 200 times, report memory."""
    output = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            str(path),
            "--chunks",
            str(chunks),
            "--seed",
            str(seed),
            *(["--dense-only"] if dense_only else []),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def memory_mb() -> dict[str, float]:
    """VmRSS, RssAnon, RssFile and Pss (shared pages divided among the processes
    mapping them) of this process, in MB."""
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    found = {key: int(status[key].split()[0]) / 1024 for key in ("VmRSS", "RssAnon", "RssFile")}
    rollup = Path("/proc/self/smaps_rollup")
    if rollup.exists():
        for line in rollup.read_text().splitlines():
            if line.startswith("Pss:"):
                found["Pss"] = int(line.split()[1]) / 1024
    return found


def run_worker(path: Path, chunks: int, seed: int, dense_only: bool) -> None:
    work = queries(Corpus(seed), chunks, 200, seed + 5)
    text_language("Wie finde ich meine alte Rechnung im Kundenkonto?")  # lingua's models
    baseline = memory_mb()  # what a worker holds before it opens the index
    index = open_index(path)
    if dense_only:
        dense_searches(index, work)
    else:
        timed_searches(Retriever(index, HashingEmbedder(DIM)), work)
    report = {f"worker_{k.lower()}_mb": round(v, 1) for k, v in memory_mb().items()}
    report["worker_baseline_rss_mb"] = round(baseline["VmRSS"], 1)
    print(json.dumps(report))


def run_writer(path: Path, chunks: int, reingest: int, seed: int) -> None:
    """Re-ingest `reingest` chunks (new text and vectors), and every 50 documents write a
    new page, printing when its transaction committed."""
    index = open_index(path)
    corpus = Corpus(seed)
    docs = chunks // PER_DOC
    for k in range(reingest // PER_DOC):
        corpus.write_doc(index, (k * 7919) % docs, version=1)
        if k % 50 == 25:
            number = docs + k  # a new document number
            corpus.write_doc(index, number)
            print(json.dumps({"doc": number, "at": time.time()}), flush=True)


def during_reingestion(
    path: Path,
    index: SqliteKnowledgeIndex,
    retriever: Retriever,
    corpus: Corpus,
    work: list[tuple[str, np.ndarray]],
    chunks: int,
    reingest: int,
    seed: int,
) -> dict[str, float]:
    writer = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--writer",
            str(path),
            "--chunks",
            str(chunks),
            "--reingest",
            str(reingest),
            "--seed",
            str(seed),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    written: list[dict[str, float]] = []
    reader = threading.Thread(
        target=lambda: written.extend(json.loads(line) for line in writer.stdout or []),
        daemon=True,
    )
    reader.start()
    times: list[float] = []
    cpu: list[float] = []
    visible: list[float] = []
    seen: set[int] = set()
    i = 0
    while writer.poll() is None or len(seen) < len(written):
        query, vector = work[i % len(work)]
        i += 1
        started, started_cpu = time.perf_counter(), time.thread_time()
        retriever.search_with_vector(SITE, query, vector, OPTIONS)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        for item in list(written):
            number = int(item["doc"])
            if number in seen:
                continue
            chunk_id = f"{number:07d}-00"
            terms = query_terms(corpus.text(number * PER_DOC))
            new_vector = corpus.vectors(number * PER_DOC, PER_DOC)[0]
            lexical = {h.chunk_id for h in index.lexical_search(SITE, terms, 5)}
            dense = {h.chunk_id for h in index.dense_search(SITE, MODEL, new_vector, 5)}
            if chunk_id in lexical and chunk_id in dense:
                seen.add(number)
                visible.append(time.time() - item["at"])
            elif time.time() - item["at"] > 30:
                raise SystemExit(f"new page {chunk_id} not searchable 30 s after its write")
    return {
        "reingest_chunks": reingest,
        "reingest_searches": len(times),
        "reingest_search_p50_ms": percentile(times, 50),
        "reingest_search_p99_ms": percentile(times, 99),
        "reingest_search_cpu_p99_ms": percentile(cpu, 99),
        "new_page_searchable_max_s": round(max(visible), 3) if visible else -1,
        "new_page_searchable_p50_s": round(float(np.median(visible)), 3) if visible else -1,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--reingest", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="End with one JSON line.")
    parser.add_argument(
        "--bulk", action="store_true", help="Write the initial site in large transactions."
    )
    parser.add_argument(
        "--dense-only",
        action="store_true",
        help="Only the vector index: no texts, no lexical search, no re-ingestion.",
    )
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--writer", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return run_worker(args.worker, args.chunks, args.seed, args.dense_only)
    if args.writer:
        return run_writer(args.writer, args.chunks, args.reingest, args.seed)

    with tempfile.TemporaryDirectory(prefix="frontdesk-bench-") as folder:
        path = Path(folder) / "bench.db"
        upgrade(make_engine(f"sqlite:///{path}"))
        index = open_index(path)
        corpus = Corpus(args.seed)
        started = time.perf_counter()
        if args.dense_only:
            dense_write(index, corpus, args.chunks)
        elif args.bulk:
            bulk_write(index, corpus, args.chunks // PER_DOC)
        else:
            for number in range(args.chunks // PER_DOC):
                corpus.write_doc(index, number)
        write_s = time.perf_counter() - started
        started = time.perf_counter()
        index.rebuild_vectors(SITE)
        base_s = time.perf_counter() - started
        retriever = Retriever(index, HashingEmbedder(DIM))
        work = queries(corpus, args.chunks, args.queries, args.seed + 1)
        search = dense_searches if args.dense_only else timed_searches
        target = index if args.dense_only else retriever
        search(target, work[:20])  # type: ignore[arg-type]  # warm the caches
        cpu_ms: list[float] = []
        if args.dense_only:
            search_ms = dense_searches(index, work)
        else:
            search_ms = timed_searches(retriever, work, cpu_ms)
        report: dict[str, float | int | str] = {
            "chunks": args.chunks,
            "write_s": round(write_s, 1),
            "vector_base_s": round(base_s, 1),
            "ann": "hnsw" if index.vectors.live(SITE, MODEL).base.ann is not None else "exact",
            "search": "dense (top 50)" if args.dense_only else "hybrid",
            "search_p50_ms": percentile(search_ms, 50),
            "search_p95_ms": percentile(search_ms, 95),
        }
        if cpu_ms:
            report["search_cpu_p50_ms"] = percentile(cpu_ms, 50)
            report["search_cpu_p95_ms"] = percentile(cpu_ms, 95)
        report["load_average_1m"] = float(Path("/proc/loadavg").read_text().split()[0])
        report.update(worker_memory(path, args.chunks, args.seed, args.dense_only))
        report.update(recall_at_10(index, work[:100]))
        if not args.dense_only:
            report.update(
                during_reingestion(
                    path, index, retriever, corpus, work, args.chunks, args.reingest, args.seed
                )
            )
    for key, value in report.items():
        print(f"{key:>28}: {value}")
    if args.json:
        print(json.dumps(report))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
