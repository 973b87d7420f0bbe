"""Build `injection_model.json.gz` (the local prompt-injection detector) and its attribution.

Run from the repository root, with the shared datasets next to it:

    python src/frontdesk/engines/local/data/build_injection.py [DATASETS_DIR]

DATASETS_DIR defaults to `../shared/datasets`. The detector learns from every source
`injection_corpus.load_corpus` marks trainable (our written attacks and look-alikes,
generated pastes, the intent phrases, CLINC150 and banking77 train texts, and the
dev.jsonl sources with a known license); the public files stay where they are and only
the trained artifact is kept in the repository. `injection_model.SOURCE.md` records
what it was trained on. `frontdesk eval injection --by-source` measures it.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from frontdesk.engines.local.injection import MODEL_FILE, InjectionDetector
from frontdesk.engines.local.injection_corpus import LICENSED_DEV_SOURCES, load_corpus

REPO_ROOT = Path(__file__).resolve().parents[5]
DEFAULT_DATASETS = REPO_ROOT.parent / "shared" / "datasets"
ATTRIBUTION_FILE = MODEL_FILE.with_name("injection_model.SOURCE.md")

_PUBLIC = {
    "clinc150": "CLINC150 (Larson et al., 2019), train split, CC BY 3.0 — benign",
    "banking77": "banking77 (Casanueva et al., 2020), train split, CC BY 4.0 — benign",
}


def attribution(counts: Counter[str]) -> str:
    lines = [
        "# The local prompt-injection detector's training data",
        "",
        "Built by `src/frontdesk/engines/local/data/build_injection.py`; measured by",
        "`frontdesk eval injection --by-source` (see docs/injection.md).",
        "",
        "| source | rows | origin |",
        "|---|---|---|",
    ]
    for source, rows in sorted(counts.items()):
        family = source.split("/")[0]
        if family in _PUBLIC:
            origin = _PUBLIC[family]
        elif all(name in LICENSED_DEV_SOURCES for name in source.split("+")):
            licenses = ", ".join(LICENSED_DEV_SOURCES[n] for n in source.split("+"))
            origin = (
                f"{source} via Parapet-Tech/parapet prompt-injection collection "
                f"(repository Apache-2.0; source {licenses})"
            )
        else:
            origin = "written for Frontdesk (src/frontdesk/engines/local/data/)"
        lines.append(f"| {source} | {rows} | {origin} |")
    lines += [
        "",
        "Not trained on (measured only): dev.jsonl sources whose license is not verified",
        "(gandalf), CLINC150 val, xSID, and every `sites/` and `retrieval/` question set.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    datasets = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DATASETS
    if not (datasets / "injection" / "dev.jsonl").exists():
        sys.exit(f"{datasets}/injection/dev.jsonl not found: pass the datasets folder")
    corpus = load_corpus(datasets)
    rows = corpus.training_rows()
    counts = Counter(r.source for r in rows)
    print(f"training on {len(rows)} rows from {len(counts)} sources…", file=sys.stderr)
    detector = InjectionDetector.train([r.text for r in rows], [r.injection for r in rows])
    detector.attribution = "see injection_model.SOURCE.md"
    detector.save(MODEL_FILE)
    ATTRIBUTION_FILE.write_text(attribution(counts), encoding="utf-8")
    size = MODEL_FILE.stat().st_size / 1e6
    print(f"{MODEL_FILE} ({size:.1f} MB), {ATTRIBUTION_FILE.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
