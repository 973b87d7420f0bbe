"""English questions among many English pages: the default model, MiniLM, and both.

    PYTHONPATH=src:benchmarks .venv/bin/python benchmarks/english_distractors.py \
        [--nih-pages 100] [--db FILE] [--json]

One English site holds the union of the English sets in ../shared/datasets: StackFAQ's
125 FAQs, COVID-FAQ's 129 and the NIH pages that answer its questions plus `--nih-pages`
others (drawn as `multilingual_retrieval.py --tasks nih` draws them). Every set's answerable
questions are searched over all of it, without a threshold, and counted as `frontdesk
eval retrieval` counts them (hit@5, MRR@10 over documents in the order of their best
chunk; latency per question, query embedding included, each variant with cold caches), for:

- `e5`: the default model alone (the site's second index turned off);
- `minilm`: all-MiniLM-L6-v2 alone (onnxruntime);
- `e5+minilm`: an English site with the second index on (`english_embedding`): e5's
  search reordered by the documents' fused rank with MiniLM's (`knowledge/companion.py`).

Same ingest for all three (each model's index in its own chunks).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

from multilingual_retrieval import DATASETS, _jsonl, nih_task

E5 = "local:multilingual-e5-small"
MINILM = "local:all-MiniLM-L6-v2"


def sets(nih_pages: int) -> list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """(name, pages, answerable questions) per set; doc ids prefixed with the set's name."""
    found = []
    for name, folder in (
        ("stackfaq", DATASETS / "retrieval" / "stackfaq"),
        ("covid", DATASETS / "retrieval" / "covid_faq"),
    ):
        if not (folder / "corpus.jsonl").is_file():
            sys.exit(f"skipped: {folder} not found (the shared datasets live beside the repo)")
        found.append((name, _jsonl(folder / "corpus.jsonl"), _jsonl(folder / "queries.jsonl")))
    nih = list(nih_task(nih_pages))
    if not nih:
        sys.exit("skipped: the NIH set was not found")
    _, pages, questions, _ = nih[0]
    found.append(("nih", pages, questions))
    prefixed = []
    for name, pages, questions in found:
        pages = [{**page, "doc_id": f"{name}/{page['doc_id']}"} for page in pages]
        questions = [
            {**q, "gold_doc_ids": [f"{name}/{d}" for d in q.get("gold_doc_ids") or []]}
            for q in questions
        ]
        prefixed.append((name, pages, questions))
    return prefixed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nih-pages", type=int, default=100)
    parser.add_argument("--db", type=Path, default=None, help="SQLite file (reruns reuse vectors)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from frontdesk.knowledge.evaluate import (
        QueryOutcome,
        RetrievalReport,
        document_ranking,
        read_corpus,
        read_queries,
    )
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.knowledge import KnowledgeConfig
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    data = sets(args.nih_pages)
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-en-distractors-"))
    corpus = folder / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(page, ensure_ascii=False) + "\n" for _, pages, _ in data for page in pages
        )
    )
    database = args.db or folder / "bench.db"
    engine = make_engine(f"sqlite:///{database}")
    upgrade(engine)
    kb = KnowledgeBase(engine)
    run = uuid.uuid4().hex[:8]
    documents = read_corpus(corpus)
    fused = SiteKnowledge(
        f"en-{run}-fused",
        KnowledgeConfig(embedding=E5, relevance_threshold=0.0, english_embedding=MINILM),
        language="en",
    )
    minilm = SiteKnowledge(
        f"en-{run}-minilm",
        KnowledgeConfig(embedding=MINILM),
        language="en",
    )
    ingest: dict[str, float] = {}
    for name, site in (("e5+minilm", fused), ("minilm", minilm)):
        started = time.perf_counter()
        kb.ingest_documents(site, documents, progress=False)
        ingest[name] = time.perf_counter() - started
    # e5 alone searches the fused site's default index, without the second one.
    alone = replace(fused, config=fused.config.model_copy(update={"english_embedding": None}))

    def unbounded(site: SiteKnowledge) -> Any:
        return replace(site.search_options(30), relevance_threshold=None, proactive_threshold=None)

    # Each variant on a fresh KnowledgeBase: no question vector or result cached by another.
    fresh = {name: KnowledgeBase(engine) for name in ("e5", "minilm", "e5+minilm")}
    searches = {
        "e5": lambda q: fresh["e5"].retriever(alone).search(alone.site_id, q, unbounded(alone)),
        "minilm": lambda q: (
            fresh["minilm"].retriever(minilm).search(minilm.site_id, q, unbounded(minilm))
        ),
        "e5+minilm": lambda q: fresh["e5+minilm"].search(fused, q, top_k=30),
    }
    rows = []
    for name, _, questions in data:
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
        items = [item for item in read_queries(path) if item.answerable]
        for variant, search in searches.items():
            report = RetrievalReport(k=10)
            for item in items:
                started = time.perf_counter()
                result = search(item.query)
                elapsed = (time.perf_counter() - started) * 1000.0
                report.outcomes.append(
                    QueryOutcome(
                        item, document_ranking(result), result.status, result.top_score, elapsed
                    )
                )
            metrics = report.metrics()
            rows.append({"set": name, "variant": variant, **metrics})
    if args.json:
        print(json.dumps({"rows": rows, "ingest_s": ingest, "pages": len(documents)}))
        return
    print(
        f"{len(documents)} pages; ingest s: " + ", ".join(f"{k} {v:.0f}" for k, v in ingest.items())
    )
    print(f"{'set':10} {'variant':10} {'hit@5':>6} {'mrr':>6} {'n':>5} {'p50 ms':>7} {'p95 ms':>7}")
    for row in rows:
        print(
            f"{row['set']:10} {row['variant']:10} {row['hit@5']:6.3f} {row['mrr']:6.3f}"
            f" {row['answerable']:5d} {row['p50_ms']:7.1f} {row['p95_ms']:7.1f}"
        )


if __name__ == "__main__":
    main()
