"""Time to first token with an LLM engine, routing modes `llm` and `hybrid`.

    PYTHONPATH=src:. .venv/bin/python benchmarks/ttft.py [--turns 8] [--modes llm,hybrid]
        [--nodes] [--json]

A simulated provider (a loopback server speaking the OpenAI API) answers
classification calls in 300 ms and writing calls with the first token after 400 ms, then
20 tokens/s. Each product question runs as a fresh session through `ChatService` (abuse
gate, the whole graph, checkpoint, store write) over the demo knowledge base. TTFT is
measured from the call to the first token the visitor receives, and reported as a ratio
to the writer's own 400 ms first-token latency.

In `llm` mode the fast model classifies intent and signals, selects skills, rewrites the
query and grades the passages before the writer starts. In `hybrid` mode the local
classifiers route and the LLM is asked only below the confidence threshold; retrieval
runs in the background from the turn's start (deferred execution), so the writer's 400 ms is
nearly all the visitor waits for. Targets: hybrid median ≤ ×1.10, and every turn that
does not ask the model for intent ≤ ×1.15.

`--nodes` also prints each node's timings over the same turns (`benchmarks/node_timing.py`,
from LangGraph's "debug" stream).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import yaml
from rich.console import Console
from sqlalchemy import select

from frontdesk.conversation.payload import CompleteEvent, TokenEvent, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.store.models import Trace

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))  # the test doubles in tests/support are not shipped
from benchmarks.node_timing import NodeTimings, TimedService, markdown, table  # noqa: E402

from tests.support.ports import free_port  # noqa: E402

CLASSIFY_S = 0.300
FIRST_TOKEN_S = 0.400
TOKENS_PER_S = 20.0
QUESTIONS = [
    "Do you support SAML single sign-on?",
    "What is your uptime SLA?",
    "What does error TF-2003 mean?",
    "Which regions can my data be stored in?",
    "Does Tessellate integrate with Snowflake?",
    "How do I rotate an API key?",
    "How long do you keep audit logs?",
    "Can I export my data?",
]


def start_provider() -> tuple[subprocess.Popen[bytes], str]:
    """The simulated provider in a process of its own, as a real provider would be.
    Structured calls get the schema's benign sample: LEARN, nothing irrelevant, full."""
    port = free_port()
    command = [
        sys.executable, "-m", "tests.support.simulator", "--port", str(port),
        "--classify-delay-s", str(CLASSIFY_S), "--first-token-delay-s", str(FIRST_TOKEN_S),
        "--tokens-per-s", str(TOKENS_PER_S), "--echo-query",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=REPO_ROOT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.post(f"{base_url}/chat/completions", json={"model": "warm", "messages": []})
            return process, base_url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the simulated provider did not start")


def write_site(folder: Path, mode: str, base_url: str) -> Path:
    data = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    data["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    data["engine"] = {
        "name": "llm",
        "roles": {"fast": "openai:fast", "main": "openai:main", "judge": "openai:fast"},
        "routing_mode": mode,
        "base_url": base_url,
        "max_retries": 0,
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "demo.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return folder


async def measure(
    settings: Settings, turns: int, timings: NodeTimings | None = None
) -> dict[str, Any]:
    runtime = build_runtime(settings)
    service = ChatService(runtime) if timings is None else TimedService(runtime, timings=timings)
    site = service.runtime.site("demo")
    ttfts: list[float] = []
    own_intent: list[float] = []  # turns whose intent the local classifier decided alone
    llm_intent_calls = 0
    last_nodes: list[tuple[str, int]] = []
    try:
        await service.warm_up()
        for index in range(turns + 1):  # the first turn warms caches and is not counted
            question = QUESTIONS[index % len(QUESTIONS)]
            session = str(uuid.uuid4())
            started = time.perf_counter()
            if timings is not None:
                timings.begin(started)
            first: float | None = None
            route = None
            async for event in service.stream_turn(site, session, question, VisitorContext()):
                if isinstance(event, TokenEvent) and first is None:
                    first = time.perf_counter() - started
                    if timings is not None:
                        timings.first_token()
                elif isinstance(event, CompleteEvent):
                    route = event.result.route
            with service.runtime.sessions() as db:
                trace = db.scalars(select(Trace).where(Trace.session_id == session)).one()
            asked_intent = any(n["node"] == "llm:intent_classifier" for n in trace.nodes)
            last_nodes = [(n["node"], round(n["ms"])) for n in trace.nodes if n["ms"] >= 1]
            wrote = any(n["node"] == "llm:answer_writer" for n in trace.nodes)
            counted = index > 0 and first is not None and route == "ANSWER" and wrote
            if timings is not None:
                timings.end(counted=counted)
            if not counted or first is None:
                continue  # only turns whose first token came from the LLM writer
            llm_intent_calls += asked_intent
            ttfts.append(first)
            if not asked_intent:
                own_intent.append(first)
    finally:
        await service.close()
        service.runtime.close()
    ratios = [t / FIRST_TOKEN_S for t in ttfts]
    return {
        "turns": len(ttfts),
        "ttft_ms_median": round(statistics.median(ttfts) * 1000, 1),
        "ttft_ms_max": round(max(ttfts) * 1000, 1),
        "ratio_median": round(statistics.median(ratios), 3),
        "ratio_max": round(max(ratios), 3),
        "ratio_max_without_llm_intent": round(max(own_intent) / FIRST_TOKEN_S, 3)
        if own_intent
        else None,
        "llm_intent_calls": llm_intent_calls,
        "last_turn_nodes_ms": last_nodes,
    }


async def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    data = folder / "data"
    base = Settings(data_dir=data, sites_dir=write_site(folder / "sites-local", "local", "x"))
    runtime = build_runtime(base)
    ingest_sources(runtime, Console(stderr=True, quiet=True))
    runtime.close()
    results: dict[str, Any] = {}
    process, base_url = start_provider()
    try:
        for mode in args.modes:
            sites = write_site(folder / f"sites-{mode}", mode, base_url)
            settings = Settings(data_dir=data, sites_dir=sites)
            timings = NodeTimings() if args.nodes else None
            results[mode] = await measure(settings, args.turns, timings)
            if timings is not None:
                results[mode]["nodes"] = table(timings)
    finally:
        process.terminate()
        process.wait(timeout=10)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument(
        "--modes", type=lambda text: text.split(","), default=["llm", "hybrid"],
        help="routing modes to measure, comma-separated (default: llm,hybrid)",
    )  # fmt: skip
    parser.add_argument("--nodes", action="store_true", help="also time every node")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-ttft-"))
    try:
        results = asyncio.run(run(args, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    results["target"] = {"hybrid_ratio_median_max": 1.10, "without_llm_intent_ratio_max": 1.15}
    hybrid = results.get("hybrid")
    results["pass"] = hybrid is not None and (
        hybrid["ratio_median"] <= 1.10 and (hybrid["ratio_max_without_llm_intent"] or 0) <= 1.15
    )
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"simulated provider: classify {CLASSIFY_S * 1000:.0f} ms, first token "
          f"{FIRST_TOKEN_S * 1000:.0f} ms, then {TOKENS_PER_S:.0f} tokens/s")  # fmt: skip
    for mode in args.modes:
        r = results[mode]
        own = r["ratio_max_without_llm_intent"]
        print(
            f"{mode:>6}: TTFT median {r['ttft_ms_median']:.0f} ms (×{r['ratio_median']:.2f}), "
            f"max {r['ttft_ms_max']:.0f} ms (×{r['ratio_max']:.2f}) over {r['turns']} turns; "
            f"LLM intent calls: {r['llm_intent_calls']}; max without one: "
            + ("–" if own is None else f"×{own:.2f}")
        )
    for mode in args.modes:
        if "nodes" in results[mode]:
            print(f"\n{mode}, per node over the {results[mode]['turns']} turns:\n")
            print(markdown(results[mode]["nodes"]))
    print(
        "target hybrid median ≤ ×1.10, without an LLM intent call ≤ ×1.15: "
        + ("PASS" if results["pass"] else "FAIL")
    )


if __name__ == "__main__":
    main()
