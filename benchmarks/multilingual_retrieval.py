"""Retrieval per language and across languages, for one or more embedding models.

    .venv/bin/python benchmarks/multilingual_retrieval.py \
        [--models local:multilingual-e5-small,local:all-MiniLM-L6-v2]
        [--threshold none|default|site|NUMBER]
        [--tasks xsid,demo,crosslingual,rutube,stackfaq,covid] [--limit 300] [--json]
        [--heading-weights 0,0.1]

Development sets are assembled at run time from ../shared/datasets (never copied):
- xsid-intent/L: xSID holds the same 300 utterances in many languages. Odd-numbered
  utterances are the pages, even-numbered ones the questions; a page answers a question of
  the same intent. `L→L` is monolingual, `L→en` asks in L over English pages (the pages
  are the same utterances in English, so every language is scored on the same items);
  `en→L` asks the English utterances over L's pages, on a site in L.
- xsid-translation/L→en: each question's page is its own English original among all 300.
- demo/L: the demo site's questions in language L over its pages (English and Russian);
  demo/L→en drops the Russian pages and expects the English page on the same topic.
- crosslingual/L→en: our own visitor questions in Russian, Spanish, French and Portuguese
  about the demo's English pages (benchmarks/data/crosslingual_demo.jsonl; written for
  this benchmark, each with the English pages that answer it), searched over the English
  pages only, on a site whose language is English.
- rutube: real Russian questions over a Russian help centre (first `--limit` questions).
- stackfaq, covid: the English regression sets of `frontdesk eval retrieval`.
- nih: real consumer health questions over NIH pages (the gold pages and `--nih-pages`
  others; opt-in, not in the default tasks).
hit@5 and MRR@10 are over answerable questions; a search below the relevance threshold
is a miss. `--threshold none` ranks without one, `default` applies the model's default,
`site` what the product does on a site with no configured threshold (the threshold its
own content calibrates, `topic.calibrated_threshold`), a number that number.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
DEMO = REPO / "src" / "frontdesk" / "demo"
XSID_LANGUAGES = ("en", "de", "it", "nl")
DEMO_LANGUAGES = ("en", "ru", "de", "es", "fr", "it", "pt", "nl")
CROSSLINGUAL = Path(__file__).resolve().parent / "data" / "crosslingual_demo.jsonl"

Task = tuple[str, list[dict[str, Any]], list[dict[str, Any]], str]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def xsid_tasks(limit: int, languages: Iterable[str] = XSID_LANGUAGES) -> Iterable[Task]:
    rows = _jsonl(DATASETS / "intent" / "xsid" / "valid.jsonl")
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_lang[row["lang"]].append(row)
    english = by_lang["en"]

    def pages(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {"doc_id": f"u{i}", "title": "", "text": row["text"]}
            for i, row in enumerate(items)
            if i % 2 == 1
        ]

    def questions(items: list[dict[str, Any]], gold: Callable[[int], list[str]]) -> list[Any]:
        return [
            {"query_id": f"q{i}", "query": row["text"], "gold_doc_ids": gold(i)}
            for i, row in enumerate(items)
            if i % 2 == 0
        ]

    intents = [row["intent"] for row in english]
    same_intent: dict[str, list[str]] = defaultdict(list)
    for i, intent in enumerate(intents):
        if i % 2 == 1:
            same_intent[intent].append(f"u{i}")
    for lang in languages:
        items = by_lang.get(lang, [])[:limit]
        if len(items) < 20 or [r["intent"] for r in items] != intents[: len(items)]:
            continue  # not aligned with the English utterances
        gold = lambda i: same_intent[intents[i]]  # noqa: E731
        yield f"xsid-intent/{lang}", pages(items), questions(items, gold), lang
        if lang != "en":
            en_pages = pages(english[: len(items)])
            yield f"xsid-intent/{lang}→en", en_pages, questions(items, gold), lang
            # English questions over this language's pages, on a site in this language.
            yield (
                f"xsid-intent/en→{lang}",
                pages(items),
                questions(english[: len(items)], gold),
                lang,
            )
            every = [
                {"doc_id": f"e{i}", "title": "", "text": row["text"]}
                for i, row in enumerate(english[: len(items)])
            ]
            translation = [
                {"query_id": f"q{i}", "query": row["text"], "gold_doc_ids": [f"e{i}"]}
                for i, row in enumerate(items)
            ]
            yield f"xsid-translation/{lang}→en", every, translation, lang


def demo_tasks() -> Iterable[Task]:
    pages = []
    for path in sorted((DEMO / "kb").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        pages.append({"doc_id": path.name, "title": "", "text": text})
    english_only = [page for page in pages if not page["doc_id"].startswith("ru-")]
    names = {page["doc_id"] for page in pages}
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in _jsonl(DEMO / "evals" / "single_turn.jsonl"):
        expected = item.get("expected_output", {})
        gold = [g for g in expected.get("gold_doc_ids") or [] if g in names]
        if gold:
            by_lang[expected.get("language", "en")].append(
                {"query_id": item["id"], "query": item["input"]["query"], "gold_doc_ids": gold}
            )
    for lang in DEMO_LANGUAGES:
        questions = by_lang.get(lang, [])
        if not questions:
            continue
        yield f"demo/{lang}", pages, questions, lang
        if lang != "en":
            # The English page on the same topic: ru-faq.md → faq.md (when it exists).
            english = [
                {**q, "gold_doc_ids": sorted({g.removeprefix("ru-") for g in q["gold_doc_ids"]})}
                for q in questions
            ]
            english = [q for q in english if set(q["gold_doc_ids"]) & names]
            yield f"demo/{lang}→en", english_only, english, lang


def demo_english_pages() -> list[dict[str, Any]]:
    return [
        {"doc_id": path.name, "title": "", "text": path.read_text(encoding="utf-8")}
        for path in sorted((DEMO / "kb").glob("*.md"))
        if not path.name.startswith("ru-")
    ]


def crosslingual_tasks() -> Iterable[Task]:
    """Visitors' questions in other languages over the demo's English pages only."""
    pages = demo_english_pages()
    names = {page["doc_id"] for page in pages}
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in _jsonl(CROSSLINGUAL):
        if not set(item["gold_doc_ids"]) <= names:
            raise ValueError(f"{item['query_id']}: gold page not among the English pages")
        by_lang[item["lang"]].append(item)
    for lang, questions in by_lang.items():
        yield f"crosslingual/{lang}→en", pages, questions, "en"


def nih_task(pages: int) -> Iterable[Task]:
    """NIH health pages (MedQuAD) with real consumer questions: the pages that answer
    them plus `pages` others drawn at random (seed 7) from the 3,080, so a run takes
    minutes rather than the whole corpus's half hour."""
    folder = DATASETS / "sites" / "nih_health_en"
    if not (folder / "corpus.jsonl").is_file():
        print(f"skipped nih: {folder} not found", file=sys.stderr)
        return
    questions = [q for q in _jsonl(folder / "queries.jsonl") if q.get("gold_doc_ids")]
    gold = {doc_id for q in questions for doc_id in q["gold_doc_ids"]}
    corpus = _jsonl(folder / "corpus.jsonl")
    others = [doc for doc in corpus if doc["doc_id"] not in gold]
    random.Random(7).shuffle(others)
    kept = [doc for doc in corpus if doc["doc_id"] in gold] + others[:pages]
    yield f"nih/en (+{pages} pages)", kept, questions, "en"


def folder_task(name: str, folder: Path, lang: str, limit: int) -> Iterable[Task]:
    if not (folder / "corpus.jsonl").is_file():
        print(f"skipped {name}: {folder} not found", file=sys.stderr)
        return
    queries = _jsonl(folder / "queries.jsonl")[:limit]
    yield name, _jsonl(folder / "corpus.jsonl"), queries, lang


class Bench:
    """One SQLite store for the whole run: every task is its own site, and the embedding
    cache (keyed by model and text) embeds each page once per model across tasks."""

    def __init__(self, database: Path) -> None:
        from frontdesk.knowledge.service import KnowledgeBase
        from frontdesk.store.db import make_engine
        from frontdesk.store.migrate import upgrade

        self.engine = make_engine(f"sqlite:///{database}")
        upgrade(self.engine)
        self.kb = KnowledgeBase(self.engine)
        self.sites = 0
        self.run_id = uuid.uuid4().hex[:8]

    def run(
        self, task: Task, model: str, threshold: str, heading_weights: list[float | None]
    ) -> list[dict[str, Any]]:
        """The task's rows, one per heading weight (None: the product's default), on one
        ingest of its pages."""
        from frontdesk.knowledge.evaluate import (
            QueryOutcome,
            RetrievalReport,
            document_ranking,
            read_corpus,
            read_queries,
        )
        from frontdesk.knowledge.site import DEFAULT_RELEVANCE_THRESHOLDS, SiteKnowledge
        from frontdesk.sites.knowledge import KnowledgeConfig
        from frontdesk.sites.schema import SUPPORTED_LANGUAGES

        name, docs, queries, lang = task
        if threshold == "default":
            cut = DEFAULT_RELEVANCE_THRESHOLDS.get(model)
        else:
            cut = None if threshold in ("none", "site") else float(threshold)
        folder = Path(tempfile.mkdtemp(prefix="frontdesk-ml-"))
        corpus, questions = folder / "corpus.jsonl", folder / "queries.jsonl"
        corpus.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n")
        questions.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in queries) + "\n")
        self.sites += 1
        config = KnowledgeConfig(embedding=model, relevance_threshold=cut)
        language = lang if lang in SUPPORTED_LANGUAGES else "en"
        # Unique per run: a kept database (--db) already holds earlier runs' sites.
        site = SiteKnowledge(f"bench-{self.run_id}-{self.sites}", config, language=language)
        started = time.perf_counter()
        self.kb.ingest_documents(site, read_corpus(corpus), progress=False)
        ingest_s = time.perf_counter() - started
        rows = []
        for weight in heading_weights:
            weighted = replace(
                site, config=site.config.model_copy(update={"heading_weight": weight})
            )
            report = RetrievalReport(k=10)
            # A site without a threshold gets the one its content calibrates: `none`
            # searches with no threshold at all (the ranking alone).
            unbounded = replace(
                weighted.search_options(30), relevance_threshold=None, proactive_threshold=None
            )
            retriever, key = self.kb.retriever(weighted), self.kb.index_key(weighted)
            for item in read_queries(questions):
                started = time.perf_counter()
                if threshold == "none":
                    # The product's path without a threshold: an English site's second
                    # index reorders English questions' results (knowledge/companion.py).
                    deep = self.kb.companions.depth(weighted, item.query, unbounded)
                    result = self.kb.companions.refine(
                        weighted,
                        key,
                        item.query,
                        unbounded,
                        retriever.search(key, item.query, deep),
                    )
                else:
                    result = self.kb.search(weighted, item.query, top_k=30)
                elapsed = (time.perf_counter() - started) * 1000.0
                report.outcomes.append(
                    QueryOutcome(
                        item, document_ranking(result), result.status, result.top_score, elapsed
                    )
                )
            rows.append(
                {
                    "task": name,
                    "model": model,
                    "threshold": cut,
                    "heading_weight": unbounded.heading_weight,
                    "ingest_s": ingest_s,
                    # Answerable questions the search returned nothing for.
                    "empty": sum(o.query.answerable and o.status != "ok" for o in report.outcomes),
                    **report.metrics(),
                }
            )
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="local:multilingual-e5-small,local:all-MiniLM-L6-v2")
    parser.add_argument("--tasks", default="xsid,demo,crosslingual,rutube,stackfaq,covid")
    parser.add_argument(
        "--threshold",
        default="default",
        help="default (the model's), none, site (calibrated on the site's content) or a number",
    )
    parser.add_argument("--limit", type=int, default=300, help="questions per set (max)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--heading-weights",
        default="",
        help="Comma-separated fusion weights of the heading list to compare on one ingest"
        " (0: off); default: the product's.",
    )
    parser.add_argument("--nih-pages", type=int, default=300, help="nih: pages besides the gold")
    parser.add_argument("--xsid-languages", default=",".join(XSID_LANGUAGES))
    parser.add_argument(
        "--db", type=Path, default=None, help="SQLite file to keep (reruns reuse its vectors)"
    )
    args = parser.parse_args()
    if not DATASETS.is_dir():
        sys.exit(f"skipped: {DATASETS} not found (the shared datasets live beside the repo)")
    wanted = set(args.tasks.split(","))
    tasks: list[Task] = []
    if "xsid" in wanted:
        tasks += xsid_tasks(args.limit, args.xsid_languages.split(","))
    if "demo" in wanted:
        tasks += demo_tasks()
    if "crosslingual" in wanted:
        tasks += crosslingual_tasks()
    if "rutube" in wanted:
        rutube = DATASETS / "sites" / "rutube_support_ru"
        tasks += folder_task("rutube/ru", rutube, "ru", args.limit)
    if "stackfaq" in wanted:
        tasks += folder_task("stackfaq/en", DATASETS / "retrieval" / "stackfaq", "en", 2000)
    if "nih" in wanted:
        tasks += nih_task(args.nih_pages)
    if "covid" in wanted:
        tasks += folder_task("covid_faq/en", DATASETS / "retrieval" / "covid_faq", "en", 2000)
    database = args.db or Path(tempfile.mkdtemp(prefix="frontdesk-ml-bench-")) / "bench.db"
    bench = Bench(database)
    rows = []
    weights: list[float | None] = [float(w) for w in args.heading_weights.split(",") if w] or [None]
    header = (
        f"{'task':28} {'model':30} {'head.w':>6} {'hit@5':>6} {'mrr':>6} {'n':>5} {'empty':>5}"
        f" {'abst.rec':>8}"
    )
    if not args.json:
        print(header)
    for task in tasks:
        for model in args.models.split(","):
            for row in bench.run(task, model, args.threshold, weights):
                rows.append(row)
                if args.json:
                    continue
                print(
                    f"{row['task']:28} {model:30} {row['heading_weight']:6.2f}"
                    f" {row['hit@5'] or 0:6.3f} {row['mrr'] or 0:6.3f}"
                    f" {row['answerable']:5d} {row['empty']:5d} {row['abstain_recall'] or 0:8.2f}",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
