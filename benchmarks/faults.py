"""Fault benchmark: 200 sessions while Redis and the disk fail.

    .venv/bin/python benchmarks/faults.py [--sessions 200] [--concurrency 6]
                                          [--full-disk-s 10] [--disk-handoffs 24] [--json]

A real `frontdesk serve` on 127.0.0.1 (local engine) with its own `redis-server` on a
private port, a real webhook receiver (HTTP) and a real mailbox (SMTP, the fallback
email) on loopback. The server's data folder (SQLite store, checkpoints, index) is on a
small tmpfs of its own; the spool (`FRONTDESK_SPOOL_DIR`) is on another volume, as
docs/configuration.md recommends (`--spool-on-data-volume`: on the same tmpfs, the
default layout, so a full disk takes both and leads go by the fallback e-mail). While
the sessions run:

1. Redis is killed (SIGKILL) after 15 % of the sessions and restarted after 35 %;
2. the data volume is filled (a ballast file up to ENOSPC) after 55 % for `--full-disk-s`
   seconds, then freed — every write of the store fails with "database or disk is full".
   While it is full, `--disk-handoffs` new visitors ask for a person with their e-mail
   address (a handoff burst: their session keys cannot be written either).

One session in four asks for a human with an email address. Afterwards the spool replay
and the dispatcher get up to 90 s to finish, then the run checks, over HTTP and in the
receivers:
- acknowledged turns lost: a turn answered with a `complete` event whose visitor message
  or reply is not in the session's history (target 0);
- handoffs: every handoff acknowledged to the visitor (`complete` with `handoff`) must
  have reached the webhook receiver or the fallback mailbox (target 100 %);
- leads lost: a visitor who asked for a person with an e-mail address (answered or not)
  whose address never reached the webhook receiver or the mailbox (target 0).
Needs root (mount) and redis-server; bounded to a few minutes. Exit status 0 when both
targets hold.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from frontdesk.settings import DEMO_DIR

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))  # the test doubles in tests/ are not shipped
from tests.integration.production.replicas import Replica  # noqa: E402
from tests.support.loopback import HttpReceiver, SmtpReceiver  # noqa: E402
from tests.support.redis_server import PrivateRedis  # noqa: E402

ORIGIN = "https://faults.example"
KEY = "pk_demo_tessellate_0001"
HEADERS = {"X-Frontdesk-Key": KEY, "Origin": ORIGIN}
QUESTIONS = [
    "What is Tessellate Flow?",
    "Which integrations are available?",
    "Do you support single sign-on?",
    "How often does data sync?",
    "Can I export my data?",
]
FOLLOW_UP = "And how is it priced?"


@dataclass
class Turn:
    message: str
    wants_human: bool
    status: int = 0
    outcome: str = ""  # complete | error:<code> | refused:<status> | failed:<exception>
    turn: int = 0
    answer: str = ""
    handoff: bool = False


@dataclass
class Session:
    index: int
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    secret: str | None = None  # issued with the first turn; later turns send it
    turns: list[Turn] = field(default_factory=list)


def machine() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} CPUs"
    return platform.processor() or platform.machine()


def write_site(sites: Path, webhook_url: str) -> None:
    data: dict[str, Any] = yaml.safe_load(
        (DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8")
    )
    data["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    data["widget"]["allowed_origins"] = [*data["widget"]["allowed_origins"], ORIGIN]
    data["rate_limits"] = {
        "per_session_per_minute": 30,
        "per_ip_per_minute": 100_000,
        "per_site_per_day": 1_000_000,
    }
    data.setdefault("handoff", {})
    data["handoff"]["webhooks"] = [{"url": webhook_url}]
    data["handoff"]["fallback_email"] = "sales@faults.example"
    data["handoff"]["retry_delays_s"] = [0.5, 1.0, 2.0]
    sites.mkdir(parents=True, exist_ok=True)
    (sites / "demo.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


def mount_tmpfs(path: Path, size_mb: int) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(path)],
        check=True,
        capture_output=True,
    )


def fill(path: Path) -> int:
    """Write a ballast file until the volume is full; its size."""
    written = 0
    with path.open("wb") as ballast, contextlib.suppress(OSError):
        while True:
            written += ballast.write(b"\0" * 65536)
            ballast.flush()
    return written


async def one_turn(client: httpx.AsyncClient, url: str, session: Session, turn: Turn) -> None:
    body = {
        "message": turn.message,
        "session_id": session.session_id,
        "session_secret": session.secret,
    }
    try:
        async with client.stream("POST", f"{url}/v1/chat", json=body, headers=HEADERS) as reply:
            turn.status = reply.status_code
            session.secret = reply.headers.get("X-Frontdesk-Session-Secret", session.secret)
            if reply.status_code != 200:
                await reply.aread()
                turn.outcome = f"refused:{reply.status_code}"
                return
            name, data = "", ""
            last: tuple[str, dict[str, Any]] | None = None
            async for line in reply.aiter_lines():
                if line.startswith("event:"):
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    data = line.split(":", 1)[1].strip()
                elif not line and name:
                    if name in ("complete", "error"):
                        last = (name, json.loads(data))
                    name, data = "", ""
    except httpx.HTTPError as exc:
        turn.outcome = f"failed:{type(exc).__name__}"
        return
    if last is None:
        turn.outcome = "failed:no-final-event"
    elif last[0] == "complete":
        result = last[1]["metadata"]
        turn.outcome, turn.turn = "complete", int(result["turn"])
        turn.answer = str(result.get("answer") or "")
        turn.handoff = bool(result.get("handoff"))
    else:
        turn.outcome = f"error:{last[1].get('code')}"


async def run_sessions(
    url: str, sessions: list[Session], concurrency: int, done: list[int]
) -> None:
    queue: asyncio.Queue[Session] = asyncio.Queue()
    for session in sessions:
        queue.put_nowait(session)

    async def worker() -> None:
        async with httpx.AsyncClient(timeout=120) as client:
            while not queue.empty():
                session = queue.get_nowait()
                for turn in session.turns:
                    await one_turn(client, url, session, turn)
                done[0] += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def faults(
    args: argparse.Namespace,
    url: str,
    redis: PrivateRedis,
    disk: Path,
    done: list[int],
    log: list[tuple[float, str]],
    t0: float,
    burst: list[Session],
) -> None:
    n = args.sessions

    async def until(fraction: float) -> None:
        while done[0] < fraction * n:  # noqa: ASYNC110 (a counter, polled)
            await asyncio.sleep(0.05)

    def note(what: str) -> None:
        log.append((round(time.perf_counter() - t0, 1), what))

    await until(0.15)
    redis.stop()
    note("redis killed")
    await until(0.35)
    redis.start()
    note("redis restarted")
    await until(0.55)
    size = await asyncio.to_thread(fill, disk / "ballast")
    full_at = time.perf_counter()
    note(f"data volume full ({size // 2**20} MiB ballast)")
    await run_sessions(url, burst, args.concurrency, [0])
    note(f"{len(burst)} new visitors asked for a person on the full disk")
    await asyncio.sleep(max(0.0, args.full_disk_s - (time.perf_counter() - full_at)))
    (disk / "ballast").unlink()
    note("data volume freed")


def session_plan(count: int) -> list[Session]:
    sessions = []
    for index in range(count):
        session = Session(index)
        if index % 4 == 1:
            message = f"I want to talk to a human. My email is visitor{index}@example.com"
            session.turns.append(Turn(message, wants_human=True))
        else:
            session.turns.append(Turn(QUESTIONS[index % len(QUESTIONS)], wants_human=False))
        if index % 2 == 0:
            session.turns.append(Turn(FOLLOW_UP, wants_human=False))
        sessions.append(session)
    return sessions


def disk_handoff_plan(count: int) -> list[Session]:
    """New visitors who ask for a person while the data volume is full."""
    return [
        Session(
            10_000 + index,
            turns=[
                Turn(
                    f"I want to talk to a person, my email is disk-visitor{index}@example.com",
                    wants_human=True,
                )
            ],
        )
        for index in range(count)
    ]


def delivered(session_id: str, hooks: HttpReceiver, mailbox: SmtpReceiver) -> str | None:
    if any(session_id in r.body.decode("utf-8", "replace") for r in hooks.received):
        return "webhook"
    if any(session_id in m.body for m in mailbox.mails):
        return "email"
    return None


def lead_reached(session: Session, hooks: HttpReceiver, mailbox: SmtpReceiver) -> bool:
    """The visitor's e-mail address (or session) reached the team."""
    emails = [w for t in session.turns for w in t.message.split() if "@" in w]
    bodies = [r.body.decode("utf-8", "replace") for r in hooks.received]
    bodies += [m.body for m in mailbox.mails]
    return any(session.session_id in body or any(e in body for e in emails) for body in bodies)


def check(
    url: str, sessions: list[Session], hooks: HttpReceiver, mailbox: SmtpReceiver
) -> dict[str, Any]:
    acknowledged = lost = kept_messages = unacked = out_of_order = mailed_only = 0
    failed_asks = failed_asks_reached = 0
    handoffs_acked = handoffs_reached = 0
    by_channel: dict[str, int] = {}
    missing_handoffs: list[str] = []
    lost_turns: list[str] = []
    leads = leads_lost = 0
    missing_leads: list[str] = []
    with httpx.Client(timeout=30) as client:
        for session in sessions:
            if any(t.wants_human for t in session.turns):
                leads += 1
                if not lead_reached(session, hooks, mailbox):
                    leads_lost += 1
                    missing_leads.append(session.session_id)
            secret = {"X-Frontdesk-Session-Secret": session.secret} if session.secret else {}
            response = client.get(
                f"{url}/v1/sessions/{session.session_id}", headers={**HEADERS, **secret}
            )
            messages = response.json().get("messages", []) if response.status_code == 200 else []
            # A turn is kept when its message and the very reply the visitor saw are stored
            # as one turn (turn numbers may differ from the graph's after a failed turn).
            pairs: dict[int, dict[str, list[str]]] = {}
            for m in messages:
                pairs.setdefault(m["turn"], {}).setdefault(m["role"], []).append(m["content"])
            user_texts = {m["content"] for m in messages if m["role"] == "user"}
            asked = [m["content"] for m in messages if m["role"] == "user"]
            sent = [t.message for t in session.turns if t.message in user_texts]
            out_of_order += asked[: len(sent)] != sent
            for turn in session.turns:
                if turn.outcome == "complete":
                    acknowledged += 1
                    kept = any(
                        turn.message in p.get("user", []) and turn.answer in p.get("assistant", [])
                        for p in pairs.values()
                    )
                    if (
                        not kept
                        and turn.wants_human
                        and any(session.session_id in m.body for m in mailbox.mails)
                    ):
                        # Store and spool were full: the lead went by the fallback e-mail
                        # and the visitor was told so; its reply could not be kept.
                        mailed_only += 1
                    elif not kept:
                        lost += 1
                        lost_turns.append(f"{session.session_id}#{turn.turn}")
                    if turn.handoff:
                        handoffs_acked += 1
                        channel = delivered(session.session_id, hooks, mailbox)
                        if channel:
                            handoffs_reached += 1
                            by_channel[channel] = by_channel.get(channel, 0) + 1
                        else:
                            missing_handoffs.append(session.session_id)
                else:
                    unacked += 1
                    kept_messages += turn.message in user_texts
                    if turn.wants_human:
                        failed_asks += 1
                        failed_asks_reached += bool(delivered(session.session_id, hooks, mailbox))
    return {
        "turns_acknowledged": acknowledged,
        "acknowledged_turns_lost": lost,
        "acknowledged_turns_kept_only_as_fallback_mail": mailed_only,
        "lost_turns": lost_turns[:10],
        "sessions_with_history_out_of_order": out_of_order,
        "turns_not_acknowledged": unacked,
        "unacknowledged_messages_kept_anyway": kept_messages,
        "handoffs_acknowledged": handoffs_acked,
        "handoffs_delivered_or_mailed": handoffs_reached,
        "handoffs_by_channel": by_channel,
        "handoffs_missing": missing_handoffs[:10],
        "human_requests_in_unacknowledged_turns": failed_asks,
        "of_which_delivered_or_mailed": failed_asks_reached,
        "leads": leads,
        "leads_lost": leads_lost,
        "missing_leads": missing_leads[:10],
    }


async def settle(
    url: str, sessions: list[Session], spool: Path, hooks: HttpReceiver, mailbox: SmtpReceiver
) -> float:
    """Wait (≤ 90 s) for the spool to be replayed and every acknowledged handoff to arrive."""
    started = time.perf_counter()
    wanted = [s.session_id for s in sessions if any(t.handoff for t in s.turns)]

    def spooled() -> bool:
        return spool.is_dir() and any(spool.glob("*.jsonl"))

    while time.perf_counter() - started < 90:
        if not await asyncio.to_thread(spooled) and all(
            delivered(sid, hooks, mailbox) for sid in wanted
        ):
            break
        await asyncio.sleep(1)
    return time.perf_counter() - started


def spool_folder(folder: Path, args: argparse.Namespace) -> Path:
    return folder / "disk" / "data" / "spool" if args.spool_on_data_volume else folder / "spool"


def server_env(
    folder: Path, args: argparse.Namespace, redis: PrivateRedis, mailbox: SmtpReceiver
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")}
    return env | {
        "FRONTDESK_DATA_DIR": str(folder / "disk" / "data"),
        "FRONTDESK_SITES_DIR": str(folder / "sites"),
        "FRONTDESK_REDIS_URL": redis.url,
        "FRONTDESK_SPOOL_DIR": str(spool_folder(folder, args)),
        "FRONTDESK_SPOOL_REPLAY_S": "2",
        "FRONTDESK_SMTP_HOST": "127.0.0.1",
        "FRONTDESK_SMTP_PORT": str(mailbox.port),
        "FRONTDESK_SMTP_STARTTLS": "false",
        "FRONTDESK_LOG_LEVEL": "WARNING",
        "HF_HUB_OFFLINE": "1",
    }


async def load(
    args: argparse.Namespace,
    folder: Path,
    replica: Replica,
    redis: PrivateRedis,
    hooks: HttpReceiver,
    mailbox: SmtpReceiver,
) -> dict[str, Any]:
    sessions = session_plan(args.sessions)
    burst = disk_handoff_plan(args.disk_handoffs)
    done = [0]
    log: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    fault_task = asyncio.create_task(
        faults(args, replica.url, redis, folder / "disk", done, log, t0, burst)
    )
    await run_sessions(replica.url, sessions, args.concurrency, done)
    run_s = time.perf_counter() - t0
    if not fault_task.done():  # the sessions ended first: finish the schedule
        await asyncio.wait_for(fault_task, args.full_disk_s + 120)
    sessions = [*sessions, *burst]
    settle_s = await settle(replica.url, sessions, spool_folder(folder, args), hooks, mailbox)
    figures = await asyncio.to_thread(check, replica.url, sessions, hooks, mailbox)
    outcomes: dict[str, int] = {}
    for session in sessions:
        for turn in session.turns:
            outcomes[turn.outcome] = outcomes.get(turn.outcome, 0) + 1
    burst_outcomes: dict[str, int] = {}
    for session in burst:
        for turn in session.turns:
            burst_outcomes[turn.outcome] = burst_outcomes.get(turn.outcome, 0) + 1
    return {
        "full_disk_handoff_outcomes": dict(sorted(burst_outcomes.items())),
        "machine": machine(),
        "sessions": args.sessions,
        "turns": sum(len(s.turns) for s in sessions),
        "concurrency": args.concurrency,
        "run_s": round(run_s, 1),
        "settle_s": round(settle_s, 1),
        "faults": log,
        "outcomes": dict(sorted(outcomes.items())),
        **figures,
    }


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    disk = folder / "disk"
    mount_tmpfs(disk, args.disk_mb)
    hooks = HttpReceiver().start()
    mailbox = SmtpReceiver().start()
    redis = PrivateRedis(folder / "redis").start()
    replica: Replica | None = None
    try:
        write_site(folder / "sites", hooks.url("/hook"))
        env = server_env(folder, args, redis, mailbox)
        ingest = subprocess.run(
            [sys.executable, "-m", "frontdesk", "kb", "ingest", "demo", "--no-progress"],
            env=env,
            capture_output=True,
            check=False,
        )
        if ingest.returncode != 0:
            raise RuntimeError(f"ingest failed: {ingest.stderr.decode()[-2000:]}")
        replica = Replica(env, folder, "server")
        replica.wait_ready()
        report = asyncio.run(load(args, folder, replica, redis, hooks, mailbox))
        server_log = replica.log.read_text(errors="replace")
        if args.server_log:
            Path(args.server_log).write_text(server_log)
        report["server_log"] = {
            "redis_unavailable_warnings": server_log.count("Redis unavailable"),
            "redis_back": server_log.count("Redis is back"),
            "spooled_records": server_log.count("in the spool"),
            "replayed_files": server_log.count("replayed spool file"),
            "handoffs_mailed_directly": server_log.count("mailed directly"),
            "session_keys_spooled": server_log.count("session key not stored"),
        }
        return report
    finally:
        if replica is not None:
            replica.stop()
        redis.close()
        mailbox.stop()
        hooks.stop()
        subprocess.run(["umount", "-l", str(disk)], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=6)
    parser.add_argument("--full-disk-s", type=float, default=10.0)
    parser.add_argument(
        "--disk-handoffs",
        type=int,
        default=24,
        help="new visitors asking for a person while the data volume is full",
    )
    parser.add_argument("--disk-mb", type=int, default=160)
    parser.add_argument(
        "--spool-on-data-volume",
        action="store_true",
        help="the spool on the full disk too (leads go by the fallback e-mail)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--server-log", help="keep the server's log in this file")
    args = parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("redis-server"):
        sys.exit("needs root (a tmpfs for the data volume) and redis-server")
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-faults-"))
    try:
        report = run(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"machine: {report['machine']}")
        print(
            f"{report['sessions']} sessions, {report['turns']} turns, concurrency "
            f"{report['concurrency']}, run {report['run_s']} s, settle {report['settle_s']} s"
        )
        for at, what in report["faults"]:
            print(f"  t={at:>6} s  {what}")
        print(f"outcomes: {report['outcomes']}")
        print(f"turns answered (acknowledged): {report['turns_acknowledged']}")
        print(f"acknowledged turns lost: {report['acknowledged_turns_lost']} (target 0)")
        mailed_only = report["acknowledged_turns_kept_only_as_fallback_mail"]
        print(f"acknowledged lead turns kept only as the fallback e-mail: {mailed_only}")
        print(
            f"turns not acknowledged: {report['turns_not_acknowledged']} "
            f"(visitor message kept anyway: {report['unacknowledged_messages_kept_anyway']})"
        )
        acked = report["handoffs_acknowledged"]
        reached = report["handoffs_delivered_or_mailed"]
        share = 100.0 * reached / acked if acked else 100.0
        print(
            f"handoffs delivered or fallback-mailed: {reached}/{acked} ({share:.0f} %, "
            f"target 100 %) by channel {report['handoffs_by_channel']}"
        )
        print(
            f"human requests in unacknowledged turns: "
            f"{report['human_requests_in_unacknowledged_turns']} (delivered or mailed anyway: "
            f"{report['of_which_delivered_or_mailed']})"
        )
        burst = report["full_disk_handoff_outcomes"]
        print(f"new visitors asking for a person on the full disk: {burst}")
        print(f"leads: {report['leads']} (a person asked for, with an e-mail address)")
        print(f"leads lost: {report['leads_lost']} (target 0) {report['missing_leads']}")
        disorder = report["sessions_with_history_out_of_order"]
        print(f"sessions whose history is out of order: {disorder}")
        print(f"server log: {report['server_log']}")
    ok = (
        report["acknowledged_turns_lost"] == 0
        and report["leads_lost"] == 0
        and report["handoffs_delivered_or_mailed"] == report["handoffs_acknowledged"]
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
