"""What pasted messages cost everybody else: event-loop stalls while long turns run.

    .venv/bin/python benchmarks/long_messages.py [--pastes 8] [--chars 14000]

The demo site (real knowledge base, local engine) in one process. `--pastes` sessions
each send one message of `--chars` characters (the demo's own documentation pasted after
a question) at the same moment, while a heartbeat task measures how late the event loop
wakes it every 5 ms and another session asks short questions one after another. Reports
the loop's worst and p99 lag and the short questions' latency during the pastes: what
every other visitor on the process feels.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from rich.console import Console

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings

SHORT = "Do you support SAML single sign-on?"


def paste(chars: int) -> str:
    docs = " ".join(p.read_text("utf-8") for p in sorted((DEMO_DIR / "kb").glob("*.md")))
    text = "What does the automation builder do? Our notes:\n"
    while len(text) < chars:
        text += docs
    return text[:chars]


async def run(pastes: int, chars: int, folder: Path) -> dict[str, float]:
    runtime = build_runtime(Settings(data_dir=folder))
    ingest_sources(runtime, Console(stderr=True, quiet=True))
    service = ChatService(runtime)
    await service.warm_up()
    site = runtime.site("demo")
    visitor = VisitorContext()
    long_text = paste(chars)
    await service.ask(site, str(uuid.uuid4()), long_text, visitor)  # warm the long path

    lags: list[float] = []
    short_ms: list[float] = []
    done = asyncio.Event()

    async def heartbeat() -> None:
        while not done.is_set():
            started = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append((time.perf_counter() - started) * 1000 - 5)

    async def short_questions() -> None:
        session = str(uuid.uuid4())
        while not done.is_set():
            started = time.perf_counter()
            await service.ask(site, session, SHORT, visitor)
            short_ms.append((time.perf_counter() - started) * 1000)

    beat, asker = asyncio.create_task(heartbeat()), asyncio.create_task(short_questions())
    started = time.perf_counter()
    await asyncio.gather(
        *(service.ask(site, str(uuid.uuid4()), long_text, visitor) for _ in range(pastes))
    )
    elapsed = time.perf_counter() - started
    done.set()
    await asyncio.gather(beat, asker)
    await service.close()
    runtime.close()
    lags.sort()
    return {
        "pastes": pastes,
        "chars": chars,
        "pastes_s": round(elapsed, 3),
        "loop_lag_max_ms": round(lags[-1], 1),
        "loop_lag_p99_ms": round(lags[int(len(lags) * 0.99) - 1], 1),
        "short_turns": len(short_ms),
        "short_turn_max_ms": round(max(short_ms), 1),
        "short_turn_median_ms": round(statistics.median(short_ms), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pastes", type=int, default=8)
    parser.add_argument("--chars", type=int, default=14_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-long-"))
    try:
        result = asyncio.run(run(args.pastes, args.chars, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
