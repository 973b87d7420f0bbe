"""The bar a team answer's own questions must reach to be given word for word, measured.

    PYTHONPATH=src .venv/bin/python benchmarks/team_answer_bar.py [--model SPEC]

StackFAQ (`../shared/datasets/retrieval/stackfaq`): 125 FAQ questions (the titles) and
1,249 crowd-written paraphrases of them. Every pair is read by the embedding model as two
questions (its query side, as `grade_docs` reads a visitor's question and the team's). A
paraphrase pair is a question and its own FAQ's title; a non-paraphrase pair is a question
and the *nearest other* FAQ title — the hardest non-paraphrase there is on that site. The
bar shipped in `routes.TEAM_QUESTION_BARS` is the 90th percentile of the non-paraphrases:
one in ten of the hardest non-paraphrases passes it. Prints the percentiles and, for a few
bars, the share of paraphrases and of non-paraphrases at or above them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from frontdesk.knowledge.embedding.embedders import make_embedder

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "retrieval" / "stackfaq"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:multilingual-e5-small")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if not (args.data / "queries.jsonl").is_file():
        print(f"StackFAQ not found in {args.data}", file=sys.stderr)
        return 2
    corpus = [json.loads(line) for line in (args.data / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (args.data / "queries.jsonl").open(encoding="utf-8")]
    embedder = make_embedder(args.model)
    ids = [doc["doc_id"] for doc in corpus]
    titles = np.vstack([embedder.embed_query(doc["title"]) for doc in corpus])
    asked = np.vstack([embedder.embed_query(query["query"]) for query in queries])
    scores = asked @ titles.T
    positive, negative = [], []
    for row, query in zip(scores, queries, strict=True):
        gold = [ids.index(doc) for doc in query["gold_doc_ids"]]
        others = np.ones(len(ids), dtype=bool)
        others[gold] = False
        positive.append(float(row[gold].max()))
        negative.append(float(row[others].max()))
    pos, neg = np.array(positive), np.array(negative)
    print(f"{args.model}: {len(pos)} questions, {len(ids)} FAQ titles")
    for pct in (50, 90, 95, 99):
        print(f"  nearest other title, {pct}th percentile: {np.percentile(neg, pct):.3f}")
    for bar in (0.90, 0.91, 0.92, 0.93):
        print(
            f"  bar {bar:.2f}: paraphrases {np.mean(pos >= bar):.3f}, "
            f"non-paraphrases {np.mean(neg >= bar):.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
