"""Ways to combine e5 and MiniLM on English sites, on every English set at once.

    PYTHONPATH=src:benchmarks .venv/bin/python benchmarks/english_fusion.py \
        [--nih-pages 300] [--db FILE] [--json]

Each English set of `multilingual_retrieval.py` (xSID en, the demo's English questions,
StackFAQ, COVID-FAQ, NIH with `--nih-pages` others) and each set of
`english_distractors.py` (the three over the union of their pages) is ingested once on an
English site with the second index on (`knowledge.english_embedding`). Every answerable
question is searched in both indexes as the product searches them (hybrid, 30 chunks deep,
no threshold), and the two rankings are combined offline, so all variants are scored on
the same searches (hit@5 / MRR@10 over documents, as `frontdesk eval retrieval` counts):

- `e5`, `minilm`: one index alone;
- `product`: the shipped fusion (`search/fusion.py`): each of e5's chunks scores its
  reciprocal rank plus 0.75 × its document's in MiniLM's ranking (k 30);
- `chunks + mini×0.5`, `chunks + mini×1`: the same at other weights;
- `rrf ties mini`: whole documents fused (reciprocal ranks of each model's document
  ranking, ties to MiniLM; the previous product), `rrf ties e5` the same with e5's
  order breaking ties, `rrf mini×0.5`, `rrf mini×0.75` with MiniLM weighted down;
- `dbsf`: distribution-based score fusion (each model's best cosines per document
  scaled by mean ± 3 standard deviations of its candidates, then summed);
- `min-max`: cosines scaled to 0-1 per model, then summed;
- `mini reranks e5 top 10`: `rrf ties mini` on e5's first ten documents only;
- `e5 + mini dense`: reciprocal rank of e5's hybrid and MiniLM's cosines alone (the
  lexical half counted once instead of twice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from english_distractors import MINILM, sets
from multilingual_retrieval import DATASETS, demo_tasks, folder_task, nih_task, xsid_tasks

E5 = "local:multilingual-e5-small"
K = 30  # the product's reciprocal-rank constant (`SearchOptions.rrf_k`)


@dataclass
class Searched:
    """One question's two rankings: documents best first, with their best cosine."""

    gold: set[str]
    e5: dict[str, float]
    mini: dict[str, float]
    product: list[str]
    e5_chunks: list[str]  # the document of each of e5's chunks, best first


def best_cosines(chunks: Sequence[Any]) -> dict[str, float]:
    """Documents in the order of their best chunk, each with that chunk's score."""
    best: dict[str, float] = {}
    for chunk in chunks:
        best.setdefault(chunk.doc_id, chunk.score)
    return best


def reciprocal(rankings: Sequence[tuple[float, Sequence[str]]], tie: Sequence[str]) -> list[str]:
    scores: dict[str, float] = {}
    for weight, ranking in rankings:
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (K + rank)
    second = {doc_id: rank for rank, doc_id in enumerate(tie)}
    # Stable: documents that still tie keep the first ranking's order.
    return sorted(rankings[0][1], key=lambda d: (-scores[d], second.get(d, len(second))))


def scaled(scores: dict[str, float], low: float, high: float) -> dict[str, float]:
    span = (high - low) or 1.0
    return {doc_id: (value - low) / span for doc_id, value in scores.items()}


def dbsf(s: Searched) -> list[str]:
    def three_sigma(scores: dict[str, float]) -> dict[str, float]:
        values = list(scores.values())
        mean, spread = statistics.fmean(values), statistics.pstdev(values) or 1e-6
        return scaled(scores, mean - 3 * spread, mean + 3 * spread)

    e5, mini = three_sigma(s.e5), three_sigma(s.mini) if s.mini else {}
    floor = min(mini.values(), default=0.0)
    return sorted(s.e5, key=lambda d: -(e5[d] + mini.get(d, floor)))


def min_max(s: Searched) -> list[str]:
    e5 = scaled(s.e5, min(s.e5.values()), max(s.e5.values()))
    mini = scaled(s.mini, min(s.mini.values()), max(s.mini.values())) if s.mini else {}
    return sorted(s.e5, key=lambda d: -(e5[d] + mini.get(d, 0.0)))


def top_ten(s: Searched) -> list[str]:
    e5 = list(s.e5)
    return reciprocal([(1.0, e5[:10]), (1.0, list(s.mini))], list(s.mini)) + e5[10:]


def by_chunk(s: Searched, weight: float) -> list[str]:
    """The product's fusion (`fused_scores`) at another weight: e5's chunks by their
    reciprocal rank plus `weight` × their document's in MiniLM's ranking."""
    from frontdesk.knowledge.search.fusion import fused_scores

    fused = fused_scores(s.e5_chunks, list(s.mini), k=K, weight=weight)
    order = sorted(range(len(s.e5_chunks)), key=lambda i: -fused[i])
    return list(dict.fromkeys(s.e5_chunks[i] for i in order))


VARIANTS: dict[str, Callable[[Searched], list[str]]] = {
    "e5": lambda s: list(s.e5),
    "minilm": lambda s: list(s.mini),
    "product": lambda s: s.product,
    "rrf ties mini": lambda s: reciprocal([(1.0, list(s.e5)), (1.0, list(s.mini))], list(s.mini)),
    "rrf ties e5": lambda s: reciprocal([(1.0, list(s.e5)), (1.0, list(s.mini))], list(s.e5)),
    "rrf mini×0.5": lambda s: reciprocal([(1.0, list(s.e5)), (0.5, list(s.mini))], list(s.mini)),
    "rrf mini×0.75": lambda s: reciprocal([(1.0, list(s.e5)), (0.75, list(s.mini))], list(s.mini)),
    "chunks + mini×0.5": lambda s: by_chunk(s, 0.5),
    "chunks + mini×1": lambda s: by_chunk(s, 1.0),
    "dbsf": dbsf,
    "min-max": min_max,
    "mini reranks e5 top 10": top_ten,
    "e5 + mini dense": lambda s: reciprocal(
        [(1.0, list(s.e5)), (1.0, sorted(s.mini, key=lambda d: -s.mini[d]))],
        sorted(s.mini, key=lambda d: -s.mini[d]),
    ),
}


def scores(
    searched: Sequence[Searched], order: Callable[[Searched], list[str]]
) -> dict[str, float]:
    hits = reciprocal_ranks = 0.0
    for s in searched:
        ranking = order(s)
        hits += any(d in s.gold for d in ranking[:5])
        first = next((i for i, d in enumerate(ranking[:10]) if d in s.gold), None)
        reciprocal_ranks += 0.0 if first is None else 1.0 / (first + 1)
    return {"hit@5": hits / len(searched), "mrr": reciprocal_ranks / len(searched)}


def english_sets(nih_pages: int) -> list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    found = [(name, docs, qs) for name, docs, qs, _ in xsid_tasks(300, ["en"])]
    found += [(name, docs, qs) for name, docs, qs, _ in demo_tasks() if name == "demo/en"]
    for name, folder in (("stackfaq", "stackfaq"), ("covid_faq", "covid_faq")):
        found += [
            (n, d, q)
            for n, d, q, _ in folder_task(name, DATASETS / "retrieval" / folder, "en", 2000)
        ]
    found += [(name, docs, qs) for name, docs, qs, _ in nih_task(nih_pages)]
    distractors = sets(100)
    union = [page for _, pages, _ in distractors for page in pages]
    found += [(f"{name} among 410", union, qs) for name, _, qs in distractors]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nih-pages", type=int, default=300)
    parser.add_argument("--db", type=Path, default=None, help="SQLite file (reruns reuse vectors)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from frontdesk.knowledge.companion import companion_key
    from frontdesk.knowledge.evaluate import read_corpus, read_queries
    from frontdesk.knowledge.search.fusion import document_order, reordered
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.knowledge import KnowledgeConfig
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    folder = Path(tempfile.mkdtemp(prefix="frontdesk-en-fusion-"))
    engine = make_engine(f"sqlite:///{args.db or folder / 'bench.db'}")
    upgrade(engine)
    kb = KnowledgeBase(engine)
    run = uuid.uuid4().hex[:8]
    sites: dict[int, SiteKnowledge] = {}
    results: dict[str, dict[str, dict[str, float]]] = {}
    for number, (name, pages, questions) in enumerate(english_sets(args.nih_pages)):
        corpus, asked = folder / f"{number}.corpus.jsonl", folder / f"{number}.queries.jsonl"
        corpus.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages))
        asked.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
        site = sites.get(id(pages))
        if site is None:  # the distractor sets share one site
            config = KnowledgeConfig(
                embedding=E5, relevance_threshold=0.0, english_embedding=MINILM
            )
            site = SiteKnowledge(f"fusion-{run}-{number}", config, language="en")
            kb.ingest_documents(site, read_corpus(corpus), progress=False)
            sites[id(pages)] = site
        alone = replace(site, config=site.config.model_copy(update={"english_embedding": None}))
        deep = replace(alone.search_options(K), relevance_threshold=None, proactive_threshold=None)
        second = kb.companions.knowledge(site, MINILM)
        second_deep = replace(
            second.search_options(K), relevance_threshold=None, proactive_threshold=None
        )
        searched = []
        for item in read_queries(asked):
            if not item.answerable:
                continue
            e5 = kb.retriever(alone).search(alone.site_id, item.query, deep)
            mini = kb.retriever(second).search(
                companion_key(site.site_id, MINILM), item.query, second_deep
            )
            product = reordered(
                e5, document_order(mini.chunks), k=K, top_k=K, proactive_threshold=None
            )
            searched.append(
                Searched(
                    set(item.gold_doc_ids),
                    best_cosines(e5.chunks),
                    best_cosines(mini.chunks),
                    document_order(product.chunks),
                    [chunk.doc_id for chunk in e5.chunks],
                )
            )
        results[f"{name} ({len(searched)})"] = {
            variant: scores(searched, order) for variant, order in VARIANTS.items()
        }
        print(f"searched {name}: {len(searched)} questions", file=sys.stderr)
    if args.json:
        print(json.dumps(results))
        return
    print(f"{'set':28} {'variant':24} {'hit@5':>6} {'MRR@10':>7}")
    for name, by_variant in results.items():
        for variant, figures in by_variant.items():
            print(f"{name:28} {variant:24} {figures['hit@5']:6.3f} {figures['mrr']:7.3f}")


if __name__ == "__main__":
    main()
