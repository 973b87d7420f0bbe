"""Build `everyday-<model>.npz`: everyday-request vectors and their bar
(`knowledge/search/everyday.py`).

    python -m frontdesk.knowledge.data.build_everyday [--model local:multilingual-e5-small]

Reads the CLINC150 **train** split from `../shared/datasets/` (or `$FRONTDESK_DATASETS_DIR`;
CC BY 3.0, attribution in `ATTRIBUTION.md`): the intents the intent classifier is taught
as off-topic (not chit-chat, not the ones left out, not `oos` — `intent_data.py`). Per
intent, `--per-intent` rows (every n-th) are embedded as queries and shipped; `--calibrate`
other rows of the same intents measure the bar: the `--quantile` of their similarity to
their nearest shipped row (0.10: nine in ten unseen everyday requests read as everyday) —
but never below what 95 % of questions to a company reach (`--company-quantile`, 0.95, of
Frontdesk's own English LEARN / SUPPORT / CONTEXT training rows, `intents.jsonl`), so that
a question to a company rarely reads as an everyday request. The validation split and every
site's questions are never read here. The file keeps the vectors (float16), the bar and
the model's name, never the rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from frontdesk.engines.local.intent_data import (
    CLINC_LEFT_OUT,
    CLINC_OTHER,
    DATA_FILE,
    load_examples,
    shared_datasets_dir,
)
from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, make_embedder
from frontdesk.knowledge.search.everyday import artifact_path

PER_INTENT = 10
CALIBRATE = 6
QUANTILE = 0.10
COMPANY_QUANTILE = 0.95
COMPANY_ROWS = 400
COMPANY_INTENTS = frozenset({"LEARN", "SUPPORT", "CONTEXT"})


def _rows(path: Path) -> dict[str, list[str]]:
    by_label: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            by_label.setdefault(row["label"], []).append(row["text"])
    return by_label


def split_rows(texts: list[str], per_intent: int, calibrate: int) -> tuple[list[str], list[str]]:
    """Every n-th row is shipped; the calibration rows sit between them (never shipped)."""
    step = max(1, len(texts) // per_intent)
    shipped = texts[::step][:per_intent]
    rest = [t for i, t in enumerate(texts) if i % step or i // step >= per_intent]
    return shipped, rest[:: max(1, len(rest) // calibrate)][:calibrate]


def company_questions(limit: int = COMPANY_ROWS) -> list[str]:
    """Frontdesk's own English training rows that ask a company something (every n-th)."""
    rows = [
        example.text
        for example in load_examples(DATA_FILE)
        if example.lang == "en" and example.intent in COMPANY_INTENTS and example.split == "train"
    ]
    return rows[:: max(1, len(rows) // limit)][:limit]


def build(
    model: str, per_intent: int, calibrate: int, quantile: float, company_quantile: float
) -> Path:
    train = shared_datasets_dir() / "intent" / "clinc150" / "train.jsonl"
    if not train.is_file():
        raise SystemExit(f"{train} not found: set FRONTDESK_DATASETS_DIR")
    embedder = make_embedder(model)
    shipped: list[str] = []
    held: list[str] = []
    for label, texts in sorted(_rows(train).items()):
        if label in CLINC_OTHER or label in CLINC_LEFT_OUT:
            continue
        kept, rest = split_rows(texts, per_intent, calibrate)
        shipped += kept
        held += rest
    vectors = np.vstack([embedder.embed_query(text) for text in shipped]).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    packed = vectors.astype(np.float16)
    unpacked = packed.astype(np.float32)  # the bar is measured on what is shipped

    def nearest(texts: list[str]) -> list[float]:
        return [float(np.max(unpacked @ embedder.embed_query(text))) for text in texts]

    everyday = float(np.quantile(nearest(held), quantile))
    company = company_questions()
    companies = float(np.quantile(nearest(company), company_quantile))
    bar = max(everyday, companies)
    path = artifact_path(model)
    np.savez_compressed(path, vectors=packed, bar=np.float64(bar), model=np.str_(model))
    print(
        f"{path.name}: {len(shipped)} requests, bar {bar:.4f} (unseen everyday rows: "
        f"{everyday:.4f} at {quantile:.2f}, n={len(held)}; company questions: "
        f"{companies:.4f} at {company_quantile:.2f}, n={len(company)})"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=DEFAULT_EMBEDDING)
    parser.add_argument("--per-intent", type=int, default=PER_INTENT)
    parser.add_argument("--calibrate", type=int, default=CALIBRATE)
    parser.add_argument("--quantile", type=float, default=QUANTILE)
    parser.add_argument("--company-quantile", type=float, default=COMPANY_QUANTILE)
    args = parser.parse_args()
    build(args.model, args.per_intent, args.calibrate, args.quantile, args.company_quantile)


if __name__ == "__main__":
    main()
