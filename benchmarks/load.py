"""Load and soak: N concurrent streaming sessions × M turns against one `frontdesk serve`.

    .venv/bin/python benchmarks/load.py --engine local --sessions 200 --turns 5
    .venv/bin/python benchmarks/load.py --engine local --sessions 50 --turns 12 --workers 2
    .venv/bin/python benchmarks/load.py --engine llm --sessions 500 --turns 3
    .venv/bin/python benchmarks/load.py --soak          # 200 sessions × 10 turns, local engine

What runs:

- a temporary data folder and sites folder holding a copy of the demo site, whose
  `rate_limits` are raised so that every visitor coming from 127.0.0.1 is not throttled
  (the output says so); the demo knowledge base is ingested once (`frontdesk kb ingest`);
- with `--engine llm`, the site uses the `llm` engine (routing `hybrid` by default, every
  role on the provider) against the simulated OpenAI-compatible provider
  (`tests.support.simulator`) in a process of its own, with fixed latencies:
  structured calls 300 ms, streamed answers' first token after 400 ms, then 20 tokens/s;
- one real `frontdesk serve` instance (SQLite store) on a free loopback port, started and
  waited for (`/readyz`) like a deployment would: with `--workers 1` (the default) one
  process with in-memory limits and locks; with `--workers N` uvicorn's supervisor and N
  worker processes, limits and locks in Redis (`--redis-url`, a key prefix of the run's
  own, deleted afterwards);
- a couple of warm-up turns in a session of their own, timed and reported apart (the
  first turns after `/readyz` pay whatever start-up left lazy);
- N client sessions (asyncio, one shared httpx client) each sending M turns one after the
  other to `POST /v1/chat` and reading the Server-Sent Events to the end of the stream,
  with `--think-ms` (±50 % jitter) between turns and session starts spread over `--ramp-s`
  (defaults: no pause on the local engine; 10 s, a brisk visitor, on the simulated LLM).

Reported: throughput, turn latency and TTFT (first `token` event) p50/p95/p99, errors
(non-200 — a 429 included —, `error` events, timeouts, broken streams), the server's RSS
(sampled every 0.5 s, the process tree: every worker; for the soak also at 10 % of the
turns vs at the end), CPU seconds of each process (the server's summed over its tree and,
with several workers, listed per process), the server's CPU per turn, and — after the
server has stopped — the store checked for every turn: each session must hold exactly M
user and M assistant messages with the texts that were sent and streamed ("lost turns").

On the simulated LLM, "added latency" is the turn latency minus the provider's own fixed
latency for the calls that turn made, read from its trace (`llm:<job>` nodes): streamed
answers cost first-token + (pieces − 1) / rate, structured calls the classify delay. The
graph's known parallelism is honoured: at the start of a turn the retrieval branch's query
rewrite overlaps intent ‖ signals and skills; everything else is sequential. Added TTFT is
TTFT minus the calls before the first answer token plus the first-token delay.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from frontdesk.settings import DEMO_DIR

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))  # the test doubles in tests/support are not shipped
from tests.support.ports import free_port  # noqa: E402
from tests.support.simulator import DEFAULT_ANSWER  # noqa: E402

QUESTIONS = [
    "Do you support SAML single sign-on?",
    "What is your uptime SLA?",
    "What does error TF-2003 mean?",
    "Which regions can my data be stored in?",
    "Does Tessellate integrate with Snowflake?",
    "How do I rotate an API key?",
    "How long do you keep audit logs?",
    "Can I export my data?",
    "What is Tessellate Flow?",
    "How do I cancel my subscription?",
    "Какой SLA по времени ответа поддержки?",
    "Hello!",
]
# Every visitor of the benchmark comes from 127.0.0.1: the shipped per-IP limit (60/min)
# would refuse nearly every turn, so the copied site file raises all three limits.
RATE_LIMITS = {
    "per_session_per_minute": 100_000,
    "per_ip_per_minute": 10_000_000,
    "per_site_per_day": 100_000_000,
}
WIDGET_FIRST_TOKEN_S = 10.0  # the widget's stream-timeout-ms default: later → fallback state
SOAK = {"sessions": 200, "turns": 10}
# A visitor reads a streamed answer and types the next question: 10 s is brisk. Local-engine
# runs default to no pause at all (throughput); the output always states the pause used.
LLM_THINK_MS = 10_000.0
STREAMED_JOBS = {"answer_writer"}
PARALLEL_JOBS = {"intent_classifier", "signals_detector"}  # one superstep, side by side
SKILL_JOBS = {"skill_selector"}  # after them, still before retrieval is awaited
RETRIEVAL_JOBS = {"query_rewriter"}  # background branch started beside the classifiers

console = Console()
err = Console(stderr=True)


# -- measurements --------------------------------------------------------------------------
@dataclass
class TurnSample:
    session: str
    index: int  # 0-based turn of the session
    message: str
    started: float  # seconds since the load started
    latency_s: float = 0.0
    ttft_s: float | None = None
    tokens: int = 0
    error: str | None = None
    answer: str | None = None
    turn: int | None = None  # server's turn number from the `complete` metadata
    route: str | None = None


@dataclass
class Load:
    samples: list[TurnSample] = field(default_factory=list)
    in_flight: int = 0
    peak_in_flight: int = 0
    loop_lag_ms: list[float] = field(default_factory=list)
    completed: int = 0


def pct(values: list[float], q: float) -> float | None:
    """Percentile with linear interpolation (numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def summary_ms(values: list[float]) -> dict[str, float | None]:
    return (
        {"min": ms(min(values)) if values else None}
        | {f"p{q}": ms(pct(values, q)) for q in (50, 95, 99)}
        | {"max": ms(max(values)) if values else None}
    )


# -- processes -----------------------------------------------------------------------------
def descendants(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{task}/children").read_text()
                for child in text.split():
                    found += [int(child), *descendants(int(child))]
    return found


def status_kb(pid: int, key: str) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants."""
    return sum(status_kb(p, "VmRSS") for p in [pid, *descendants(pid)]) / 1024


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (its threads included)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_s(pid: int) -> dict[int, float]:
    """CPU seconds of a process and of each live descendant (`serve --workers N`: every
    worker; a child's own time reaches its parent's /proc stat only once it has exited)."""
    return {p: cpu_s(p) for p in [pid, *descendants(pid)]}


def tree_hwm_mb(pid: int) -> float:
    """Sum of the peak RSS (VmHWM) of a process and its descendants."""
    return sum(status_kb(p, "VmHWM") for p in [pid, *descendants(pid)]) / 1024


class RssSampler:
    """Samples the server's RSS every `period_s` in a thread of its own (not the event loop,
    which is busy with the clients)."""

    def __init__(self, pid: int, load: Load, period_s: float = 0.5) -> None:
        self.pid, self.load, self.period_s = pid, load, period_s
        self.samples: list[tuple[float, float, int]] = []  # (elapsed s, RSS MB, completed)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.perf_counter()

    def sample(self) -> float:
        value = rss_mb(self.pid)
        self.samples.append((time.perf_counter() - self._t0, value, self.load.completed))
        return value

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            self.sample()

    def __enter__(self) -> RssSampler:
        self._t0 = time.perf_counter()
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def at_progress(self, fraction: float, total: int) -> float | None:
        for _, value, done in self.samples:
            if done >= fraction * total:
                return value
        return None


def wait_http(url: str, process: subprocess.Popen[bytes], what: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=5).status_code == 200:
                return
        time.sleep(0.25)
    raise RuntimeError(f"{what} not ready after {timeout_s:.0f} s")


def start_provider(args: argparse.Namespace, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The simulated provider in a process of its own, as a real provider would be."""
    port = free_port()
    command = [
        sys.executable, "-m", "tests.support.simulator", "--port", str(port),
        "--classify-delay-s", str(args.sim_classify_ms / 1000),
        "--first-token-delay-s", str(args.sim_first_token_ms / 1000),
        "--tokens-per-s", str(args.sim_tokens_per_s), "--echo-query",
    ]  # fmt: skip
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the simulated provider exited (see {log})")
        try:
            httpx.post(f"{base_url}/chat/completions", json={"model": "warm", "messages": []})
            return process, base_url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the simulated provider did not start")


def start_server(
    env: dict[str, str], log: Path, timeout_s: float, *options: str
) -> tuple[subprocess.Popen[bytes], str]:
    """`frontdesk serve` on a free loopback port, once /readyz answers; its base URL."""
    port = free_port()
    command = [
        sys.executable, "-m", "frontdesk", "serve", "--host", "127.0.0.1", "--port", str(port),
        *options,
    ]  # fmt: skip
    with log.open("ab") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/readyz", process, "frontdesk serve", timeout_s)
    except BaseException:
        stop(process)
        raise
    return process, base


def stop(process: subprocess.Popen[bytes] | None, timeout_s: float = 60) -> float:
    """Graceful stop (SIGTERM → uvicorn shutdown, lifespan closes the store); seconds taken."""
    if process is None or process.poll() is not None:
        return 0.0
    started = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return time.perf_counter() - started


# -- setup ---------------------------------------------------------------------------------
def write_site(sites: Path, args: argparse.Namespace, base_url: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(
        (DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8")
    )
    data["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    data["rate_limits"] = dict(RATE_LIMITS)
    if args.engine == "llm":
        data["engine"] = {
            "name": "llm",
            "roles": {"fast": "openai:fast", "main": "openai:main", "judge": "openai:fast"},
            "routing_mode": args.routing_mode,
            "base_url": base_url,
            "max_retries": 0,
        }
    sites.mkdir(parents=True, exist_ok=True)
    (sites / "demo.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return data


def server_env(data_dir: Path, sites: Path, args: argparse.Namespace) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")}
    env |= {
        "FRONTDESK_DATA_DIR": str(data_dir),
        "FRONTDESK_SITES_DIR": str(sites),
        "FRONTDESK_LOG_LEVEL": args.server_log_level,
    }
    if args.workers > 1:  # `serve` refuses several workers without shared locks and limits
        env |= {"FRONTDESK_REDIS_URL": args.redis_url, "FRONTDESK_REDIS_PREFIX": args.redis_prefix}
    return env


def delete_redis_keys(args: argparse.Namespace) -> None:
    """The run's Redis keys (its own prefix): locks, counters, salt, cached embeddings."""
    if args.workers <= 1:
        return
    import redis

    client = redis.Redis.from_url(args.redis_url)
    try:
        keys = list(client.scan_iter(f"{args.redis_prefix}*"))
        if keys:
            client.delete(*keys)
    except redis.RedisError as exc:
        err.print(f"could not delete the run's Redis keys ({args.redis_prefix}*): {exc}")
    finally:
        client.close()


def ingest(env: dict[str, str], log: Path) -> float:
    started = time.perf_counter()
    command = [sys.executable, "-m", "frontdesk", "kb", "ingest", "demo", "--no-progress"]
    with log.open("ab") as out:
        done = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`frontdesk kb ingest demo` failed (see {log})")
    return time.perf_counter() - started


# -- clients -------------------------------------------------------------------------------
SECRETS: dict[str, str] = {}
"""Each session's secret, from its first response (later turns must send it)."""


async def one_turn(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], sample: TurnSample, t0: float
) -> None:
    body = {
        "message": sample.message,
        "session_id": sample.session,
        "session_secret": SECRETS.get(sample.session),
        "page_url": "http://127.0.0.1:8000/docs/load-benchmark",
    }
    started = time.perf_counter()
    sample.started = started - t0
    complete = False
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            if "X-Frontdesk-Session-Secret" in response.headers:  # the session's first turn
                SECRETS[sample.session] = response.headers["X-Frontdesk-Session-Secret"]
            if response.status_code != 200:
                detail = (await response.aread())[:200].decode("utf-8", "replace")
                code = ""
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    code = ":" + json.loads(detail)["error"]["code"]
                sample.error = f"http_{response.status_code}{code}"
            else:
                event = ""
                # Read to the end of the stream, as a client must before its next turn: the
                # server frees the session slot after `complete`, before closing the body.
                async for line in response.aiter_lines():
                    if not line:
                        event = ""
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data = line[5:].strip()
                        if event == "token":
                            sample.tokens += 1
                            if sample.ttft_s is None:
                                sample.ttft_s = time.perf_counter() - started
                        elif event == "complete":
                            meta = json.loads(data)["metadata"]
                            sample.answer, sample.turn = meta.get("answer"), meta.get("turn")
                            sample.route = meta.get("route")
                            complete = True
                        elif event == "error":
                            sample.error = "event:" + str(json.loads(data).get("code"))
                if not complete and sample.error is None:
                    sample.error = "stream_ended_without_complete"
    except httpx.TimeoutException as exc:
        sample.error = f"timeout:{type(exc).__name__}"
    except httpx.HTTPError as exc:
        sample.error = f"transport:{type(exc).__name__}"
    sample.latency_s = time.perf_counter() - started


async def session_loop(
    index: int,
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    args: argparse.Namespace,
    load: Load,
    t0: float,
    on_done: Any,
) -> None:
    rng = random.Random(index)
    session = str(uuid.uuid4())
    if args.ramp_s > 0:
        await asyncio.sleep(args.ramp_s * index / max(1, args.sessions))
    for k in range(args.turns):
        if k and args.think_ms > 0:
            await asyncio.sleep(args.think_ms / 1000 * rng.uniform(0.5, 1.5))
        sample = TurnSample(session, k, QUESTIONS[(index + k) % len(QUESTIONS)], 0.0)
        load.samples.append(sample)
        load.in_flight += 1
        load.peak_in_flight = max(load.peak_in_flight, load.in_flight)
        try:
            await one_turn(client, url, headers, sample, t0)
        finally:
            load.in_flight -= 1
            load.completed += 1
            on_done()


async def loop_lag(load: Load, period_s: float = 0.1) -> None:
    """How late the client's event loop wakes up: its own saturation shows up here."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(period_s)
        load.loop_lag_ms.append((time.perf_counter() - before - period_s) * 1000)


async def warm_up(
    base: str, headers: dict[str, str], turns: int, timeout_s: float
) -> list[TurnSample]:
    """A few turns of one session before the load, timed on their own: the first turns
    after `/readyz` pay whatever the server's warm-up left lazy."""
    session = str(uuid.uuid4())
    samples = [TurnSample(session, k, QUESTIONS[k % len(QUESTIONS)], 0.0) for k in range(turns)]
    async with httpx.AsyncClient(base_url=base, timeout=timeout_s) as client:
        for sample in samples:
            await one_turn(client, "/v1/chat", headers, sample, time.perf_counter())
    return samples


async def drive(
    args: argparse.Namespace, base: str, headers: dict[str, str], load: Load, sampler: RssSampler
) -> float:
    total = args.sessions * args.turns
    limits = httpx.Limits(
        max_connections=args.sessions + 16, max_keepalive_connections=args.sessions + 16
    )
    timeout = httpx.Timeout(args.timeout_s, connect=30.0, pool=None)
    progress = Progress(
        TextColumn("[bold]turns"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("in flight {task.fields[in_flight]:>4}  server RSS {task.fields[rss]:>6.0f} MB"),
        TimeElapsedColumn(),
        console=err,
        refresh_per_second=2,
    )
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:
        with progress:
            task = progress.add_task("turns", total=total, in_flight=0, rss=sampler.samples[-1][1])

            def on_done() -> None:
                rss = sampler.samples[-1][1] if sampler.samples else 0.0
                progress.update(task, advance=1, in_flight=load.in_flight, rss=rss)

            lag = asyncio.create_task(loop_lag(load))
            t0 = time.perf_counter()
            await asyncio.gather(
                *(
                    session_loop(i, client, "/v1/chat", headers, args, load, t0, on_done)
                    for i in range(args.sessions)
                )
            )
            elapsed = time.perf_counter() - t0
            lag.cancel()
    return elapsed


# -- after the run -------------------------------------------------------------------------
def simulated_s(calls: list[dict[str, Any]], args: argparse.Namespace) -> tuple[float, float]:
    """The provider's own fixed latency on the turn's critical path: (whole turn, to the
    first answer token). Calls are the trace's `llm:<job>` nodes in completion order."""
    classify = args.sim_classify_ms / 1000
    pieces = len(DEFAULT_ANSWER.split(" "))
    stream = args.sim_first_token_ms / 1000
    stream += (pieces - 1) / args.sim_tokens_per_s if args.sim_tokens_per_s else 0.0
    jobs = [c["node"].removeprefix("llm:") for c in calls]
    analysis = classify if any(j in PARALLEL_JOBS for j in jobs) else 0.0
    analysis += classify * sum(j in SKILL_JOBS for j in jobs)
    retrieval = classify * sum(j in RETRIEVAL_JOBS for j in jobs)
    total = before_first = 0.0
    seen_writer = False
    for job in jobs:
        if job in PARALLEL_JOBS or job in SKILL_JOBS or job in RETRIEVAL_JOBS:
            continue
        if job in STREAMED_JOBS:
            if not seen_writer:
                before_first = total + args.sim_first_token_ms / 1000
            seen_writer = True
            total += stream
        else:
            total += classify
    start = max(analysis, retrieval)
    return start + total, (start + before_first if seen_writer else 0.0)


def check_store(
    data_dir: Path, load: Load, args: argparse.Namespace
) -> tuple[dict[str, Any], dict[tuple[str, int], dict[str, Any]]]:
    """Every turn sent must be stored exactly once, with the texts sent and streamed."""
    from sqlalchemy import create_engine, select

    from frontdesk.store.models import Conversation, Message, Trace

    engine = create_engine(f"sqlite:///{data_dir / 'frontdesk.db'}")
    stored: dict[str, dict[int, dict[str, str]]] = {}
    traces: dict[tuple[str, int], dict[str, Any]] = {}
    with engine.connect() as db:
        rows = db.execute(
            select(Conversation.session_id, Message.turn, Message.role, Message.content)
            .join(Message, Message.conversation_id == Conversation.id)
            .where(Conversation.site_id == "demo")
        )
        for session, turn, role, content in rows:
            stored.setdefault(session, {}).setdefault(turn, {})[role] = content
        for session, turn, nodes, latency in db.execute(
            select(Trace.session_id, Trace.turn, Trace.nodes, Trace.latency_ms).where(
                Trace.site_id == "demo"
            )
        ):
            traces[(session, turn)] = {"nodes": nodes, "latency_ms": latency}
    engine.dispose()
    by_session: dict[str, list[TurnSample]] = {}
    for sample in load.samples:
        by_session.setdefault(sample.session, []).append(sample)
    lost = extra = mismatched = incomplete_sessions = missing_traces = 0
    for session, samples in by_session.items():
        turns = stored.get(session, {})
        pairs = {t for t, roles in turns.items() if {"user", "assistant"} <= roles.keys()}
        users = sum("user" in r for r in turns.values())
        assistants = sum("assistant" in r for r in turns.values())
        if users != args.turns or assistants != args.turns or len(pairs) != args.turns:
            incomplete_sessions += 1
        lost += max(0, len(samples) - len(pairs))
        extra += max(0, len(turns) - len(samples))
        for sample in sorted(samples, key=lambda s: s.index):
            roles = turns.get(sample.index + 1, {})
            answered = sample.error is None and roles.get("assistant") != sample.answer
            if roles.get("user") != sample.message or answered:
                mismatched += 1
            if sample.error is None and (session, sample.index + 1) not in traces:
                missing_traces += 1
    return {
        "sessions_checked": len(by_session),
        "sessions_incomplete": incomplete_sessions,
        "turns_sent": len(load.samples),
        "turns_stored": sum(len(t) for s, t in stored.items() if s in by_session),
        "lost_turns": lost,
        "extra_turns": extra,
        "mismatched_texts": mismatched,
        "missing_traces": missing_traces,
    }, traces


def node_breakdown(traces: dict[tuple[str, int], dict[str, Any]], top: int = 8) -> list[Any]:
    """Where server time goes: mean and p95 per graph node / LLM job over all traces."""
    per: dict[str, list[float]] = {}
    for trace in traces.values():
        for node in trace["nodes"] or []:
            if node["node"] == "first_token":
                continue  # an offset from the start of the turn, not a node
            per.setdefault(node["node"], []).append(float(node["ms"]))
    rows = [
        (name, round(sum(v) / len(v), 1), round(pct(v, 95) or 0.0, 1), len(v))
        for name, v in per.items()
    ]
    return sorted(rows, key=lambda r: -r[1] * r[3])[:top]


# -- the run -------------------------------------------------------------------------------
def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    data_dir, sites, logs = folder / "data", folder / "sites", folder / "logs"
    logs.mkdir(parents=True)
    provider: subprocess.Popen[bytes] | None = None
    server: subprocess.Popen[bytes] | None = None
    result: dict[str, Any] = {}
    try:
        base_url = ""
        if args.engine == "llm":
            provider, base_url = start_provider(args, logs / "provider.log")
        site = write_site(sites, args, base_url)
        env = server_env(data_dir, sites, args)
        err.print(f"ingesting the demo knowledge base into {data_dir} …")
        ingest_s = ingest(env, logs / "ingest.log")
        err.print(f"starting `frontdesk serve --workers {args.workers}` …")
        started = time.perf_counter()
        server, base = start_server(
            env, logs / "server.log", args.start_timeout_s, "--workers", str(args.workers)
        )
        ready_s = time.perf_counter() - started
        headers = {
            "X-Frontdesk-Key": site["widget"]["public_key"],
            "Origin": base,  # the demo site allows the origin it is served on (`self`)
        }
        warm = asyncio.run(warm_up(base, headers, args.warmup_turns, args.timeout_s))
        load = Load()
        server_before = tree_cpu_s(server.pid)
        cpu_before = {"client": time.process_time()}
        if provider is not None:
            cpu_before["provider"] = cpu_s(provider.pid)
        with RssSampler(server.pid, load) as sampler:
            rss_ready = sampler.samples[0][1]
            elapsed = asyncio.run(drive(args, base, headers, load, sampler))
        server_after = tree_cpu_s(server.pid)
        by_process = {p: t - server_before.get(p, 0.0) for p, t in server_after.items()}
        cpu = {
            "server": sum(by_process.values()),
            "client": time.process_time() - cpu_before["client"],
        }
        if provider is not None:
            cpu["provider"] = cpu_s(provider.pid) - cpu_before["provider"]
        server_hwm = tree_hwm_mb(server.pid)
        stop_s = stop(server)
        server_exit = server.returncode
        server = None
        store, traces = check_store(data_dir, load, args)
        result = report(args, load, sampler, elapsed, traces, store)
        with (folder / "turns.jsonl").open("w", encoding="utf-8") as out:  # for --keep
            for sample in load.samples:
                trace = traces.get((sample.session, sample.index + 1)) or {}
                calls = [n for n in trace.get("nodes") or [] if n["node"].startswith("llm:")]
                row = {k: v for k, v in vars(sample).items() if k != "answer"}
                row["server_ms"] = trace.get("latency_ms")
                row["simulated_s"] = simulated_s(calls, args) if args.engine == "llm" else None
                row["llm_calls"] = [c["node"] for c in calls]
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        result["warmup_turns_ms"] = [ms(w.latency_s) if w.error is None else w.error for w in warm]
        log_text = (logs / "server.log").read_text(encoding="utf-8", errors="replace")
        result["server"] = {
            "ready_s": round(ready_s, 1),
            "ingest_s": round(ingest_s, 1),
            "rss_ready_mb": round(rss_ready, 1),
            "vm_hwm_mb": round(server_hwm, 1),
            "stop_s": round(stop_s, 1),
            "exit_code": server_exit,
            "graceful_stop": "Application shutdown complete" in log_text,
            "log_errors": sum(
                " ERROR " in line or "Traceback" in line for line in log_text.splitlines()
            ),
        }
        result["cpu_s"] = {k: round(v, 1) for k, v in cpu.items()}
        if args.workers > 1:  # how the load spread: supervisor first, then its children
            result["server_cpu_s_by_process"] = [round(v, 1) for v in by_process.values()]
        ok_turns = result["ok_turns"]
        result["server_cpu_ms_per_turn"] = (
            round(cpu["server"] * 1000 / ok_turns, 1) if ok_turns else None
        )
        if result["server"]["log_errors"]:
            tail = [line for line in log_text.splitlines() if "ERROR" in line][-5:]
            result["server"]["log_error_tail"] = tail
    finally:
        stop(server)
        stop(provider, timeout_s=10)
        delete_redis_keys(args)
    return result


def report(
    args: argparse.Namespace,
    load: Load,
    sampler: RssSampler,
    elapsed: float,
    traces: dict[tuple[str, int], dict[str, Any]],
    store: dict[str, Any],
) -> dict[str, Any]:
    ok = [s for s in load.samples if s.error is None]
    errors = Counter(s.error for s in load.samples if s.error is not None)
    latencies = [s.latency_s for s in ok]
    ttfts = [s.ttft_s for s in ok if s.ttft_s is not None]
    total = args.sessions * args.turns
    rss = [value for _, value, _ in sampler.samples]
    at_10 = sampler.at_progress(0.10, total)
    end = rss[-1] if rss else None
    server_ms = [
        traces[(s.session, s.index + 1)]["latency_ms"] / 1000
        for s in ok
        if (s.session, s.index + 1) in traces
    ]
    result: dict[str, Any] = {
        "engine": args.engine if args.engine == "local" else f"llm/{args.routing_mode}",
        "workers": args.workers,
        "sessions": args.sessions,
        "turns_per_session": args.turns,
        "think_ms": args.think_ms,
        "ramp_s": args.ramp_s,
        "turns": len(load.samples),
        "ok_turns": len(ok),
        "elapsed_s": round(elapsed, 2),
        "turns_per_s": round(len(ok) / elapsed, 1) if elapsed else 0.0,
        "peak_in_flight": load.peak_in_flight,
        "mean_in_flight": round(sum(s.latency_s for s in load.samples) / elapsed, 1)
        if elapsed
        else 0.0,
        "latency_ms": summary_ms(latencies),
        "ttft_ms": summary_ms(ttfts),
        "server_turn_ms": summary_ms(server_ms),
        "turns_without_tokens": sum(s.ttft_s is None for s in ok),
        "ttft_over_widget_timeout": sum(t > WIDGET_FIRST_TOKEN_S for t in ttfts),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "routes": dict(Counter(s.route for s in ok)),
        "rss_mb": {
            "peak": round(max(rss), 1) if rss else None,
            "start": round(rss[0], 1) if rss else None,
            "at_10pct": round(at_10, 1) if at_10 is not None else None,
            "end": round(end, 1) if end is not None else None,
            "growth_10pct_to_end": round(end - at_10, 1)
            if end is not None and at_10 is not None
            else None,
            "by_progress": {
                f"{q}%": round(v, 1)
                for q in (10, 25, 50, 75, 100)
                if (v := sampler.at_progress(q / 100, total)) is not None
            },
        },
        "client_loop_lag_ms": {
            "p95": round(pct(load.loop_lag_ms, 95) or 0.0, 1),
            "max": round(max(load.loop_lag_ms, default=0.0), 1),
        },
        "store": store,
        "rate_limits_raised": RATE_LIMITS,
        "slowest_nodes_ms": node_breakdown(
            {key: traces[key] for s in ok if (key := (s.session, s.index + 1)) in traces}
        ),
    }
    if args.engine == "llm":
        added, added_ttft, sim_total = [], [], []
        for s in ok:
            trace = traces.get((s.session, s.index + 1))
            if trace is None:
                continue
            calls = [n for n in trace["nodes"] or [] if str(n["node"]).startswith("llm:")]
            whole, first = simulated_s(calls, args)
            sim_total.append(whole)
            added.append(s.latency_s - whole)
            if s.ttft_s is not None and first:
                added_ttft.append(s.ttft_s - first)
        result["simulator"] = {
            "classify_ms": args.sim_classify_ms,
            "first_token_ms": args.sim_first_token_ms,
            "tokens_per_s": args.sim_tokens_per_s,
            "turn_share_ms": summary_ms(sim_total),
        }
        result["added_latency_ms"] = summary_ms(added)
        result["added_ttft_ms"] = summary_ms(added_ttft)
    growth = result["rss_mb"]["growth_10pct_to_end"]
    targets: dict[str, bool] = {
        "no_errors": result["errors"] == 0,
        "no_lost_turns": store["lost_turns"] == 0 and store["mismatched_texts"] == 0,
    }
    if args.engine == "llm":
        p95 = result["added_latency_ms"]["p95"]
        targets["sessions_ge_500"] = args.sessions >= 500
        targets["added_p95_lt_100ms"] = p95 is not None and p95 < 100
    else:
        targets["turns_per_s_ge_150"] = result["turns_per_s"] >= 150
    if args.soak:
        at = result["rss_mb"]["at_10pct"]
        targets["memory_flat_le_5pct"] = growth is not None and at and growth <= 0.05 * at
    result["targets"] = targets
    return result


def render(result: dict[str, Any], args: argparse.Namespace) -> None:
    def row3(d: dict[str, Any]) -> str:
        return " / ".join("–" if d.get(k) is None else f"{d[k]:.0f}" for k in ("p50", "p95", "p99"))

    workers = result["workers"]
    title = (
        f"{result['sessions']} sessions × {result['turns_per_session']} turns, "
        f"engine {result['engine']}, "
        + (f"{workers} workers (locks and limits in Redis), " if workers > 1 else "1 worker, ")
        + f"think {result['think_ms']} ms ±50 %, ramp {result['ramp_s']} s"
    )
    table = Table("metric", "value", title=title, title_justify="left")
    table.add_row(
        "throughput",
        f"{result['turns_per_s']} turns/s ({result['ok_turns']} ok turns in "
        f"{result['elapsed_s']} s; in flight: peak {result['peak_in_flight']}, "
        f"mean {result['mean_in_flight']})",
    )
    table.add_row("turn latency p50/p95/p99 (ms)", row3(result["latency_ms"]))
    table.add_row("TTFT p50/p95/p99 (ms)", row3(result["ttft_ms"]))
    if "added_latency_ms" in result:
        sim = result["simulator"]
        table.add_row(
            "simulator",
            f"classify {sim['classify_ms']} ms, first token {sim['first_token_ms']} ms, "
            f"{sim['tokens_per_s']} tokens/s; its share of a turn p50 "
            f"{sim['turn_share_ms']['p50']} ms",
        )
        table.add_row("added latency p50/p95/p99 (ms)", row3(result["added_latency_ms"]))
        table.add_row("added TTFT p50/p95/p99 (ms)", row3(result["added_ttft_ms"]))
    table.add_row("server-side turn p50/p95/p99 (ms)", row3(result["server_turn_ms"]))
    kinds = ", ".join(f"{k}: {v}" for k, v in result["error_kinds"].items())
    table.add_row("errors", f"{result['errors']}" + (f" ({kinds})" if kinds else ""))
    table.add_row(
        "turns without tokens / TTFT > 10 s",
        f"{result['turns_without_tokens']} / {result['ttft_over_widget_timeout']}",
    )
    rss = result["rss_mb"]
    table.add_row(
        "server RSS (MB)",
        f"peak {rss['peak']}, ready {rss['start']}, at 10 % {rss['at_10pct']}, end {rss['end']} "
        f"(growth {rss['growth_10pct_to_end']}); VmHWM {result['server']['vm_hwm_mb']}\n"
        "by progress: " + ", ".join(f"{k} {v}" for k, v in rss["by_progress"].items()),
    )
    table.add_row(
        "CPU seconds",
        ", ".join(f"{k} {v}" for k, v in result["cpu_s"].items())
        + f"; server per turn {result['server_cpu_ms_per_turn']} ms"
        + (
            f" (by process: {', '.join(map(str, result['server_cpu_s_by_process']))})"
            if "server_cpu_s_by_process" in result
            else ""
        ),
    )
    lag = result["client_loop_lag_ms"]
    table.add_row("client loop lag (ms)", f"p95 {lag['p95']}, max {lag['max']}")
    store = result["store"]
    table.add_row(
        "lost turns",
        f"{store['lost_turns']} (stored {store['turns_stored']} of {store['turns_sent']}; "
        f"sessions incomplete {store['sessions_incomplete']}, extra {store['extra_turns']}, "
        f"mismatched texts {store['mismatched_texts']}, missing traces "
        f"{store['missing_traces']})",
    )
    table.add_row("routes", ", ".join(f"{k}: {v}" for k, v in result["routes"].items()))
    server = result["server"]
    table.add_row(
        "warm-up turns before the load (ms)",
        ", ".join(str(w) for w in result["warmup_turns_ms"]) or "none",
    )
    table.add_row(
        "server",
        f"ready in {server['ready_s']} s (ingest {server['ingest_s']} s), stopped in "
        f"{server['stop_s']} s ({'graceful' if server['graceful_stop'] else 'NOT graceful'}, "
        f"exit {server['exit_code']}), ERROR lines {server['log_errors']}",
    )
    table.add_row(
        "slowest nodes (mean/p95 ms, n)",
        "\n".join(f"{n}: {a} / {p} ({c})" for n, a, p, c in result["slowest_nodes_ms"]),
    )
    verdicts = ", ".join(f"{k} {'PASS' if v else 'FAIL'}" for k, v in result["targets"].items())
    table.add_row("targets", verdicts)
    console.print(table)
    console.print(
        "rate limits of the copied site raised (every client is 127.0.0.1): "
        + ", ".join(f"{k}={v}" for k, v in RATE_LIMITS.items()),
        highlight=False,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["local", "llm"], default="local")
    parser.add_argument(
        "--workers", type=int, default=1, help="`frontdesk serve --workers N` (N > 1: Redis)"
    )
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/0",
        help="Redis for the workers' locks and limits (with --workers > 1)",
    )
    parser.add_argument("--sessions", type=int, default=None, help="concurrent sessions N")
    parser.add_argument("--turns", type=int, default=None, help="turns per session M")
    parser.add_argument("--soak", action="store_true", help="preset: 200 sessions × 10 turns")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help=f"pause between a session's turns, ±50 %% (default: local 0, llm {LLM_THINK_MS:.0f})",
    )
    parser.add_argument(
        "--ramp-s", type=float, default=None, help="spread session starts (default: think time)"
    )
    parser.add_argument("--routing-mode", choices=["hybrid", "llm"], default="hybrid")
    parser.add_argument("--sim-classify-ms", type=float, default=300.0)
    parser.add_argument("--sim-first-token-ms", type=float, default=400.0)
    parser.add_argument("--sim-tokens-per-s", type=float, default=20.0)
    parser.add_argument("--timeout-s", type=float, default=120.0, help="client read timeout")
    parser.add_argument("--start-timeout-s", type=float, default=300.0)
    parser.add_argument("--server-log-level", default="INFO")
    parser.add_argument(
        "--warmup-turns", type=int, default=2, help="turns of one session before the load"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    args.redis_prefix = f"fdload:{uuid.uuid4().hex[:10]}:"
    args.sessions = args.sessions or (SOAK["sessions"] if args.soak else 50)
    args.turns = args.turns or (SOAK["turns"] if args.soak else 3)
    if args.think_ms is None:
        args.think_ms = LLM_THINK_MS if args.engine == "llm" else 0.0
    if args.ramp_s is None:
        args.ramp_s = args.think_ms / 1000
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-load-"))
    try:
        result = run(args, folder)
    finally:
        if args.keep:
            err.print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    render(result, args)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
