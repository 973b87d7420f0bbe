"""Visitors while a site syncs: another tenant's turn latency idle vs during a crawl.

    PYTHONPATH=src:. .venv/bin/python benchmarks/crawl_isolation.py
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]  # a fresh database
        [--crawl-processes 1]      # 0: the crawl runs inside the API process (the old way)
        [--turns 60] [--pages 1500] [--sitemaps 200] [--urls-per-sitemap 50000] [--json]

What runs:
- a "big" website on loopback in a process of its own (tests/support/hostile_site.py) at
  the lowest CPU priority (it stands in for a remote site, whose CPU would not be this
  machine's): a sitemap index of `--sitemaps` sitemaps × `--urls-per-sitemap` URLs,
  pages of a few paragraphs each;
- one real `frontdesk serve` (SQLite by default, or a new database on `--database-url`)
  with two sites: the demo site (its knowledge base ingested first) and `bigsite`, whose
  web source is the big website with `max_pages: --pages` and the default embedding;
- once the server is quiet (its start-up work done): idle, `--turns` visitor turns on the
  demo site, `--pause-s` apart (`POST /v1/ask`, a new session and a new wording each, so
  no cache answers), each followed by a `/healthz` ping;
- then the admin API starts the crawl of `bigsite` and turns and pings run for as long as
  it is running (at most `--max-during-turns`; one that ends after the crawl is not
  counted).

Printed: turn p50/p95 idle, during the crawl (also per 20 s of it) and idle again after
it (how much the shared machine drifted), the ratio of the first two (target:
during-crawl p95 ≤ 1.5 × idle p95), /healthz p50, the API process's RSS before, at its
peak during and after the crawl (the crawl process's own peak apart), and the crawl's
summary.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import yaml

from frontdesk.settings import DEMO_DIR

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the test doubles in tests/support are not shipped
from benchmarks.load import cpu_s, descendants, ms, pct, start_server, status_kb, stop  # noqa: E402

ADMIN_KEY = "fd-admin-bench-key-0123456789"
RATE_LIMITS = {
    "per_session_per_minute": 100_000,
    "per_ip_per_minute": 10_000_000,
    "per_site_per_day": 100_000_000,
}
QUESTIONS = [
    "Do you support SAML single sign-on?",
    "What is your uptime SLA?",
    "Which regions can my data be stored in?",
    "How do I rotate an API key?",
    "How long do you keep audit logs?",
    "Can I export my data?",
    "What is Tessellate Flow?",
    "How do I cancel my subscription?",
]
SERVE_SITE = """
import sys, time
from frontdesk.knowledge.web.runner import lower_priority
from tests.support.hostile_site import HostileSite
lower_priority()  # it stands in for a remote website: its CPU would not be this machine's
site = HostileSite(sitemaps=int(sys.argv[1]), urls_per_sitemap=int(sys.argv[2]), paragraphs=8)
site.__enter__()
print(site.url, flush=True)
while True:
    time.sleep(3600)
"""


# -- processes -----------------------------------------------------------------------------
def wait_quiet(pid: int, timeout_s: float = 600) -> float:
    """Wait until the server is idle (its start-up work, e.g. the trust report queued by
    the ingest, is done): under 5 % of a core for 3 s in a row. Seconds waited."""
    started = time.monotonic()
    quiet = 0
    last = cpu_s(pid)
    while quiet < 3 and time.monotonic() - started < timeout_s:
        time.sleep(1)
        now = cpu_s(pid)
        quiet = quiet + 1 if now - last < 0.05 else 0
        last = now
    return time.monotonic() - started


def rss_mb(pid: int) -> float:
    """Resident memory of the process alone (its children are counted apart)."""
    return status_kb(pid, "VmRSS") / 1024


class RssWatch:
    """Peak RSS of the API process and of its children (the crawl process), sampled."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.api_peak = 0.0
        self.children_peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            self.api_peak = max(self.api_peak, rss_mb(self.pid))
            children = sum(rss_mb(child) for child in descendants(self.pid))
            self.children_peak = max(self.children_peak, children)

    def __enter__(self) -> RssWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


# -- setup ---------------------------------------------------------------------------------
def write_sites(sites: Path, big_url: str, pages: int) -> dict[str, Any]:
    demo: dict[str, Any] = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text("utf-8"))
    demo["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    demo["rate_limits"] = dict(RATE_LIMITS)
    big = {
        "id": "bigsite",
        "name": "Big Site",
        "widget": {"public_key": "pk_bigsite_bench_00000001", "allowed_origins": []},
        "business_hours": {"timezone": "UTC"},
        "knowledge": {
            "sources": [{"url": big_url + "/", "allow_private_network": True, "max_pages": pages}]
        },
    }
    sites.mkdir(parents=True, exist_ok=True)
    (sites / "demo.yaml").write_text(yaml.safe_dump(demo, allow_unicode=True), "utf-8")
    (sites / "bigsite.yaml").write_text(yaml.safe_dump(big), "utf-8")
    return demo


def server_env(folder: Path, args: argparse.Namespace) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")}
    env |= {
        "FRONTDESK_DATA_DIR": str(folder / "data"),
        "FRONTDESK_SITES_DIR": str(folder / "sites"),
        "FRONTDESK_DEMO_SITE": "false",
        "FRONTDESK_LOG_LEVEL": "WARNING",
        "FRONTDESK_ADMIN_API_KEY_HASH": hashlib.sha256(ADMIN_KEY.encode()).hexdigest(),
        "FRONTDESK_CRAWL_PROCESSES": str(args.crawl_processes),
        # The trust report a sync queues would run in the API process after the crawl,
        # inside the "idle after" phase; `frontdesk worker` runs it in production.
        "FRONTDESK_TRUST_IN_PROCESS": "false",
        "PYTHONPATH": f"{REPO / 'src'}:{REPO}",
    }
    if args.database_url:
        env["FRONTDESK_DATABASE_URL"] = args.database_url
    return env


@contextlib.contextmanager
def fresh_postgres(url: str) -> Any:
    """A database of the run's own on the server of `url`, dropped afterwards."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"fd_crawl_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(
        make_url(url).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


# -- measuring -----------------------------------------------------------------------------
def by_window(samples: list[tuple[float, float]], window_s: float) -> list[dict[str, Any]]:
    """Turn latency p50/p95 per `window_s` of the crawl: which phase of it costs what."""
    windows: dict[int, list[float]] = {}
    for at, latency in samples:
        windows.setdefault(int(at // window_s), []).append(latency)
    return [
        {
            "from_s": int(k * window_s),
            "turns": len(values),
            "p50_ms": ms(pct(values, 50)),
            "p95_ms": ms(pct(values, 95)),
        }
        for k, values in sorted(windows.items())
    ]


def turn(client: httpx.Client, headers: dict[str, str], k: int) -> float:
    # A new wording each time: a repeated question would be answered from the caches.
    message = f"{QUESTIONS[k % len(QUESTIONS)]} We are team {uuid.uuid4().hex[:6]}."
    body = {"message": message, "session_id": str(uuid.uuid4())}
    started = time.perf_counter()
    response = client.post("/v1/ask", json=body, headers=headers)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"turn {k}: HTTP {response.status_code} {response.text[:200]}")
    return elapsed


def healthz(client: httpx.Client) -> float:
    started = time.perf_counter()
    client.get("/healthz").raise_for_status()
    return time.perf_counter() - started


def crawl_status(client: httpx.Client, run_id: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    run: dict[str, Any] = client.get(
        f"/v1/admin/sites/bigsite/crawls/{run_id}", headers=headers
    ).json()
    return run


timeline: list[tuple[float, float]] = []  # (seconds into the phase, latency) of its turns


def phase(
    client: httpx.Client,
    headers: dict[str, str],
    turns: int,
    running: Any = None,
    pause_s: float = 0.0,
) -> tuple[list[float], list[float]]:
    """`turns` turns and a /healthz ping after each; with `running`, only while it says so."""
    latencies: list[float] = []
    pings: list[float] = []
    timeline.clear()
    t0 = time.perf_counter()
    for k in range(turns):
        if running is not None and not running():
            break
        time.sleep(pause_s)
        latency = turn(client, headers, k)
        if running is not None and not running():
            break  # finished after the crawl: not "during"
        latencies.append(latency)
        timeline.append((time.perf_counter() - t0, latency))
        pings.append(healthz(client))
    return latencies, pings


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    site_process = subprocess.Popen(
        [sys.executable, "-c", SERVE_SITE, str(args.sitemaps), str(args.urls_per_sitemap)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{REPO / 'src'}:{REPO}"},
    )
    server: subprocess.Popen[bytes] | None = None
    try:
        assert site_process.stdout is not None
        big_url = site_process.stdout.readline().strip()
        demo = write_sites(folder / "sites", big_url, args.pages)
        env = server_env(folder, args)
        ingest = [sys.executable, "-m", "frontdesk", "kb", "ingest", "demo", "--no-progress"]
        done = subprocess.run(ingest, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"`frontdesk kb ingest demo` failed:\n{done.stdout}{done.stderr}")
        server, base = start_server(env, folder / "server.log", 300)
        headers = {
            "X-Frontdesk-Key": demo["widget"]["public_key"],
            "Origin": base,  # the demo site allows the origin it is served on (`self`)
        }
        with httpx.Client(base_url=base, timeout=120) as client:
            phase(client, headers, 5)  # warm-up
            wait_quiet(server.pid)
            rss_before = rss_mb(server.pid)
            idle, idle_pings = phase(client, headers, args.turns, pause_s=args.pause_s)
            admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
            started = time.perf_counter()
            response = client.post("/v1/admin/sites/bigsite/crawls", headers=admin)
            start_s = time.perf_counter() - started
            if response.status_code != 202:
                raise RuntimeError(f"crawl not started: {response.status_code} {response.text}")
            run_id = response.json()["runs"][0]["id"]
            time.sleep(args.settle_s)  # the crawl process starts and reads the sitemaps

            def running() -> bool:
                return bool(crawl_status(client, run_id)["status"] == "running")

            with RssWatch(server.pid) as watch:
                during, during_pings = phase(
                    client, headers, args.max_during_turns, running, args.pause_s
                )
                while running():
                    time.sleep(1)
            during_timeline = list(timeline)
            crawl = crawl_status(client, run_id)
            rss_after = rss_mb(server.pid)
            # Idle again once the server is quiet: how much the machine itself drifted.
            wait_quiet(server.pid)
            idle_after, _ = phase(client, headers, args.turns, pause_s=args.pause_s)
        summary = crawl.get("summary", {})
        during_p95, idle_p95 = pct(during, 95), pct(idle, 95)
        return {
            "database": "postgresql" if args.database_url else "sqlite",
            "crawl_processes": args.crawl_processes,
            "crawl_start_ms": ms(start_s),
            "idle": {
                "turns": len(idle),
                "p50_ms": ms(pct(idle, 50)),
                "p95_ms": ms(pct(idle, 95)),
                "healthz_p50_ms": ms(pct(idle_pings, 50)),
            },
            "during_crawl": {
                "turns": len(during),
                "p50_ms": ms(pct(during, 50)),
                "p95_ms": ms(pct(during, 95)),
                "healthz_p50_ms": ms(pct(during_pings, 50)),
            },
            "idle_after": {
                "turns": len(idle_after),
                "p50_ms": ms(pct(idle_after, 50)),
                "p95_ms": ms(pct(idle_after, 95)),
            },
            "p95_ratio": round(during_p95 / idle_p95, 2) if during_p95 and idle_p95 else None,
            "during_by_20s": by_window(during_timeline, 20.0),
            "api_rss_mb": {
                "before": round(rss_before, 1),
                "peak_during": round(watch.api_peak, 1),
                "after": round(rss_after, 1),
            },
            "crawl_process_peak_rss_mb": round(watch.children_peak, 1),
            "crawl": {
                "status": crawl.get("status"),
                "found": summary.get("found"),
                "changed": summary.get("changed"),
                "chunks_embedded": summary.get("chunks_embedded"),
                "seconds": summary.get("seconds"),
                "limits_reached": summary.get("limits_reached"),
                "error": crawl.get("error"),
            },
        }
    finally:
        stop(server)
        site_process.terminate()
        site_process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default="", help="PostgreSQL server (a fresh db)")
    parser.add_argument("--crawl-processes", type=int, default=1)
    parser.add_argument("--turns", type=int, default=60, help="idle turns")
    parser.add_argument(
        "--max-during-turns", type=int, default=400, help="turns while the crawl runs, at most"
    )
    parser.add_argument("--pages", type=int, default=1500, help="max_pages of the crawl")
    parser.add_argument("--sitemaps", type=int, default=200)
    parser.add_argument("--urls-per-sitemap", type=int, default=50_000)
    parser.add_argument("--settle-s", type=float, default=3.0)
    parser.add_argument("--pause-s", type=float, default=0.2, help="between a visitor's turns")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fd-crawl-isolation-") as tmp:
        if args.database_url:
            with fresh_postgres(args.database_url) as url:
                args.database_url = url
                result = run(args, Path(tmp))
        else:
            result = run(args, Path(tmp))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    idle, during = result["idle"], result["during_crawl"]
    print(f"store: {result['database']}, crawl processes: {result['crawl_processes']}")
    print(f"POST /crawls answered in {result['crawl_start_ms']} ms")
    print(
        f"turn p50/p95 idle   {idle['p50_ms']} / {idle['p95_ms']} ms ({idle['turns']} turns), "
        f"/healthz p50 {idle['healthz_p50_ms']} ms"
    )
    print(
        f"turn p50/p95 crawl  {during['p50_ms']} / {during['p95_ms']} ms "
        f"({during['turns']} turns), /healthz p50 {during['healthz_p50_ms']} ms"
    )
    after = result["idle_after"]
    print(f"turn p50/p95 idle after the crawl {after['p50_ms']} / {after['p95_ms']} ms")
    print(f"p95 during / idle   {result['p95_ratio']} (target ≤ 1.5)")
    for window in result["during_by_20s"]:
        print(
            f"  crawl +{window['from_s']:>4} s: {window['turns']:>3} turns, "
            f"p50 {window['p50_ms']} ms, p95 {window['p95_ms']} ms"
        )
    rss = result["api_rss_mb"]
    print(
        f"API RSS MB          before {rss['before']}, peak during {rss['peak_during']}, "
        f"after {rss['after']}; crawl process peak {result['crawl_process_peak_rss_mb']}"
    )
    print(f"crawl               {json.dumps(result['crawl'])}")


if __name__ == "__main__":
    main()
