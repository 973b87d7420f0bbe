"""Build `acts-<model>.npz`: conversation-act vectors and their bar (`knowledge/search/acts.py`).

    python -m frontdesk.knowledge.data.build_acts [--model local:multilingual-e5-small]

Rows: the project's own act rows (`intents.jsonl`, eight languages) and the CLINC150
**train** split's greetings, goodbyes, thanks, yes and no (`../shared/datasets/` or
`$FRONTDESK_DATASETS_DIR`; CC BY 3.0, attribution in `ATTRIBUTION.md`), each embedded as a
query. The bar is the `--quantile` (0.99) of the similarity to the nearest act row of
Frontdesk's own rows that are no act — questions and requests to a company and everyday
requests, every `--stride`-th — so that about 1 % of them would read as an act (the
router still answers an act that asks the company something). Validation splits and
sites' questions are never read. The file keeps the vectors (float16), their acts, the
bar and the model's name, never the rows.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from frontdesk.engines.local.intent_data import (
    DATA_FILE,
    clinc_act,
    load_examples,
    shared_datasets_dir,
)
from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, make_embedder
from frontdesk.knowledge.search.acts import artifact_path

QUANTILE = 0.99
STRIDE = 8
OTHERS = frozenset({"LEARN", "SUPPORT", "CONTEXT", "BOOKING", "OFFTOPIC"})


def build(model: str, quantile: float, stride: int) -> None:
    train = shared_datasets_dir() / "intent" / "clinc150" / "train.jsonl"
    if not train.is_file():
        raise SystemExit(f"{train} not found: set FRONTDESK_DATASETS_DIR")
    examples = load_examples(DATA_FILE)
    rows = [(e.text, e.act) for e in examples if e.act is not None]
    for line in train.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            act = clinc_act(row["label"], row["text"])
            if act is not None:
                rows.append((row["text"], act))
    others = [e.text for e in examples if e.intent in OTHERS and e.act is None][::stride]
    embedder = make_embedder(model)
    vectors = np.vstack([embedder.embed_query(text) for text, _ in rows]).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    packed = vectors.astype(np.float16)
    unpacked = packed.astype(np.float32)  # the bar is measured on what is shipped
    nearest = [float(np.max(unpacked @ embedder.embed_query(text))) for text in others]
    bar = float(np.quantile(nearest, quantile))
    path = artifact_path(model)
    acts = np.array([act for _, act in rows])
    np.savez_compressed(path, vectors=packed, acts=acts, bar=np.float64(bar), model=np.str_(model))
    print(f"{path.name}: {len(rows)} acts, bar {bar:.4f} ({quantile:.2f} of n={len(others)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=DEFAULT_EMBEDDING)
    parser.add_argument("--quantile", type=float, default=QUANTILE)
    parser.add_argument("--stride", type=int, default=STRIDE)
    args = parser.parse_args()
    build(args.model, args.quantile, args.stride)


if __name__ == "__main__":
    main()
