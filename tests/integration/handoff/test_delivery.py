"""Delivery against real loopback receivers, with fault injection and a process restart."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from handoff_support import MakeHandoff, acme_yaml
from sqlalchemy import select

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError
from frontdesk.handoff.channels.crm import CrmChannel
from frontdesk.handoff.channels.webhook import verify_webhook
from frontdesk.handoff.dispatcher import Dispatcher, start_dispatcher
from frontdesk.handoff.outbox import record_lead_capture
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import HandoffRepository, OutboxRepository
from frontdesk.store.models import AnalyticsEvent, Handoff, HandoffAttempt, Lead, OutboxItem
from tests.support.loopback import HttpReceiver, SmtpReceiver

pytestmark = pytest.mark.integration
# On SQLite and on the production stack (two workers, PostgreSQL + pgvector, Redis).
ON_EVERY_STACK = pytest.mark.usefixtures("stack")


@dataclass
class Record:
    handoff: Handoff
    rows: dict[str, OutboxItem]
    attempts: list[HandoffAttempt]
    leads: list[Lead]


def record(runtime: Runtime, handoff_id: str) -> Record:
    with runtime.sessions() as db:
        handoff = HandoffRepository(db).get(handoff_id)
        assert handoff is not None
        rows = {r.channel: r for r in OutboxRepository(db).for_handoff(handoff_id)}
        attempts = list(HandoffRepository(db).attempts(handoff_id))
        leads = list(db.scalars(select(Lead).where(Lead.session_id == handoff.session_id)))
        return Record(handoff, rows, attempts, leads)


async def drain(runtime: Runtime, **options: Any) -> Dispatcher:
    dispatcher = Dispatcher(runtime, **options)
    try:
        await dispatcher.drain(timeout_s=30)
    finally:
        await dispatcher.aclose()
    return dispatcher


def tries(rec: Record, channel: str) -> list[str]:
    return [a.status for a in rec.attempts if a.channel == channel]


@ON_EVERY_STACK
async def test_every_channel_delivers_once_and_the_handoff_completes(
    acme: Runtime,
    acme_workers: list[Runtime],
    make_handoff: MakeHandoff,
    http: HttpReceiver,
    smtp: SmtpReceiver,
) -> None:
    handoff_id = make_handoff()
    # Every worker's dispatcher at once: each row is claimed and delivered by one of them.
    await asyncio.gather(*(drain(worker) for worker in acme_workers))
    rec = record(acme, handoff_id)
    assert rec.handoff.status == "complete" and rec.handoff.completed_at is not None
    assert {c: r.status for c, r in rec.rows.items()} == {
        "crm": "delivered",
        "slack": "delivered",
        "webhook:0": "delivered",
    }
    assert sorted((a.channel, a.attempt, a.status) for a in rec.attempts) == [
        ("crm", 1, "delivered"),
        ("slack", 1, "delivered"),
        ("webhook:0", 1, "delivered"),
    ]
    # CRM: one lead, its id is the CRM record id the attempt reports and Slack links.
    assert len(rec.leads) == 1
    lead = rec.leads[0]
    assert lead.level == "hot" and lead.email == "ana@northwind.io" and lead.company == "Northwind"
    assert lead.details["lead"]["source"] == "website-chat"
    assert next(a.error for a in rec.attempts if a.channel == "crm") == lead.id
    (slack,) = http.received_on("/slack")
    blocks = slack.json()["blocks"]
    assert blocks[0]["text"]["text"] == "🔥 Acme: is very interested in buying — wrote 1 message"
    assert blocks[-1]["elements"][0]["url"] == f"https://crm.acme.test/leads/{lead.id}"
    (hook,) = http.received_on("/hook")
    assert verify_webhook("s3cret", hook.body, hook.headers)
    assert hook.headers["x-frontdesk-event"] == "handoff.created"
    assert hook.headers["idempotency-key"] == rec.rows["webhook:0"].idempotency_key
    assert hook.json()["data"]["packet"]["handoff_reason"] == "hot_lead"
    assert smtp.mails == []  # no fallback when nothing failed


async def test_outside_hours_slack_framing(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    make_handoff(business_hours=False, level="warm")
    await drain(acme)
    (slack,) = http.received_on("/slack")
    assert slack.json()["text"] == (
        "📬 Acme: is very interested in buying — outside opening hours — wrote 1 message"
    )


async def test_slack_500s_and_timeouts_are_retried_until_it_answers(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    http.fail_next("/slack", "500", "timeout", "500")
    handoff_id = make_handoff()
    await drain(acme)
    rec = record(acme, handoff_id)
    assert tries(rec, "slack") == ["failed", "failed", "failed", "delivered"]
    errors = [a.error or "" for a in rec.attempts if a.channel == "slack"]
    assert errors[0].startswith("HTTP 500 (retry in 0.01s)")
    assert "Timeout" in errors[1]
    assert rec.handoff.status == "complete" and smtp.mails == []
    assert len(http.received_on("/slack")) == 1


async def test_partial_failure_sends_the_fallback_email_with_the_packet(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    http.fail_next("/slack", "500", "500", "timeout", "500")  # four attempts, all fail
    handoff_id = make_handoff()
    await drain(acme)
    rec = record(acme, handoff_id)
    assert rec.handoff.status == "partial_failure" and rec.handoff.completed_at is not None
    assert tries(rec, "slack") == ["failed"] * 4
    assert rec.rows["slack"].status == "failed"
    assert rec.rows["email"].status == "delivered" and tries(rec, "email") == ["delivered"]
    (mail,) = smtp.mails
    assert mail.recipients == ("sales@acme.test",)
    assert mail.subject == (
        "Chat handoff — Acme: is very interested in buying — wrote 1 message (session sess-1)"
    )
    assert "- slack: HTTP 500" in mail.body
    packet = json.loads(mail.body.split("Context packet (JSON):\n", 1)[1])
    assert packet["session_id"] == "sess-1" and packet["lead_level"] == "hot"
    assert len(rec.leads) == 1  # the CRM worked: the lead is there too


async def test_refused_connection_is_a_failed_channel(
    acme_settings: Settings, http: HttpReceiver, smtp: SmtpReceiver, make_handoff: MakeHandoff
) -> None:
    (acme_settings.sites_dir / "acme.yaml").write_text(
        acme_yaml(http, refused_webhook=True), encoding="utf-8"
    )
    runtime = build_runtime(acme_settings)
    try:
        handoff_id = make_handoff(runtime=runtime)
        await drain(runtime)
        rec = record(runtime, handoff_id)
    finally:
        runtime.close()
    assert tries(rec, "webhook:1") == ["failed"] * 4
    assert "ConnectError" in (rec.rows["webhook:1"].last_error or "")
    assert rec.handoff.status == "partial_failure"
    assert "webhook:1" in smtp.mails[0].body


class FlakyCrm:
    """The real CRM channel, but the first `failures` attempts die after the INSERT: the
    lead is committed, the confirmation is lost (the worst case for duplicates)."""

    def __init__(self, runtime: Runtime, failures: int) -> None:
        self.real = CrmChannel(runtime.sessions)
        self.failures = failures

    async def deliver(self, delivery: Delivery) -> Delivered:
        done = await self.real.deliver(delivery)
        if self.failures > 0:
            self.failures -= 1
            raise DeliveryError("connection reset after INSERT")
        return done


async def test_a_crm_retry_never_creates_a_second_lead(
    acme: Runtime, make_handoff: MakeHandoff, smtp: SmtpReceiver
) -> None:
    handoff_id = make_handoff()
    await drain(acme, channels={"crm": FlakyCrm(acme, failures=2)})
    rec = record(acme, handoff_id)
    assert tries(rec, "crm") == ["failed", "failed", "delivered"]
    assert len(rec.leads) == 1
    assert rec.handoff.status == "complete"


class DeadCrm:
    async def deliver(self, delivery: Delivery) -> Delivered:
        raise DeliveryError("database unavailable")


async def test_total_failure_still_reaches_the_fallback_mailbox(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    http.decide = lambda path: "500"
    handoff_id = make_handoff(email=None, session_id="anon-7")
    await drain(acme, channels={"crm": DeadCrm()})
    rec = record(acme, handoff_id)
    assert rec.handoff.status == "total_failure"
    assert rec.leads == []
    (mail,) = smtp.mails
    assert mail.subject == (
        "Chat handoff — Acme: is very interested in buying — wrote 1 message (session anon-7)"
    )
    for channel in ("crm", "slack", "webhook:0"):
        assert tries(rec, channel) == ["failed"] * 4


async def test_smtp_refusal_is_retried(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    http.fail_next("/hook", "500", "500", "500", "500")
    smtp.fail_next(2)
    handoff_id = make_handoff()
    await drain(acme)
    rec = record(acme, handoff_id)
    assert tries(rec, "email") == ["failed", "failed", "delivered"]
    assert len(smtp.mails) == 1 and rec.handoff.completed_at is not None


async def test_missing_smtp_is_a_critical_permanent_failure(
    acme_settings: Settings,
    make_handoff: MakeHandoff,
    http: HttpReceiver,
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime = build_runtime(acme_settings.model_copy(update={"smtp_host": ""}))
    http.decide = lambda path: "500" if path == "/slack" else "ok"
    try:
        handoff_id = make_handoff(runtime=runtime)
        with caplog.at_level(logging.ERROR):
            await drain(runtime)
        rec = record(runtime, handoff_id)
    finally:
        runtime.close()
    assert tries(rec, "email") == ["failed"]  # permanent: not retried
    assert rec.rows["email"].status == "failed"
    assert any(
        r.levelno == logging.CRITICAL and r.msg == "fallback_email_failure" for r in caplog.records
    )


async def test_booking_capture_fires_the_lead_webhook_and_an_analytics_event(
    acme: Runtime, http: HttpReceiver
) -> None:
    site = acme.site("acme").config
    for _ in range(2):  # the same capture twice is one lead, one webhook, one event
        with transaction(acme.sessions) as session:
            record_lead_capture(
                session,
                site=site,
                session_id="book-1",
                capture={"capture_context": "in_chat_booking", "email": "li@corp.io"},
                level="warm",
                form={"company_size": "50"},
            )
    await drain(acme)
    (hook,) = http.received_on("/hook")
    assert hook.headers["x-frontdesk-event"] == "lead.captured"
    body = hook.json()
    assert body["event"] == "lead.captured"
    assert body["data"]["capture_context"] == "in_chat_booking"
    assert body["data"]["lead"]["email"] == "li@corp.io"
    assert verify_webhook("s3cret", hook.body, hook.headers)
    with acme.sessions() as db:
        leads = db.scalars(select(Lead).where(Lead.session_id == "book-1")).all()
        events = db.scalars(select(AnalyticsEvent)).all()
    assert [(lead.capture_context, lead.email) for lead in leads] == [
        ("in_chat_booking", "li@corp.io")
    ]
    assert [(e.name, e.properties["capture_context"]) for e in events] == [
        ("email_captured", "in_chat_booking")
    ]


async def test_in_process_dispatcher_delivers_while_the_api_runs(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    task = start_dispatcher(acme, poll_s=0.02)
    try:
        handoff_id = make_handoff()
        for _ in range(200):
            if record(acme, handoff_id).handoff.status == "complete":
                break
            await asyncio.sleep(0.02)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert record(acme, handoff_id).handoff.status == "complete"


@ON_EVERY_STACK
async def test_a_crashed_workers_claim_expires_and_another_delivers(
    acme: Runtime, acme_workers: list[Runtime], make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    handoff_id = make_handoff()
    # The lease outlasts the claims below on a loaded machine, then runs out.
    crashed = Dispatcher(acme, lease_s=1.0)
    with acme.sessions() as db:
        rows = [(r.id, r.channel) for r in OutboxRepository(db).for_handoff(handoff_id)]
    # Claimed, then the process "dies". Slack waits while the CRM record it links is being
    # delivered, so it is not claimed until the CRM row's lease runs out.
    assert all(crashed._claim(item_id) for item_id, channel in rows if channel != "slack")
    assert all(crashed._claim(item_id) is None for item_id, channel in rows if channel == "slack")
    await crashed.aclose()
    survivor = Dispatcher(acme_workers[-1])  # the other worker, where there are two
    assert await survivor.run_once() == 0  # still leased
    await asyncio.sleep(1.05)
    await survivor.drain(timeout_s=10)
    await survivor.aclose()
    rec = record(acme, handoff_id)
    assert rec.handoff.status == "complete" and len(rec.leads) == 1
    # The crashed worker's attempts stay in the record, with no outcome; the survivor's
    # are the second ones.
    for channel in ("crm", "webhook:0"):
        assert [(a.attempt, a.status) for a in rec.attempts if a.channel == channel] == [
            (1, "interrupted"),
            (2, "delivered"),
        ]
    assert [(a.attempt, a.status) for a in rec.attempts if a.channel == "slack"] == [
        (1, "delivered")
    ]
    (slack,) = http.received_on("/slack")  # and it links the CRM record
    assert slack.json()["blocks"][-1]["elements"][0]["url"].endswith(f"/leads/{rec.leads[0].id}")


def worker(settings: Settings, *args: str) -> tuple[int, str]:
    """`frontdesk worker` in a fresh process (a restart is a new process)."""
    env = {
        **os.environ,
        "FRONTDESK_DATA_DIR": str(settings.data_dir),
        "FRONTDESK_SITES_DIR": str(settings.sites_dir),
        "FRONTDESK_SMTP_HOST": settings.smtp_host,
        "FRONTDESK_SMTP_PORT": str(settings.smtp_port),
        "FRONTDESK_HANDOFF_HTTP_TIMEOUT_S": "0.3",
        "FRONTDESK_LOG_LEVEL": "WARNING",
    }
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "frontdesk", "worker", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(settings.data_dir).parent,
    )
    return done.returncode, done.stdout + done.stderr


async def test_pending_rows_are_delivered_after_a_process_restart(
    acme: Runtime,
    acme_settings: Settings,
    make_handoff: MakeHandoff,
    http: HttpReceiver,
    smtp: SmtpReceiver,
) -> None:
    handoff_id = make_handoff()
    http.decide = lambda path: "500"  # Slack and the webhook are down
    code, output = await asyncio.to_thread(worker, acme_settings, "--once")
    assert code == 0, output
    first = record(acme, handoff_id)
    assert first.rows["crm"].status == "delivered"
    assert first.rows["slack"].status == "pending" and tries(first, "slack") == ["failed"]
    assert first.handoff.status == "pending"

    http.decide = None  # the receivers recover; a new worker process picks up
    await asyncio.sleep(0.05)  # past the 0.01 s backoff
    code, output = await asyncio.to_thread(worker, acme_settings, "--drain")
    assert code == 0, output
    rec = record(acme, handoff_id)
    assert rec.handoff.status == "complete"
    assert tries(rec, "slack") == ["failed", "delivered"]
    assert tries(rec, "webhook:0") == ["failed", "delivered"]
    assert tries(rec, "crm") == ["delivered"]
    assert len(rec.leads) == 1 and smtp.mails == []
