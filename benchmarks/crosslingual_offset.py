"""The cross-language offset of an embedding model, measured on calibration data.

    PYTHONPATH=src .venv/bin/python benchmarks/crosslingual_offset.py [--model MODEL]

Calibration data (none of it is a measurement set of `multilingual_retrieval.py`): the
demo's English questions (`demo/evals/single_turn.jsonl`) whose answer is on a page the
demo also has in Russian (`ru-*.md`, the same content translated), searched once over the
English pages and once over the Russian ones, with no threshold. Per question the best
cosine of a chunk of its gold page on each site; the offset is the median of the paired
differences (the same question and content, only the page's language differs). The
everyday probes of `knowledge/search/topic.py` are searched over both sites too: unrelated text
should shift by about as much, or an offset would lift off-topic questions above the bars.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "src" / "frontdesk" / "demo"


def main() -> None:
    from frontdesk.knowledge.models import Document
    from frontdesk.knowledge.search.topic import PROBES
    from frontdesk.knowledge.service import KnowledgeBase
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.knowledge import KnowledgeConfig
    from frontdesk.store.db import make_engine
    from frontdesk.store.migrate import upgrade

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:multilingual-e5-small")
    args = parser.parse_args()
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp(prefix='frontdesk-offset-')}/b.db")
    upgrade(engine)
    kb = KnowledgeBase(engine)
    pages = sorted((DEMO / "kb").glob("*.md"))

    def site(name: str, files: list[Path], language: str) -> SiteKnowledge:
        knowledge = SiteKnowledge(name, KnowledgeConfig(embedding=args.model), language=language)
        documents = [
            Document(
                doc_id=path.name.removeprefix("ru-"),
                title="",
                text=path.read_text(encoding="utf-8"),
                kind="markdown",
                source=path.name,
            )
            for path in files
        ]
        kb.ingest_documents(knowledge, documents, progress=False)
        return knowledge

    english = site("en", [p for p in pages if not p.name.startswith("ru-")], "en")
    russian = site("ru", [p for p in pages if p.name.startswith("ru-")], "ru")
    translated = {p.name.removeprefix("ru-") for p in pages if p.name.startswith("ru-")}

    def best(knowledge: SiteKnowledge, query: str, gold: set[str]) -> tuple[float | None, float]:
        options = replace(
            knowledge.search_options(30), relevance_threshold=None, cross_language_offset=0.0
        )
        result = kb.retriever(knowledge).search(kb.index_key(knowledge), query, options)
        scores = [chunk.score for chunk in result.chunks if chunk.doc_id in gold]
        return (max(scores) if scores else None), result.top_score or 0.0

    gaps = []
    for line in (DEMO / "evals" / "single_turn.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        expected = item.get("expected_output", {})
        if expected.get("language", "en") != "en":
            continue
        gold = {doc for doc in expected.get("gold_doc_ids") or [] if doc in translated}
        if not gold:
            continue
        same, _ = best(english, item["input"]["query"], gold)
        cross, _ = best(russian, item["input"]["query"], gold)
        if same is not None and cross is not None:
            gaps.append(same - cross)
    if not gaps:
        sys.exit("no paired questions found")
    print(
        f"{args.model}: {len(gaps)} English questions, their page in English vs in Russian:"
        f" offset (median gap) {statistics.median(gaps):.3f}, mean {statistics.mean(gaps):.3f}"
    )
    for language, site_of, other in (("en", english, russian), ("ru", russian, english)):
        own = [best(site_of, probe, set())[1] for probe in PROBES[language]]
        far = [best(other, probe, set())[1] for probe in PROBES[language]]
        print(
            f"everyday probes in {language}: best cosine on {language} pages"
            f" {statistics.mean(own):.3f}, on the other language's {statistics.mean(far):.3f}"
            f" (shift {statistics.mean(own) - statistics.mean(far):.3f})"
        )


if __name__ == "__main__":
    main()
