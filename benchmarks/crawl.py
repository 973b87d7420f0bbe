"""Crawl speed on the generated loopback website (tests/support/website.py).

    PYTHONPATH=src:. .venv/bin/python benchmarks/crawl.py [--pages 1000] [--e2e-pages 200]
        [--embedding local:all-MiniLM-L6-v2] [--concurrency 8] [--json]

The site runs in its own process (so the server does not share the crawler's GIL):
1. crawl only: robots.txt, sitemap index, every page fetched and extracted, nothing
   written (pages/s without embedding);
2. end to end: crawl + extract + chunk + embed with `--embedding` + index, into a fresh
   store, on a `--e2e-pages` site (pages/s end to end);
3. re-sync of an unchanged `--pages` site whose state is stored (conditional requests,
   304s; target ≤ 10 s at 1,000 pages).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.knowledge.web import SiteSync
from frontdesk.knowledge.web.crawl import Crawler
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

REPO = Path(__file__).resolve().parents[1]
SERVE = """
import sys, time
from tests.support.website import LoopbackWebsite
site = LoopbackWebsite(int(sys.argv[1]), slow_s=0.0).start()
print(site.url, flush=True)
while True:
    time.sleep(3600)
"""


class SiteProcess:
    def __init__(self, pages: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(pages)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env={"PYTHONPATH": f"{REPO / 'src'}:{REPO}"},
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url:
            raise RuntimeError("the loopback website did not start")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def source(url: str, concurrency: int) -> WebSource:
    return WebSource.model_validate(
        {
            "url": url + "/",
            "allow_private_network": True,
            "max_pages": 100_000,
            "max_depth": 50,
            "max_page_bytes": 1_000_000,
            "politeness": {"concurrency": concurrency},
        }
    )


def sync_once(folder: Path, name: str, web: WebSource, embedding: str) -> tuple[float, int, int]:
    engine = make_engine(f"sqlite:///{folder / name}")
    upgrade(engine)
    kb = KnowledgeBase(engine)
    site = SiteKnowledge("bench", KnowledgeConfig(embedding=embedding))
    sync = SiteSync(engine, kb.ingestor(site, progress=False))
    started = time.perf_counter()
    summary = asyncio.run(sync.sync("bench", web))
    elapsed = time.perf_counter() - started
    if embedding.startswith("hash"):
        started = time.perf_counter()
        again = asyncio.run(sync.sync("bench", web))
        resync = time.perf_counter() - started
        assert again.changed == 0 and again.chunks_embedded == 0, again.as_dict()
        return resync, again.unchanged, again.found
    return elapsed, summary.changed, summary.chunks_embedded


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--e2e-pages", type=int, default=200)
    parser.add_argument("--embedding", default="local:all-MiniLM-L6-v2")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures: dict[str, float | int | str] = {"pages": args.pages, "embedding": args.embedding}
    folder = Path(tempfile.mkdtemp(prefix="crawl-bench-"))

    site = SiteProcess(args.pages)
    try:
        web = source(site.url, args.concurrency)
        started = time.perf_counter()
        result = asyncio.run(Crawler(web, {}).run())
        crawl_s = time.perf_counter() - started
        pages = sum(1 for page in result.pages.values() if page.fetched)
        figures["crawl_only_pages"] = pages
        figures["crawl_only_pages_per_s"] = round(pages / crawl_s, 1)
        resync_s, unchanged, found = sync_once(folder, "resync.db", web, "hash:256")
        figures["resync_unchanged_s"] = round(resync_s, 2)
        figures["resync_unchanged_pages"] = unchanged
        figures["resync_found"] = found
    finally:
        site.close()

    site = SiteProcess(args.e2e_pages)
    try:
        web = source(site.url, args.concurrency)
        e2e_s, changed, chunks = sync_once(folder, "e2e.db", web, args.embedding)
        figures["e2e_pages"] = changed
        figures["e2e_chunks_embedded"] = chunks
        figures["e2e_pages_per_s"] = round(changed / e2e_s, 1)
    finally:
        site.close()

    if args.json:
        print(json.dumps(figures))
        return
    print(f"crawl only ({figures['crawl_only_pages']} pages fetched + extracted): "
          f"{figures['crawl_only_pages_per_s']} pages/s")  # fmt: skip
    print(f"end to end with {args.embedding} ({changed} pages, {chunks} chunks): "
          f"{figures['e2e_pages_per_s']} pages/s")  # fmt: skip
    print(f"re-sync of the unchanged {args.pages}-page site ({unchanged} unchanged of "
          f"{found} URLs): {figures['resync_unchanged_s']} s (target ≤ 10 s)")  # fmt: skip


if __name__ == "__main__":
    main()
