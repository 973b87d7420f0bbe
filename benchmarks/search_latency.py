"""Search latency of the embedded index (SQLite) while it changes, at a chosen size.

    PYTHONPATH=src:. .venv/bin/python benchmarks/search_latency.py --chunks 100000 --bulk \
        [--cache ~/.cache/frontdesk/bench] [--backend postgres] [--vocabulary fixed] [--json]

`--cache` keeps the built site for later runs of the same size and seed (1M chunks take
~35 min to build on a busy 2-core machine); `--backend postgres` runs the same site and
measures on PostgreSQL + pgvector (`search_latency_pg.py`). The corpus and queries are
in `search_site.py`.

The corpus is synthetic: chunk texts drawn with Zipf's law from a vocabulary that grows
with the corpus as real text's does (Heaps' law; `--vocabulary fixed` keeps the earlier
5,000-word corpus, for comparable figures, under which every word of a 1M-chunk site is in
~2,000 chunks and every query is one of only common words) and 384-dimensional
"real-ish" vectors — unit vectors around 2,000 topic centres (clustered like
embeddings of a site's pages, not uniform noise, on which no index structure helps); a
query vector is a chunk's vector plus noise, and its words are
drawn from that chunk. Query embedding is not timed (see benchmarks/ingest_speed.py).

Reported:
- build: writing the site through `replace_document` (one transaction per document) and
  building the vector base (HNSW from `ANN_MIN_ROWS` chunks on);
- search p50/p95: `Retriever.search_with_vector` — lexical (FTS5 bm25) + dense + RRF
  fusion + threshold + chunk fetch, given the query vector; wall time, and the CPU time
  of the searching thread (what a search costs on an idle core);
- recall@10 of the index's dense search against an exact scan of the same vectors: of
  a dense search for 10, and of the top 10 of a search for `candidates` (50), which is
  what a hybrid search asks for; over `--recall-queries` queries (the timed queries
  first), with its standard error (100 queries could not tell two graphs apart at 300k);
- worker memory: a fresh process that opens the index and runs 200 searches — VmRSS
  (which counts the shared, memory-mapped vector pages it touched), RssAnon (its own),
  and its VmRSS before opening the index (Python, numpy, lingua's language models);
- during re-ingestion of `--reingest` chunks by another process: search p99, and how
  long after its write a new page is found by lexical and by dense search.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from search_site import (
    CENTRES,
    DIM,
    MODEL,
    OPTIONS,
    PER_DOC,
    SITE,
    VOCABULARIES,
    Corpus,
    dense_recall,
    exact_top10,
    heading,
    memory_mb,
    percentile,
    queries,
    rewrite,
    run_queue_ms,
    where_time_went,
    write_title_vectors,
)

from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, HashingEmbedder
from frontdesk.knowledge.index.base import upsert_document
from frontdesk.knowledge.index.postgres_hnsw import HNSW_EF_CONSTRUCTION
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.knowledge.search.titles import default_title_weight
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade
from frontdesk.text.lexical import heading_terms, lexical_text, query_terms, text_language


def bulk_write(index: SqliteKnowledgeIndex, corpus: Corpus, docs: int) -> None:
    """The initial site in transactions of 500 documents (`--bulk`): the same rows, FTS
    rows and change log as `replace_document` writes, minutes faster at 1M chunks. Only
    the build uses it; the timed re-ingestion goes through `replace_document`.

    Rows go through the driver's `executemany` with their row ids given (a fresh
    database: id n + 1 for chunk n), and the build's own connection skips fsync
    (`synchronous = OFF`: a crash mid-build loses only the benchmark's scratch copy)."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")  # SQLAlchemy's format
    with index.engine.connect() as conn:
        table = index.lexicon.ensure_table(conn, SITE)
        headings = index.headings.ensure_table(conn, SITE)
        conn.commit()
    raw = index.engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("PRAGMA synchronous = OFF")
        cursor.execute("PRAGMA cache_size = -262144")  # 256 MB for the FTS5 merges
        for start in range(0, docs, 500):
            numbers = range(start, min(docs, start + 500))
            cursor.execute("BEGIN")
            cursor.executemany(
                "INSERT INTO knowledge_documents (site_id, doc_id, title, kind, source, url,"
                " fingerprint, chunk_count, withheld, created_at, updated_at)"
                " VALUES (?, ?, ?, 'markdown', 'bench', '', 'bench', ?, '[]', ?, ?)",
                [(SITE, f"doc-{n:07d}.md", f"Document {n}", PER_DOC, now, now) for n in numbers],
            )
            chunk_rows = []
            fts_rows = []
            heading_rows = []
            for number in numbers:
                doc_id = f"doc-{number:07d}.md"
                first = number * PER_DOC
                vectors = corpus.vectors(first, PER_DOC)
                texts = corpus.texts(first, PER_DOC)
                path = heading(texts)
                for i, body in enumerate(texts):
                    row_id = first + i + 1
                    chunk_rows.append(
                        (
                            row_id,
                            SITE,
                            doc_id,
                            f"{number:07d}-{i:02d}",
                            i,
                            doc_id,
                            json.dumps([path]),
                            body,
                            MODEL,
                            vectors[i].astype("<f4").tobytes(),
                        )
                    )
                    lexical = corpus.lexical(f"{path} {body}")
                    if number == start and lexical != lexical_text(
                        Chunk("", doc_id, i, body, (path,)).indexed_text
                    ):
                        raise AssertionError("the stem lookup differs from lexical_text")
                    fts_rows.append((row_id, lexical))
                    heading_rows.append((row_id, heading_terms(lexical, (path,))))
            cursor.executemany(
                "INSERT INTO knowledge_chunks (id, site_id, doc_id, chunk_id, chunk_index,"
                " title, heading_path, content, url, source, content_hash,"
                " embedding_model, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', 'bench',"
                " '', ?, ?)",
                chunk_rows,
            )
            cursor.executemany(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", fts_rows)
            cursor.executemany(
                f"INSERT INTO {headings} (rowid, heading) VALUES (?, ?)", heading_rows
            )
            cursor.execute(
                "INSERT INTO knowledge_sites (site_id, revision, updated_at) VALUES (?, 1, ?)"
                " ON CONFLICT (site_id) DO UPDATE SET revision = knowledge_sites.revision + 1",
                (SITE, now),
            )
            cursor.execute("COMMIT")
            if start % 10_000 == 0 and start:
                print(f"  built {start * PER_DOC:,} chunks", file=sys.stderr, flush=True)
        cursor.close()
    finally:
        raw.close()


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


def timed_searches(
    retriever: Retriever,
    work: list[tuple[str, np.ndarray]],
    cpu: list[float] | None = None,
    queued: list[float] | None = None,
) -> list[float]:
    """Wall time of each search in ms; with `cpu`, the searching thread's CPU time too
    (what a search costs on an idle core: on a shared machine wall time adds the wait)."""
    times = []
    for query, vector in work:
        started_queue = run_queue_ms()
        started, started_cpu = time.perf_counter(), time.thread_time()
        result = retriever.search_with_vector(SITE, query, vector, OPTIONS)
        times.append((time.perf_counter() - started) * 1000)
        if cpu is not None:
            cpu.append((time.thread_time() - started_cpu) * 1000)
        if queued is not None:
            queued.append(run_queue_ms() - started_queue)
        assert result.status == "ok", result
    return times


def recall_at_10(
    index: SqliteKnowledgeIndex, work: list[tuple[str, np.ndarray]]
) -> dict[str, float]:
    """Overlap of the index's dense top 10 with an exact scan (one blocked pass over the
    base for all queries: the truth at 1M chunks would otherwise take minutes)."""
    base = index.vectors.live(SITE, MODEL).base
    vectors = np.stack([vector for _, vector in work])
    blocks = (
        (start, base.matrix[start : start + 65_536]) for start in range(0, len(base.ids), 65_536)
    )
    best_rows = np.array(exact_top10(blocks, vectors))
    with index.engine.connect() as conn:
        truth_ids = sorted({int(base.ids[r]) for r in best_rows.ravel()})
        placeholders = ",".join(map(str, truth_ids))  # integers from the base
        names = dict(
            conn.exec_driver_sql(
                f"SELECT id, chunk_id FROM knowledge_chunks WHERE id IN ({placeholders})"
            ).all()
        )
    truth = [{names[int(base.ids[r])] for r in rows} for rows in best_rows]
    return dense_recall(index, work, truth)


def worker_memory(path: Path, args: argparse.Namespace) -> dict[str, float | int]:
    """`--workers` fresh processes, as serving workers: each opens the index and searches
    200 times, and once all have, each reads its memory — so Pss shares the mapped index
    pages among the workers (and this process), as on a server running that many. The
    first worker's figures are reported: VmRSS counts every shared page it touched,
    Private (USS) only its own, Pss its own plus its share of the shared ones."""
    command = [
        sys.executable,
        __file__,
        "--worker",
        str(path),
        *corpus_arguments(args),
        *(["--dense-only"] if args.dense_only else []),
        f"--heading-weight={args.heading_weight}",
        f"--title-weight={args.title_weight}",
        "--together",
    ]
    workers = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(args.workers)
    ]
    pipes = [(worker.stdin, worker.stdout) for worker in workers]
    for _, stdout in pipes:
        assert stdout is not None and stdout.readline().strip() == "searched"
    for stdin, _ in pipes:
        assert stdin is not None
        stdin.write("measure\n")
        stdin.flush()
    reports = [json.loads(stdout.readline()) for _, stdout in pipes if stdout is not None]
    for worker in workers:
        worker.communicate()  # closes stdin: the workers exit
        if worker.returncode:
            raise RuntimeError(f"a worker failed: {worker.returncode}")
    return {**reports[0], "workers": len(reports)}


def run_worker(
    path: Path, corpus: Corpus, chunks: int, seed: int, dense_only: bool, together: bool
) -> None:
    """Search 200 times and print memory; `together`: say "searched", measure when told,
    and stay until stdin closes (see `worker_memory`)."""
    work = queries(corpus, chunks, 200, seed + 5)
    text_language("Wie finde ich meine alte Rechnung im Kundenkonto?")  # lingua's models
    baseline = memory_mb()  # what a worker holds before it opens the index
    index = open_index(path)
    if dense_only:
        dense_searches(index, work)
    else:
        timed_searches(Retriever(index, HashingEmbedder(DIM)), work)
    if together:
        print("searched", flush=True)
        sys.stdin.readline()
    report = {f"worker_{k.lower()}_mb": round(v, 1) for k, v in memory_mb().items()}
    report["worker_baseline_rss_mb"] = round(baseline["VmRSS"], 1)
    report["worker_baseline_private_mb"] = round(baseline.get("Private", 0.0), 1)
    print(json.dumps(report), flush=True)
    if together:
        sys.stdin.read()


def run_writer(path: Path, corpus: Corpus, chunks: int, reingest: int) -> None:
    """Re-ingest `reingest` chunks (new text and vectors), and every 50 documents write a
    new page, printing when its transaction committed."""
    rewrite(open_index(path), corpus, chunks, reingest)


def corpus_arguments(args: argparse.Namespace) -> list[str]:
    """The options that make a subprocess generate the same corpus."""
    return [
        "--chunks",
        str(args.chunks),
        "--seed",
        str(args.seed),
        "--vocabulary",
        args.vocabulary,
        "--topics",
        str(args.topics),
    ]


def writer_command(script: str, target: object, args: argparse.Namespace) -> list[str]:
    """The re-ingesting process: `script --writer TARGET` (a database path or URL)."""
    return [
        sys.executable,
        script,
        "--writer",
        str(target),
        *corpus_arguments(args),
        "--reingest",
        str(args.reingest),
    ]


def during_reingestion(
    writer_command: list[str],
    index: Any,
    retriever: Retriever,
    corpus: Corpus,
    work: list[tuple[str, np.ndarray]],
) -> dict[str, float]:
    """Search while `writer_command` (a process re-ingesting chunks and printing each new
    page's commit time) runs; `index` is either backend's (lexical and dense search)."""
    writer = subprocess.Popen(writer_command, stdout=subprocess.PIPE, text=True)
    written: list[dict[str, float]] = []
    reader = threading.Thread(
        target=lambda: written.extend(json.loads(line) for line in writer.stdout or []),
        daemon=True,
    )
    reader.start()
    times: list[float] = []
    cpu: list[float] = []
    queued: list[float] = []
    visible: list[float] = []
    seen: set[int] = set()
    missed: list[str] = []  # new pages not searchable 30 s after their write
    i = 0
    while writer.poll() is None or len(seen) < len(written):
        query, vector = work[i % len(work)]
        i += 1
        started_queue = run_queue_ms()
        started, started_cpu = time.perf_counter(), time.thread_time()
        retriever.search_with_vector(SITE, query, vector, OPTIONS)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        queued.append(run_queue_ms() - started_queue)
        for item in list(written):
            number = int(item["doc"])
            if number in seen:
                continue
            chunk_id = f"{number:07d}-00"
            terms = query_terms(corpus.new_page_text(number))
            new_vector = corpus.vectors(number * PER_DOC, PER_DOC)[0]
            lexical = {h.chunk_id for h in index.lexical_search(SITE, terms, 5)}
            dense = {h.chunk_id for h in index.dense_search(SITE, MODEL, new_vector, 5)}
            if chunk_id in lexical and chunk_id in dense:
                seen.add(number)
                visible.append(time.time() - item["at"])
            elif time.time() - item["at"] > 30:
                seen.add(number)
                missed.append(
                    f"{chunk_id} (lexical {chunk_id in lexical}, dense {chunk_id in dense})"
                )
    return {
        "reingest_searches": len(times),
        "new_pages_not_searchable_after_30s": ", ".join(missed) or "none",
        "reingest_search_p50_ms": percentile(times, 50),
        "reingest_search_p99_ms": percentile(times, 99),
        "reingest_search_cpu_p99_ms": percentile(cpu, 99),
        **{f"reingest_{k}": v for k, v in where_time_went(times, cpu, queued).items()},
        "new_page_searchable_max_s": round(max(visible), 3) if visible else -1,
        "new_page_searchable_p50_s": round(float(np.median(visible)), 3) if visible else -1,
    }


CACHE_FORMAT = 3  # bump when the corpus or the build's rows change


def build_site(path: Path, corpus: Corpus, args: argparse.Namespace) -> tuple[float, float, bool]:
    """Write the site and its vector base at `path`: (write s, vector base s, from the
    cache). With `--cache DIR` a finished build is kept in DIR (database and vector
    folder, checkpointed) and later runs of the same size, seed and mode copy it instead
    of building (a 1M-chunk build takes many minutes here); each run works on its own
    copy, so re-ingestion never changes the cached site."""
    mode = "dense" if args.dense_only else "bulk" if args.bulk else "docs"
    if args.vocabulary != "fixed":  # the earlier builds' names stay valid
        mode += f"-{args.vocabulary}"
    if args.topics != CENTRES:
        mode += f"-topics{args.topics}"
    cached = (
        args.cache / f"sqlite-{args.chunks}-seed{args.seed}-{mode}-v{CACHE_FORMAT}"
        if args.cache
        else None
    )
    if cached is not None and (cached / "build.json").exists():
        for item in cached.iterdir():
            if item.is_dir():
                shutil.copytree(item, path.parent / item.name)
            elif item.name != "build.json":
                shutil.copy2(item, path.parent / item.name)
        build = json.loads((cached / "build.json").read_text())
        return float(build["write_s"]), float(build["vector_base_s"]), True
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    index = open_index(path)
    started = time.perf_counter()
    if args.dense_only:
        dense_write(index, corpus, args.chunks)
    elif args.bulk:
        bulk_write(index, corpus, args.chunks // PER_DOC)
    else:
        for number in range(args.chunks // PER_DOC):
            corpus.write_doc(index, number)
    write_s = time.perf_counter() - started
    print(f"  rows written in {write_s:.0f} s", file=sys.stderr, flush=True)
    started = time.perf_counter()
    index.rebuild_vectors(SITE)
    base_s = time.perf_counter() - started
    print(f"  vector base built in {base_s:.0f} s", file=sys.stderr, flush=True)
    if cached is not None:
        # Every connection of this process to the files is closed before they are read:
        # closing any descriptor of a SQLite file drops the process's POSIX locks on it
        # (SQLite's "how to corrupt": another process then resets the WAL index under
        # the still-open connections, and FTS5 reads a malformed index).
        with index.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        index.engine.dispose()
        partial = cached.with_name(cached.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(path.parent, partial)
        build = {"write_s": round(write_s, 1), "vector_base_s": round(base_s, 1)}
        (partial / "build.json").write_text(json.dumps(build))
        shutil.rmtree(cached, ignore_errors=True)
        partial.rename(cached)
    return write_s, base_s, False


def main() -> None:
    global OPTIONS  # `--heading-weight`, `--title-weight`: every search of this process
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--reingest", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--recall-queries",
        type=int,
        default=1000,
        help="Queries whose dense top 10 is checked against an exact scan (the timed first).",
    )
    parser.add_argument(
        "--vocabulary",
        choices=VOCABULARIES,
        default="heaps",
        help="heaps: Zipf words from a vocabulary that grows with the corpus (Heaps' law),"
        " as a real site's does; fixed: 5,000 words at every size (the earlier corpus).",
    )
    parser.add_argument(
        "--topics",
        type=int,
        default=CENTRES,
        help="Topic centres of the vectors (chunks / topics near-equidistant chunks a topic;"
        " --chunks 100000 --topics 200 has the neighbourhoods, not the size, of 1M chunks).",
    )
    parser.add_argument("--json", action="store_true", help="End with one JSON line.")
    parser.add_argument(
        "--bulk", action="store_true", help="Write the initial site in large transactions."
    )
    parser.add_argument(
        "--dense-only",
        action="store_true",
        help="Only the vector index: no texts, no lexical search, no re-ingestion.",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        help="Keep the built site in this folder and reuse it on later runs of the same"
        " size, seed and mode (e.g. ~/.cache/frontdesk/bench; delete it to rebuild).",
    )
    parser.add_argument(
        "--backend",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="sqlite: the embedded index; postgres: tsvector + pgvector (search_latency_pg.py).",
    )
    parser.add_argument(
        "--pg-url", help="PostgreSQL admin URL (default: start pgserver's PostgreSQL)."
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="Serving workers measured together for memory (they share the mapped index).",
    )
    parser.add_argument(
        "--heading-weight",
        type=float,
        default=OPTIONS.heading_weight,
        help="Fusion weight of the heading list (0: not searched; default: the product's).",
    )
    parser.add_argument(
        "--title-weight",
        type=float,
        default=default_title_weight(DEFAULT_EMBEDDING),
        help="Share of the page title's cosine in the dense rank (0: the passage alone;"
        " default: the product's default model's).",
    )
    parser.add_argument(
        "--ef-search",
        default="40",
        help="postgres: comma-separated hnsw.ef_search floors; the first is timed with"
        " re-ingestion, each gets recall@10 and search p95 on the same build.",
    )
    parser.add_argument(
        "--ef-construction",
        type=int,
        default=HNSW_EF_CONSTRUCTION,
        help="postgres: the HNSW build's list (default: the product's,"
        f" {HNSW_EF_CONSTRUCTION}; builds at 64 are cached without a suffix).",
    )
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--together", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--writer", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    OPTIONS = replace(OPTIONS, heading_weight=args.heading_weight, title_weight=args.title_weight)
    corpus = Corpus(args.seed, args.chunks, args.vocabulary, args.topics)
    if args.worker:
        return run_worker(
            args.worker, corpus, args.chunks, args.seed, args.dense_only, args.together
        )
    if args.writer:
        return run_writer(args.writer, corpus, args.chunks, args.reingest)
    if args.backend == "postgres":
        import search_latency_pg

        search_latency_pg.OPTIONS = OPTIONS  # the weights given here
        return print_report(search_latency_pg.run(args, corpus), args.json)

    with tempfile.TemporaryDirectory(prefix="frontdesk-bench-") as folder:
        path = Path(folder) / "bench.db"
        write_s, base_s, cached = build_site(path, corpus, args)
        index = open_index(path)
        if OPTIONS.title_weight > 0:
            write_title_vectors(index, corpus, args.chunks)
        retriever = Retriever(index, HashingEmbedder(DIM))
        work = queries(corpus, args.chunks, args.queries, args.seed + 1)
        search = dense_searches if args.dense_only else timed_searches
        target = index if args.dense_only else retriever
        search(target, work[:20])  # type: ignore[arg-type]  # warm the caches
        cpu_ms: list[float] = []
        queued_ms: list[float] = []
        if args.dense_only:
            search_ms = dense_searches(index, work)
        else:
            search_ms = timed_searches(retriever, work, cpu_ms, queued_ms)
        report: dict[str, float | int | str] = {
            "chunks": args.chunks,
            "vocabulary": f"{args.vocabulary} ({len(corpus.words):,} words)",
            "write_s": round(write_s, 1),
            "build_cached": cached,
            "vector_base_s": round(base_s, 1),
            "ann": "hnsw" if index.vectors.live(SITE, MODEL).base.ann is not None else "exact",
            "search": "dense (top 50)"
            if args.dense_only
            else f"hybrid (heading weight {OPTIONS.heading_weight},"
            f" title weight {OPTIONS.title_weight})",
            "search_p50_ms": percentile(search_ms, 50),
            "search_p95_ms": percentile(search_ms, 95),
        }
        if cpu_ms:
            report["search_cpu_p50_ms"] = percentile(cpu_ms, 50)
            report["search_cpu_p95_ms"] = percentile(cpu_ms, 95)
            report["search_waiting_for_core_p95_ms"] = percentile(queued_ms, 95)
        report["load_average_1m"] = float(Path("/proc/loadavg").read_text().split()[0])
        report.update(worker_memory(path, args))
        report.update(
            recall_at_10(index, queries(corpus, args.chunks, args.recall_queries, args.seed + 1))
        )
        if not args.dense_only:
            report["reingest_chunks"] = args.reingest
            report.update(
                during_reingestion(
                    writer_command(__file__, path, args), index, retriever, corpus, work
                )
            )
    print_report(report, args.json)


def print_report(report: dict[str, Any], as_json: bool) -> None:
    for key, value in report.items():
        print(f"{key:>44}: {value}")
    if as_json:
        print(json.dumps(report))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
