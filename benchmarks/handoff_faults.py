"""Acceptance run of handoff delivery under random faults, with one hard process restart.

    .venv/bin/python benchmarks/handoff_faults.py [--handoffs 100] [--seed 7] [--fault-rate 0.35]
                                                  [--json]

Every handoff goes to the CRM (the leads table), Slack and a signed webhook, with the
fallback email behind them; the Slack and webhook receivers are real HTTP servers on
127.0.0.1 and the mailbox a real SMTP server (aiosmtpd). Faults, drawn per attempt:
- Slack and webhook: HTTP 500 or a reply slower than the client timeout;
- CRM: the INSERT fails, or it commits and the confirmation is lost (the duplicate trap);
- SMTP: 451 "try again later".
The dispatcher runs as `frontdesk worker`-like child processes: the first is killed with
SIGKILL part-way (no clean shutdown, claimed rows are left leased), the second delivers
the rest. At the end every handoff must be final, every lead must be in the CRM table
or the fallback mailbox, no lead may be duplicated, and every outbox row's attempts must
be recorded (HandoffRecords). Exit status 0 when all of that holds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError
from frontdesk.handoff.channels.crm import CrmChannel
from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.handoff.outbox import enqueue_handoff
from frontdesk.handoff.packets import HandoffRequest
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.models import Handoff, HandoffAttempt, Lead, OutboxItem

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))  # the test doubles in tests/support are not shipped
from tests.support.loopback import Fault, HttpReceiver, SmtpReceiver  # noqa: E402

LEASE_S = 3.0
HTTP_TIMEOUT_S = 0.3
SLOW_S = 0.8
RETRIES = [0.05, 0.15, 0.45]


def crm_down_for(session_id: str, seed: int, share: float) -> bool:
    """Sessions whose CRM write hits an outage longer than every retry (deterministic)."""
    return random.Random(f"{seed}:{session_id}").random() < share


class FlakyCrm:
    """The real CRM channel with injected faults: before the INSERT, or after its commit;
    for `outage` sessions, every attempt fails (they must reach the fallback mailbox)."""

    def __init__(
        self, runtime: Runtime, rate: float, rng: random.Random, outage: float, seed: int
    ) -> None:
        self.real = CrmChannel(runtime.sessions)
        self.rate = rate
        self.rng = rng
        self.outage = outage
        self.seed = seed

    async def deliver(self, delivery: Delivery) -> Delivered:
        if crm_down_for(delivery.payload["session_id"], self.seed, self.outage):
            raise DeliveryError("injected: CRM outage")
        draw = self.rng.random()
        if draw < self.rate / 2:
            raise DeliveryError("injected: database unavailable")
        done = await self.real.deliver(delivery)
        if draw < self.rate:
            raise DeliveryError("injected: connection lost after INSERT")
        return done


def settings_for(root: Path, smtp_port: int) -> Settings:
    return Settings(
        data_dir=root / "data",
        sites_dir=root / "sites",
        smtp_host="127.0.0.1",
        smtp_port=smtp_port,
        smtp_timeout_s=1.0,
        handoff_http_timeout_s=HTTP_TIMEOUT_S,
        dispatcher_poll_s=0.05,
        log_level="ERROR",
    )


def write_site(root: Path, http: HttpReceiver) -> None:
    (root / "sites").mkdir(parents=True)
    (root / "sites" / "bench.yaml").write_text(
        "id: bench\nname: Bench Corp\nwidget: {public_key: pk_bench_0000000000001}\n"
        "business_hours: {timezone: Europe/Madrid}\n"
        "handoff:\n"
        f"  slack_webhook_url: '{http.url('/slack')}'\n"
        f"  webhooks: [{{url: '{http.url('/hook')}', secret: bench-secret}}]\n"
        "  fallback_email: sales@bench.test\n"
        f"  retry_delays_s: {RETRIES}\n",
        encoding="utf-8",
    )


def enqueue(runtime: Runtime, count: int) -> None:
    site = runtime.site("bench").config
    levels = ("hot", "warm", "cold")
    reasons = ("hot_lead", "explicit_request", "high_stakes", "stall")
    with transaction(runtime.sessions) as session:
        for index in range(count):
            enqueue_handoff(
                session,
                HandoffRequest(
                    site=site,
                    session_id=f"bench-{index:04d}",
                    turn=1 + index % 5,
                    handoff={
                        "reason": reasons[index % len(reasons)],
                        "lead_level": levels[index % len(levels)],
                        "business_hours": index % 3 != 0,
                    },
                    values={
                        "qualification": {"problem_fit": "confirmed"},
                        "visitor_profile": {"email": f"visitor{index}@example.org"},
                    },
                    message="I would like to talk to someone",
                    language="en",
                ),
            )


# -- child: one dispatcher process --------------------------------------------------------
def child(root: Path, smtp_port: int, rate: float, seed: int, outage: float, base: int) -> None:
    logging.getLogger("frontdesk").setLevel(logging.CRITICAL + 1)  # the report says it all
    runtime = build_runtime(settings_for(root, smtp_port), migrate_schema=False)
    rng = random.Random(seed)

    async def work() -> None:
        crm = FlakyCrm(runtime, rate, rng, outage, base)
        dispatcher = Dispatcher(runtime, channels={"crm": crm}, lease_s=LEASE_S)
        try:
            await dispatcher.drain(timeout_s=600)
        finally:
            await dispatcher.aclose()

    asyncio.run(work())
    runtime.close()


def spawn(root: Path, port: int, args: argparse.Namespace, seed: int) -> subprocess.Popen[bytes]:
    child_args = [str(root), str(port), str(args.fault_rate), str(seed)]
    child_args += [str(args.crm_outage), str(args.seed)]
    return subprocess.Popen(
        [sys.executable, __file__, "--child", *child_args],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def settled(runtime: Runtime) -> int:
    with runtime.sessions() as db:
        return int(
            db.scalar(
                select(func.count()).select_from(Handoff).where(Handoff.completed_at.isnot(None))
            )
            or 0
        )


# -- verification ----------------------------------------------------------------------------
def row_record_complete(row: OutboxItem, tries: list[HandoffAttempt]) -> bool:
    """A final row whose every attempt is recorded, numbered 1…n, ending as the row did
    (an attempt cut short by the kill is recorded as `interrupted`)."""
    if row.status not in ("delivered", "failed") or len(tries) != row.attempts or not tries:
        return False
    if [a.attempt for a in tries] != list(range(1, len(tries) + 1)):
        return False
    if row.status == "delivered":
        return tries[-1].status == "delivered"
    return all(a.status in ("failed", "interrupted") for a in tries)


def handoff_record_complete(handoff: Handoff, rows: list[OutboxItem]) -> bool:
    """An outcome and a completion time, and a fallback email exactly when a channel failed."""
    if handoff.completed_at is None:
        return False
    if handoff.status not in ("complete", "partial_failure", "total_failure"):
        return False
    channels = {r.channel: r for r in rows}
    failed = any(r.status == "failed" for c, r in channels.items() if c != "email")
    return failed == ("email" in channels) and failed == (handoff.status != "complete")


def verify(runtime: Runtime, smtp: SmtpReceiver, count: int) -> dict[str, Any]:
    with runtime.sessions() as db:
        handoffs = list(db.scalars(select(Handoff)))
        rows = list(db.scalars(select(OutboxItem)))
        attempts = list(db.scalars(select(HandoffAttempt).order_by(HandoffAttempt.id)))
        leads = list(db.scalars(select(Lead)))
    per_row: dict[int, list[HandoffAttempt]] = {}
    for attempt in attempts:
        per_row.setdefault(attempt.outbox_id, []).append(attempt)
    rows_by_handoff: dict[str, list[OutboxItem]] = {}
    for row in rows:
        rows_by_handoff.setdefault(row.handoff_id or "", []).append(row)

    incomplete_records = sum(
        not row_record_complete(row, per_row.get(row.id, [])) for row in rows
    ) + sum(
        not handoff_record_complete(handoff, rows_by_handoff.get(handoff.id, []))
        for handoff in handoffs
    )

    leads_per_session = Counter(lead.session_id for lead in leads)
    mailed_sessions: Counter[str] = Counter()
    for mail in smtp.mails:
        for handoff in handoffs:
            if handoff.session_id in mail.body:
                mailed_sessions[handoff.session_id] += 1
                break
    in_crm = {h.session_id for h in handoffs if leads_per_session[h.session_id] > 0}
    in_mailbox = {h.session_id for h in handoffs if mailed_sessions[h.session_id] > 0}
    outcomes = Counter(h.status for h in handoffs)
    attempt_counts = Counter(a.channel for a in attempts)
    failed_attempts = Counter(a.channel for a in attempts if a.status == "failed")
    return {
        "handoffs": len(handoffs),
        "expected": count,
        "outcomes": dict(outcomes),
        "leads_in_crm": len(in_crm),
        "leads_only_in_mailbox": len(in_mailbox - in_crm),
        "leads_missing": count - len(in_crm | in_mailbox),
        "duplicate_leads": sum(n - 1 for n in leads_per_session.values() if n > 1),
        "fallback_emails": len(smtp.mails),
        "duplicate_emails": sum(n - 1 for n in mailed_sessions.values() if n > 1),
        "handoff_records": len(attempts),
        "incomplete_records": incomplete_records,
        "attempts_by_channel": dict(sorted(attempt_counts.items())),
        "failed_attempts_by_channel": dict(sorted(failed_attempts.items())),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--handoffs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fault-rate", type=float, default=0.35, help="per attempt")
    parser.add_argument("--restart-at", type=float, default=0.4, help="settled share")
    parser.add_argument(
        "--crm-outage", type=float, default=0.1, help="share of handoffs whose CRM stays down"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        root, port, rate, seed, outage, base = args.child
        child(Path(root), int(port), float(rate), int(seed), float(outage), int(base))
        return 0

    rng = random.Random(args.seed)
    rate = args.fault_rate

    def http_fault(path: str) -> Fault:
        draw = rng.random()
        if draw < rate * 0.6:
            return "500"
        return "timeout" if draw < rate else "ok"

    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="handoff-faults-") as tmp,
        HttpReceiver(slow_s=SLOW_S) as http,
        SmtpReceiver() as smtp,
    ):
        root = Path(tmp)
        http.decide = http_fault
        smtp.decide = lambda: rng.random() < rate / 2
        write_site(root, http)
        runtime = build_runtime(settings_for(root, smtp.port))
        enqueue(runtime, args.handoffs)

        first = spawn(root, smtp.port, args, args.seed + 1)
        target = max(1, int(args.handoffs * args.restart_at))
        deadline = time.monotonic() + 300
        while settled(runtime) < target and first.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        killed_at = settled(runtime)
        if first.poll() is None:
            first.send_signal(signal.SIGKILL)  # a crash: no clean shutdown, leases left
        first.wait()
        with runtime.sessions() as db:
            leased = int(
                db.scalar(
                    select(func.count())
                    .select_from(OutboxItem)
                    .where(OutboxItem.status == "pending")
                )
                or 0
            )
        second = spawn(root, smtp.port, args, args.seed + 2)
        second.wait(timeout=600)
        time.sleep(0.2)  # let the SMTP server hand over its last message
        report = verify(runtime, smtp, args.handoffs)
        report.update(
            restart={
                "settled_before_kill": killed_at,
                "rows_pending_at_kill": leased,
                "second_worker_exit": second.returncode,
            },
            fault_rate=rate,
            crm_outage_sessions=sum(
                crm_down_for(f"bench-{i:04d}", args.seed, args.crm_outage)
                for i in range(args.handoffs)
            ),
            seconds=round(time.perf_counter() - started, 1),
        )
        runtime.close()

    ok = (
        report["handoffs"] == args.handoffs
        and report["leads_missing"] == 0
        and report["duplicate_leads"] == 0
        and report["incomplete_records"] == 0
    )
    report["accepted"] = ok
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"handoffs                 {report['handoffs']} (outcomes {report['outcomes']})")
        print(f"leads in CRM table       {report['leads_in_crm']}")
        print(f"leads only in mailbox    {report['leads_only_in_mailbox']}")
        print(f"leads missing            {report['leads_missing']}")
        print(f"duplicate leads          {report['duplicate_leads']}")
        print(
            f"fallback emails          {report['fallback_emails']} "
            f"(duplicates {report['duplicate_emails']})"
        )
        print(
            f"HandoffRecords           {report['handoff_records']} "
            f"(incomplete {report['incomplete_records']})"
        )
        print(f"attempts by channel      {report['attempts_by_channel']}")
        print(f"failed attempts          {report['failed_attempts_by_channel']}")
        restart = report["restart"]
        print(
            f"restart                  worker killed (SIGKILL) after "
            f"{restart['settled_before_kill']} settled handoffs with "
            f"{restart['rows_pending_at_kill']} rows pending; the next worker finished them"
        )
        print(
            f"injected                 fault rate {rate} per attempt; CRM outage for "
            f"{report['crm_outage_sessions']} handoffs"
        )
        print(f"time                     {report['seconds']} s")
        print("ACCEPTED" if ok else "NOT ACCEPTED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
