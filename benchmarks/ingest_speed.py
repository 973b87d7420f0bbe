"""Ingest throughput (chunks/s) and its ratio to the raw encode speed of the same model.

    .venv/bin/python benchmarks/ingest_speed.py [--corpus corpus.jsonl] [--docs 200] [--json]

The corpus is ../shared/datasets/retrieval/stackfaq/corpus.jsonl when present (or
--corpus), else synthetic FAQ-like text. In the same run, with the model warm:
1. raw: `SentenceTransformer.encode` of exactly the texts ingestion embeds, same batch size;
2. ingest: chunk + embed + write SQLite/FTS5 into a fresh database (empty vector cache);
3. re-ingest: the same documents again (all unchanged: skipped).
ratio = ingest chunks/s ÷ raw chunks/s (1.0 means ingestion adds no overhead to encoding).
The site is English, so its ingest writes the second index too (MiniLM,
knowledge/companion.py; `second_index` in the output); `--no-second-index` turns it off.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from frontdesk.knowledge.companion import companion_model
from frontdesk.knowledge.evaluate import read_corpus
from frontdesk.knowledge.ingest.chunker import chunk_document
from frontdesk.knowledge.ingest.ingestor import EMBED_BATCH, effective_options
from frontdesk.knowledge.models import Document
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

DEFAULT_CORPUS = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "datasets"
    / "retrieval"
    / "stackfaq"
    / "corpus.jsonl"
)


def synthetic(count: int) -> list[Document]:
    rng = random.Random(3)
    topics = ["billing", "refunds", "passwords", "integrations", "exports", "security", "sso"]
    docs = []
    for n in range(count):
        topic = rng.choice(topics)
        body = " ".join(
            f"To manage {topic} open the {topic} page and follow step {i} carefully."
            for i in range(rng.randint(5, 60))
        )
        docs.append(
            Document(
                f"doc-{n}.md", f"How do I manage {topic}? ({n})", body, "markdown", f"bench:{n}"
            )
        )
    return docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--docs", type=int, default=200, help="Documents to use at most.")
    parser.add_argument("--json", action="store_true", help="End with one JSON line.")
    parser.add_argument("--no-second-index", action="store_true")
    args = parser.parse_args()

    corpus = args.corpus or (DEFAULT_CORPUS if DEFAULT_CORPUS.is_file() else None)
    documents = read_corpus(corpus)[: args.docs] if corpus else synthetic(args.docs)
    config = KnowledgeConfig(relevance_threshold=0.0)
    if args.no_second_index:
        config = config.model_copy(update={"english_embedding": None})
    site = SiteKnowledge("bench-ingest", config)

    with tempfile.TemporaryDirectory(prefix="frontdesk-bench-") as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'bench.db'}")
        upgrade(engine)
        kb = KnowledgeBase(engine)
        embedder = kb.embedder(site)
        options = effective_options(site.ingest_options(progress=False), embedder)
        texts = [
            chunk.indexed_text
            for document in documents
            for chunk in chunk_document(
                document, chunk_size=options.chunk_size, chunk_overlap=options.chunk_overlap
            )
        ]
        embedder.embed_documents(texts[:EMBED_BATCH])  # warm up the model

        started = time.perf_counter()
        for start in range(0, len(texts), EMBED_BATCH):
            embedder.embed_documents(texts[start : start + EMBED_BATCH])
        raw_s = time.perf_counter() - started

        started = time.perf_counter()
        report = kb.ingest_documents(site, documents, progress=False)
        ingest_s = time.perf_counter() - started

        started = time.perf_counter()
        again = kb.ingest_documents(site, documents, progress=False)
        reingest_s = time.perf_counter() - started
        engine.dispose()

    raw_rate = len(texts) / raw_s
    ingest_rate = report.chunks_total / ingest_s
    result = {
        "corpus": str(corpus) if corpus else "synthetic",
        "documents": len(documents),
        "chunks": report.chunks_total,
        "model": embedder.name,
        "second_index": companion_model(site) or "none",
        "raw_encode_chunks_per_s": round(raw_rate, 1),
        "ingest_chunks_per_s": round(ingest_rate, 1),
        "ratio_to_raw_encode": round(ingest_rate / raw_rate, 3),
        "reingest_unchanged_s": round(reingest_s, 3),
        "reingest_skipped": len(again.skipped),
    }
    for key, value in result.items():
        print(f"{key:>24}: {value}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
