"""Build the shipped intent model: `python -m frontdesk.engines.local.data.build_model`.

Trains on `intents.jsonl` (rebuild it first with `build_intents.py` when the phrase
files change) and the public CLINC150 / banking77 train splits read from
../shared/datasets (or $FRONTDESK_DATASETS_DIR), and writes `intent_model.pkl` beside
this file. See ATTRIBUTION.md.
"""

from __future__ import annotations

import sys
import time


def main() -> None:
    from frontdesk.engines.local.intent import SHIPPED_MODEL, build_shipped, shipped_key

    started = time.perf_counter()
    try:
        build_shipped()
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    size = SHIPPED_MODEL.stat().st_size / 1e6
    elapsed = time.perf_counter() - started
    print(f"{SHIPPED_MODEL} ({size:.1f} MB, key {shipped_key()}) in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
