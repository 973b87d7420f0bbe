"""Threshold calibration on a retrieval dataset: score distributions and trade-off table.

    .venv/bin/python benchmarks/retrieval_calibration.py DATASET_DIR [--plot out.png] [--json]
        [--embedding local:multilingual-e5-small] [--thresholds 0.78,0.80,0.82]
        [--offtopic ../shared/datasets/intent/xsid/valid.jsonl]

Indexes DATASET_DIR/corpus.jsonl into a throwaway site (same pipeline as
`frontdesk eval retrieval`), records every query's best cosine, prints the recommended
threshold (as `frontdesk kb calibrate` would) and abstain precision/recall, false
positive and false negative rates at a range of thresholds. `--offtopic` adds the English
utterances of a JSONL file (`text`, `lang`: xSID's weather, alarms, music…) as
unanswerable, off-topic questions: what a threshold must reject.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from frontdesk.knowledge.calibrate import plot_histogram, recommend_threshold
from frontdesk.knowledge.evaluate import read_corpus, read_queries
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

THRESHOLDS = (0.25, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--plot", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--embedding", default=None, help="model (default: the default model)")
    parser.add_argument("--thresholds", default=None, help="comma-separated thresholds")
    parser.add_argument("--offtopic", type=Path, default=None)
    args = parser.parse_args()
    thresholds = (
        tuple(float(t) for t in args.thresholds.split(",")) if args.thresholds else THRESHOLDS
    )
    offtopic: list[str] = []
    if args.offtopic is not None:
        for line in args.offtopic.read_text(encoding="utf-8").splitlines():
            item = json.loads(line) if line.strip() else {}
            if item.get("lang", "en") == "en" and item.get("text"):
                offtopic.append(str(item["text"]))

    config = KnowledgeConfig(**({"embedding": args.embedding} if args.embedding else {}))
    site = SiteKnowledge("calibration", config)
    with tempfile.TemporaryDirectory(prefix="frontdesk-calibration-") as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'kb.db'}")
        upgrade(engine)
        kb = KnowledgeBase(engine)
        kb.ingest_documents(site, read_corpus(args.dataset / "corpus.jsonl"), progress=False)
        retriever = kb.retriever(site)
        options = SearchOptions(relevance_threshold=None)
        answerable: list[float] = []
        unanswerable: list[float] = []
        for query in read_queries(args.dataset / "queries.jsonl"):
            score = retriever.search(site.site_id, query.query, options).top_score or 0.0
            (answerable if query.answerable else unanswerable).append(score)
        for question in offtopic:
            score = retriever.search(site.site_id, question, options).top_score or 0.0
            unanswerable.append(score)
        engine.dispose()

    calibration = recommend_threshold(answerable, unanswerable)
    print(
        f"{args.dataset.name} ({config.embedding}): {len(answerable)} answerable,"
        f" {len(unanswerable)} unanswerable ({len(offtopic)} off-topic)"
    )
    print("recommended:", calibration.describe())
    rows = []
    print(f"{'threshold':>9} {'abst.prec':>9} {'abst.rec':>9} {'FPR':>6} {'FNR':>6}")
    for threshold in (*thresholds, calibration.threshold):
        missed = sum(s < threshold for s in answerable)
        caught = sum(s < threshold for s in unanswerable)
        abstained = missed + caught
        row = {
            "threshold": threshold,
            "abstain_precision": round(caught / abstained, 4) if abstained else None,
            "abstain_recall": round(caught / len(unanswerable), 4) if unanswerable else None,
            "fpr": round(1 - caught / len(unanswerable), 4) if unanswerable else None,
            "fnr": round(missed / len(answerable), 4),
        }
        rows.append(row)
        print(" ".join(f"{'n/a' if v is None else v:>9}" for v in row.values()))
    if args.plot:
        plot_histogram(calibration, args.plot, title=f"{args.dataset.name}: best cosine per query")
        print("histogram:", args.plot)
    if args.json:
        print(
            json.dumps(
                {"recommended": calibration.threshold, "method": calibration.method, "rows": rows}
            )
        )


if __name__ == "__main__":
    main()
