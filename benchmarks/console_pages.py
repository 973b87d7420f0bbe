"""Console page latency with 10,000 conversations in the store, on SQLite and PostgreSQL.

    PYTHONPATH=src .venv/bin/python benchmarks/console_pages.py [--conversations 10000]
        [--requests 40] [--backend sqlite|postgres|both] [--json]

The store is filled through SQLAlchemy Core (fast bulk inserts of realistic rows: two
turns per conversation over 60 days, routes and outcomes mixed, a trace per turn, some
handoffs with failed deliveries and some leads), then every console page is requested
`--requests` times in-process by a signed-in operator (ASGI, no network) and its median
and p95 printed. On PostgreSQL the tables are analysed after the bulk load, as
autovacuum would have done for a store that grew to this size. Target: p95 < 300 ms.
PostgreSQL needs a server on 127.0.0.1:5432 (user postgres, trust); a throwaway
database is created and dropped.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text

from frontdesk.api.app import create_app
from frontdesk.console.passwords import hash_password
from frontdesk.conversation.payload import TurnEvent, TurnResult, VisitorContext
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.db import transaction
from frontdesk.store.models import Conversation, Handoff, Lead, Message, OutboxItem, Trace
from frontdesk.store.operators import OperatorRepository
from frontdesk.store.widget import AnswerFeedback

SITE = "demo"
EMAIL, PASSWORD = "bench@console.test", "benchmark password"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
TARGET_MS = 300.0
QUESTIONS = [
    "How do I reset my password?",
    "What does the enterprise plan include?",
    "Can I export my data to CSV?",
    "Do you support single sign-on?",
    "I want to talk to a person",
    "Which integrations are available?",
    "How long is the free trial?",
    "Is there an on-premise version?",
]
ROUTINGS = ["answered"] * 6 + ["cannot_answer", "low_confidence", "out_of_scope", "followup"]


class _NoChat:
    """The pages never chat; a turn here would be a benchmark bug."""

    def stream_turn(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> AsyncIterator[TurnEvent]:
        raise RuntimeError("the console benchmark runs no turns")

    async def ask(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> TurnResult:
        raise RuntimeError("the console benchmark runs no turns")


def fill(runtime: Runtime, conversations: int, seed: int = 7) -> str:
    """Bulk-insert the rows; returns one session id to open as a transcript."""
    rng = random.Random(seed)
    now = datetime.now(UTC)
    convs, messages, traces, handoffs, outbox, leads = [], [], [], [], [], []
    votes: list[dict[str, Any]] = []
    sample = ""
    for n in range(conversations):
        conv_id, session_id = str(uuid.uuid4()), str(uuid.uuid4())
        sample = sample or session_id
        started = now - timedelta(minutes=rng.randrange(60 * 24 * 60))
        convs.append(
            {
                "id": conv_id,
                "site_id": SITE,
                "session_id": session_id,
                "language": rng.choice(["en", "en", "en", "de", "fr"]),
                "turn_count": 2,
                "started_at": started,
                "last_activity_at": started + timedelta(minutes=2),
            }
        )
        for turn in (1, 2):
            at = started + timedelta(minutes=turn)
            routing = rng.choice(ROUTINGS)
            route = "HANDOFF" if turn == 2 and n % 30 == 0 else "ANSWER"
            question = rng.choice(QUESTIONS) + ("" if turn == 1 else " Thanks.")
            messages.append(
                {
                    "conversation_id": conv_id,
                    "turn": turn,
                    "role": "user",
                    "content": question,
                    "route": None,
                    "routing": None,
                    "intent": None,
                    "details": {},
                    "created_at": at,
                }
            )
            messages.append(
                {
                    "conversation_id": conv_id,
                    "turn": turn,
                    "role": "assistant",
                    "content": "An answer drawn from the knowledge base [1]. " * 4,
                    "route": route,
                    "routing": routing,
                    "intent": "learn",
                    "details": {
                        "lead": rng.choice(["cold", "cold", "warm", "hot"]),
                        "citations": [{"index": 1, "doc_id": "doc-1", "title": "Doc"}],
                    },
                    "created_at": at,
                }
            )
            traces.append(
                {
                    "site_id": SITE,
                    "session_id": session_id,
                    "turn": turn,
                    "route": route,
                    "routing": routing,
                    "intent": "learn",
                    "engine": "local",
                    "latency_ms": rng.uniform(80, 900),
                    "tokens_in": 0,
                    "tokens_out": 0,
                    "cost_usd": 0.0,
                    "nodes": [
                        {"node": "intent_classifier", "ms": 0.4},
                        {"node": "first_token", "ms": rng.uniform(40, 600)},
                    ],
                    "retrieval": [{"chunk_id": "doc-1#0", "doc_id": "doc-1", "score": 0.61}],
                    "citations": [],
                    "created_at": at,
                }
            )
        if n % 30 == 0:
            handoff_id = str(uuid.uuid4())
            handoffs.append(
                {
                    "id": handoff_id,
                    "site_id": SITE,
                    "session_id": session_id,
                    "reason": "explicit_request",
                    "business_hours": True,
                    "packet": {"summary": "Visitor asked for a person"},
                    "status": "partial_failure",
                    "created_at": started,
                }
            )
            for channel, status in (("crm", "delivered"), ("webhook:0", "failed")):
                outbox.append(
                    {
                        "handoff_id": handoff_id,
                        "site_id": SITE,
                        "channel": channel,
                        "idempotency_key": f"{SITE}:{session_id}:2:{channel}",
                        "payload": {},
                        "status": status,
                        "attempts": 1,
                        "next_attempt_at": started,
                        "last_error": "HTTP 500" if status == "failed" else None,
                        "created_at": started,
                    }
                )
        if n % 10 == 0:  # one conversation in ten has a visitor's vote, a third of them 👎
            votes.append(
                {
                    "site_id": SITE,
                    "session_id": session_id,
                    "turn": 1,
                    "rating": "down" if n % 30 == 0 else "up",
                    "comment": "Not what I asked." if n % 30 == 0 else None,
                    "created_at": started,
                    "updated_at": started,
                }
            )
        if n % 50 == 0:
            leads.append(
                {
                    "id": str(uuid.uuid4()),
                    "site_id": SITE,
                    "session_id": session_id,
                    "idempotency_key": f"{SITE}:{session_id}:booking",
                    "email": f"visitor{n}@example.test",
                    "level": "hot",
                    "details": {},
                    "status": rng.choice(["new", "contacted", "won", "lost"]),
                    "created_at": started,
                }
            )
    tables: list[tuple[Any, list[dict[str, Any]]]] = [
        (Conversation, convs),
        (Message, messages),
        (Trace, traces),
        (Handoff, handoffs),
        (OutboxItem, outbox),
        (Lead, leads),
        (AnswerFeedback, votes),
    ]
    with transaction(runtime.sessions) as session:
        for model, rows in tables:
            for start in range(0, len(rows), 5000):
                session.execute(model.__table__.insert(), rows[start : start + 5000])
        operators = OperatorRepository(session)
        operators.grant(operators.ensure(EMAIL, hash_password(PASSWORD)), SITE, "owner")
    if runtime.engine.dialect.name == "postgresql":
        # A store that grew to this size has been analysed by autovacuum; a bulk load has
        # not, and the planner would guess row counts from empty tables.
        with runtime.engine.connect() as connection:
            connection.execute(text("ANALYZE"))
            connection.commit()
    return sample


def sign_in(client: TestClient) -> None:
    page = client.get("/console/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token
    done = client.post(
        "/console/login",
        data={"email": EMAIL, "password": PASSWORD, "csrf_token": token.group(1)},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text


def pages(sample: str) -> dict[str, str]:
    base = f"/console/sites/{SITE}"
    return {
        "inbox": f"{base}/inbox",
        "inbox live rows (htmx poll)": f"{base}/inbox?rows=1",
        "inbox filtered (route+lead)": f"{base}/inbox?route=HANDOFF&lead=hot",
        "inbox filtered (feedback 👎)": f"{base}/inbox?feedback=down",
        "inbox search (text)": f"{base}/inbox?q=single+sign-on",
        "transcript": f"{base}/conversations/{sample}",
        "leads and handoffs": f"{base}/leads",
        "analytics (30 days, cached)": f"{base}/analytics?days=30",
        "analytics (30 days, cold)": f"{base}/analytics?days=30&cold",
        "analytics (90 days, cold)": f"{base}/analytics?days=90&cold",
        "settings": f"{base}/settings",
    }


def measure(database_url: str, conversations: int, requests: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="fd-console-bench-"))
    try:
        sites = root / "sites"
        shutil.copytree(DEMO_DIR / "sites", sites)
        settings = Settings(
            data_dir=root / "data",
            sites_dir=sites,
            database_url=database_url,
            dispatch_in_process=False,
        )
        runtime = build_runtime(settings)
        started = time.perf_counter()
        sample = fill(runtime, conversations)
        fill_s = time.perf_counter() - started
        app = create_app(settings, runtime, _NoChat())
        results: dict[str, Any] = {"fill_s": round(fill_s, 1), "pages": {}}
        with TestClient(app) as client:
            sign_in(client)
            headers = {"HX-Request": "true"}
            for name, url in pages(sample).items():
                sent = headers if "rows=1" in url else {}
                client.get(url, headers=sent)  # warm: first-use caches
                timings = []
                for _ in range(requests):
                    if url.endswith("&cold"):  # every request computes the figures
                        app.state.console_analytics = {}
                    t0 = time.perf_counter()
                    response = client.get(url, headers=sent)
                    timings.append((time.perf_counter() - t0) * 1000)
                    assert response.status_code == 200, (url, response.status_code)
                timings.sort()
                p95 = timings[max(0, round(0.95 * len(timings)) - 1)]
                results["pages"][name] = {
                    "median_ms": round(statistics.median(timings), 1),
                    "p95_ms": round(p95, 1),
                }
        runtime.close()
        return results
    finally:
        shutil.rmtree(root, ignore_errors=True)


def postgres_database() -> tuple[str, Any] | None:
    try:
        import psycopg
    except ImportError:
        return None
    name = f"fd_console_bench_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        print(f"PostgreSQL skipped: {exc}", file=sys.stderr)
        return None

    def drop() -> None:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"postgresql://postgres@127.0.0.1:5432/{name}", drop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"conversations": args.conversations, "requests": args.requests}
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{Path(folder) / 'bench.db'}"
            report["sqlite"] = measure(url, args.conversations, args.requests)
    if args.backend in ("postgres", "both"):
        database = postgres_database()
        if database is not None:
            url, drop = database
            try:
                report["postgres"] = measure(url, args.conversations, args.requests)
            finally:
                drop()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        worst = 0.0
        for backend in ("sqlite", "postgres"):
            if backend not in report:
                continue
            figures = report[backend]
            print(
                f"\n{backend}: {args.conversations} conversations (filled in "
                f"{figures['fill_s']} s), {args.requests} requests per page"
            )
            print(f"  {'page':32} {'median ms':>10} {'p95 ms':>10}")
            for name, timing in figures["pages"].items():
                worst = max(worst, timing["p95_ms"])
                print(f"  {name:32} {timing['median_ms']:>10} {timing['p95_ms']:>10}")
        verdict = "meets" if worst < TARGET_MS else "MISSES"
        print(f"\nworst page p95 {worst:.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
