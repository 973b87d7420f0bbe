"""Local-engine turn latency and throughput on one process, with a 10,000-chunk knowledge base.

    .venv/bin/python benchmarks/turn_latency.py [--chunks 10000] [--turns 300] [--concurrency 8]

The demo site's real knowledge base is ingested (real MiniLM embeddings), then padded with
synthetic chunks (random unit vectors, Zipf vocabulary) up to --chunks, so retrieval runs
over a 10k-chunk index. Every turn goes through `ChatService.stream_turn`: abuse gate,
the whole graph, checkpoint and the app-store write. Reported:

- wall: the whole turn as the API sees it;
- non-retrieval: wall minus the time the answer path waited for retrieval: for the
  background task (query embedding + hybrid search, started at START) and, when nothing
  relevant came back, for the retry's second search (its query expansion still counts);
- turns/s: `--turns` turns over `--concurrency` concurrent sessions in one process;
- CPU per turn in that phase: the whole process, and the event loop's thread alone (the
  rest is threads: search, store write, checkpoint I/O);
- the share of that phase's searches answered from the result cache. The ten questions
  repeat, so most are; `--search-cache 0` measures every turn with a full search.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
from rich.console import Console

from frontdesk.conversation.payload import CompleteEvent, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.demo_setup import ingest_sources
from frontdesk.knowledge.index.sqlite import SqliteKnowledgeIndex
from frontdesk.knowledge.models import Chunk, Document
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.text.lexical import lexical_text

QUESTIONS = [
    "Do you support SAML single sign-on?",
    "What is your uptime SLA?",
    "What does error TF-2003 mean?",
    "Which regions can my data be stored in?",
    "How do I cancel my subscription?",
    "Какой SLA по времени ответа поддержки?",
    "Hello!",
    "What's the weather in Paris?",
    "I'd like to book a demo",
    "Does Tessellate integrate with Snowflake?",
]


# Trace entries that time retrieval itself (`retrieval_awaiter`: the wait for the background
# search; `retry_search`: the retry's second search, recorded by `retry_retrieval`).
RETRIEVAL_WAITS = frozenset({"retrieval_awaiter", "retry_search"})


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def pad_index(runtime_engine: object, site_id: str, target: int, model: str, seed: int = 7) -> int:
    index = SqliteKnowledgeIndex(runtime_engine)  # type: ignore[arg-type]
    have = index.chunk_count(site_id)
    rng = np.random.default_rng(seed)
    words = [f"w{n}" for n in range(5000)]
    weights = 1.0 / np.arange(1, len(words) + 1)
    weights /= weights.sum()
    added, doc_number = 0, 0
    while have + added < target:
        doc_id = f"filler-{doc_number:05d}.md"
        document = Document(doc_id, f"Filler {doc_number}", "", "markdown", f"bench:{doc_id}")
        count = min(10, target - have - added)
        chunks = [
            Chunk(
                f"filler-{doc_number:05d}-{i:02d}",
                doc_id,
                i,
                " ".join(rng.choice(words, size=80, p=weights)) + ".",
                (document.title,),
                document.title,
                "",
                document.source,
            )
            for i in range(count)
        ]
        vectors = rng.standard_normal((count, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        lexical = [lexical_text(c.indexed_text) for c in chunks]
        index.replace_document(site_id, document, "bench", chunks, vectors, lexical, model)
        added += count
        doc_number += 1
    return index.chunk_count(site_id)


async def run(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    sites = folder / "sites"
    sites.mkdir()
    text = (DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8")
    (sites / "demo.yaml").write_text(text.replace("[../kb]", f"[{DEMO_DIR / 'kb'}]"))
    settings = Settings(
        data_dir=folder / "data", sites_dir=sites, search_cache_size=args.search_cache
    )
    runtime = build_runtime(settings)
    ingest_sources(runtime, Console(stderr=True, quiet=True))
    service = ChatService(runtime)
    retriever = service.knowledge.retriever(runtime.site("demo").config)
    model = retriever.embedder.name
    total_chunks = pad_index(runtime.engine, "demo", args.chunks, model)
    await service.warm_up()
    site = runtime.site("demo")

    async def one_turn(session: str, question: str) -> tuple[float, float]:
        started = time.perf_counter()
        async for event in service.stream_turn(site, session, question, VisitorContext()):
            if isinstance(event, CompleteEvent):
                pass
        wall = (time.perf_counter() - started) * 1000
        return wall, 0.0

    # Latency: sequential turns, each in its own session, timings from the trace.
    walls: list[float] = []
    non_retrieval: list[float] = []
    from sqlalchemy import select

    from frontdesk.store.models import Trace

    for n in range(args.turns):
        wall, _ = await one_turn(f"lat-{n}", QUESTIONS[n % len(QUESTIONS)])
        with runtime.sessions() as db:
            trace = db.scalars(select(Trace).order_by(Trace.id.desc())).first()
        waited = sum(
            n["ms"] for n in (trace.nodes if trace else []) if n["node"] in RETRIEVAL_WAITS
        )
        walls.append(wall)
        non_retrieval.append(wall - waited)

    # Throughput: concurrent sessions, several turns each.
    sessions = [str(uuid.uuid4()) for _ in range(args.concurrency)]
    per_session = max(1, args.turns // args.concurrency)

    async def conversation(session: str, offset: int) -> None:
        for k in range(per_session):
            await one_turn(session, QUESTIONS[(offset + k) % len(QUESTIONS)])

    cache = retriever.results
    hits_before, misses_before = cache.hits, cache.misses
    started = time.perf_counter()
    cpu_started, loop_cpu_started = time.process_time(), time.thread_time()
    await asyncio.gather(*(conversation(s, i) for i, s in enumerate(sessions)))
    elapsed = time.perf_counter() - started
    hits, misses = cache.hits - hits_before, cache.misses - misses_before
    cpu, loop_cpu = time.process_time() - cpu_started, time.thread_time() - loop_cpu_started
    throughput_turns = per_session * args.concurrency
    await service.close()
    runtime.close()
    return {
        "chunks": total_chunks,
        "turns": args.turns,
        "wall_p50_ms": round(pct(walls, 50), 2),
        "wall_p95_ms": round(pct(walls, 95), 2),
        "non_retrieval_p50_ms": round(pct(non_retrieval, 50), 2),
        "non_retrieval_p95_ms": round(pct(non_retrieval, 95), 2),
        "mean_ms": round(statistics.fmean(walls), 2),
        "turns_per_s": round(throughput_turns / elapsed, 1),
        "cpu_ms_per_turn": round(cpu * 1000 / throughput_turns, 2),
        "loop_cpu_ms_per_turn": round(loop_cpu * 1000 / throughput_turns, 2),
        "concurrency": args.concurrency,
        "search_cache_hit_rate": round(hits / (hits + misses), 3) if hits + misses else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--search-cache",
        type=int,
        default=Settings.model_fields["search_cache_size"].default,
        help="results of repeated searches kept (0: search every time)",
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-turns-"))
    try:
        result = asyncio.run(run(args, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
