"""The weekly digest delivered to a loopback SMTP server (aiosmtpd): the site's owners get
the top gaps, the visitors' votes and the answered/refused shares; a period is sent once
however many workers run the schedule; an SMTP refusal is a clear error, recorded."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from frontdesk.console.passwords import hash_password
from frontdesk.improvement.digest import (
    DigestError,
    due_period_end,
    run_digest_schedules,
    send_digest,
)
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.improvement import DigestRun
from frontdesk.store.operators import OperatorRepository
from frontdesk.store.repositories import ConversationRepository, StoredTurn, TraceRepository
from frontdesk.store.widget import FeedbackRepository
from tests.support.loopback import SmtpReceiver

pytestmark = pytest.mark.integration


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
def runtime(tmp_path: Path, sites_dir: Path, smtp: SmtpReceiver) -> Iterator[Runtime]:
    settings = Settings(
        data_dir=tmp_path / "data",
        sites_dir=sites_dir,
        smtp_host="127.0.0.1",
        smtp_port=smtp.port,
        smtp_from="frontdesk@example.test",
        smtp_timeout_s=5,
        public_url="https://chat.example.test",
    )
    built = build_runtime(settings)
    with transaction(built.sessions) as session:
        operators = OperatorRepository(session)
        operators.grant(
            operators.ensure("ana@example.test", hash_password("x" * 12)), "demo", "owner"
        )
        operators.grant(
            operators.ensure("bo@example.test", hash_password("x" * 12)), "demo", "owner"
        )
        operators.grant(
            operators.ensure("cy@example.test", hash_password("x" * 12)), "demo", "agent"
        )
    yield built
    built.close()


def turn(
    runtime: Runtime,
    question: str,
    routing: str,
    *,
    route: str = "ANSWER",
    language: str = "en",
    vote: str | None = None,
    intent: str | None = None,
) -> None:
    session_id = str(uuid.uuid4())
    with transaction(runtime.sessions) as session:
        number = ConversationRepository(session).record_turn(
            "demo",
            session_id,
            StoredTurn(
                question,
                "…",
                route=route,
                routing=routing,
                intent=intent or ("OFFTOPIC" if route == "REDIRECT" else "LEARN"),
                language=language,
            ),
        )
        TraceRepository(session).add(
            site_id="demo",
            session_id=session_id,
            turn=number,
            route=route,
            routing=routing,
            retrieval=[{"chunk_id": "pricing#0", "doc_id": "pricing", "score": 0.801}],
        )
        if vote:
            FeedbackRepository(session).record("demo", session_id, number, vote, None)


def seed(runtime: Runtime) -> None:
    turn(runtime, "Do you offer a discount for nonprofits?", "cannot_answer")
    turn(runtime, "Is there nonprofit pricing?", "low_confidence", vote="down")
    turn(
        runtime,
        "¿Tienen descuento para organizaciones sin ánimo de lucro?",
        "cannot_answer",
        language="es",
    )
    turn(runtime, "What's the weather in Paris?", "out_of_scope", route="REDIRECT")
    turn(runtime, "How do I reset my password?", "answered", vote="up")
    turn(runtime, "How do I invite a colleague?", "answered")
    turn(runtime, "Hi there!", "irrelevant", route="REDIRECT", intent="OTHER")  # small talk


async def test_the_digest_reaches_the_sites_owners(runtime: Runtime, smtp: SmtpReceiver) -> None:
    seed(runtime)
    site = runtime.sites["demo"].config
    sent = await send_digest(runtime, None, site, days=7)
    assert sent is not None
    assert len(smtp.mails) == 1
    mail = smtp.mails[0]
    assert sorted(mail.recipients) == ["ana@example.test", "bo@example.test"]  # not the agent
    assert mail.subject == "Tessellate: 4 questions not answered well in the last 7 days"
    body = mail.body
    print(body)
    assert "- Turns: 7" in body
    assert "- Answered: 29 % (2)" in body  # low confidence counts as cannot answer
    assert "- Refused: 29 % (2)" in body  # the greeting too: analytics count every refusal
    assert "- Visitor votes: 1 helpful, 1 not helpful" in body
    assert "1. " in body and "nonprofit" in body.lower()
    assert "https://chat.example.test/console/sites/demo/gaps?days=7" in body
    assert "reset my password" not in body  # answered and liked: not a gap
    assert "Hi there" not in body  # small talk is not a content gap
    assert "weather" in body.lower()  # an off-topic refusal is


async def test_a_scheduled_period_is_sent_once_across_workers(
    runtime: Runtime, smtp: SmtpReceiver
) -> None:
    seed(runtime)
    site = runtime.sites["demo"].config
    end = datetime.now(UTC).replace(second=0, microsecond=0)
    results = await asyncio.gather(
        send_digest(runtime, None, site, end=end), send_digest(runtime, None, site, end=end)
    )
    assert sorted(r is None for r in results) == [False, True]
    assert len(smtp.mails) == 1
    with runtime.sessions() as session:
        runs = session.query(DigestRun).all()
        assert [(r.status, sorted(r.recipients)) for r in runs] == [
            ("sent", ["ana@example.test", "bo@example.test"])
        ]


async def test_the_worker_loop_sends_when_the_schedule_ticks(
    runtime: Runtime, smtp: SmtpReceiver
) -> None:
    seed(runtime)
    runtime.settings.digest_schedule = "0 8 * * 1"  # Mondays at 08:00
    # A clock standing just after the tick: with the wall clock and an every-minute
    # schedule, a slow first send that ended in the next minute rightly sent that
    # minute's digest too, and the test read two mails.
    just_after = datetime(2026, 11, 23, 8, 0, 30, tzinfo=UTC)
    stop = asyncio.Event()
    loop = asyncio.create_task(
        run_digest_schedules(runtime, None, stop, tick_s=0.05, clock=lambda: just_after)
    )
    for _ in range(600):
        if smtp.mails:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # more ticks in the same period send nothing more
    stop.set()
    await loop
    assert len(smtp.mails) == 1


def test_due_period_end() -> None:
    monday = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    assert due_period_end("0 8 * * 1", monday + timedelta(minutes=5)) == monday
    assert due_period_end("0 8 * * 1", monday + timedelta(days=2)) is None  # too late
    assert due_period_end("", monday) is None


async def test_an_smtp_refusal_is_a_clear_error_and_recorded(
    runtime: Runtime, smtp: SmtpReceiver
) -> None:
    seed(runtime)
    smtp.fail_next(1)
    site = runtime.sites["demo"].config
    with pytest.raises(DigestError, match="451"):
        await send_digest(runtime, None, site, end=datetime.now(UTC))
    with runtime.sessions() as session:
        [run] = session.query(DigestRun).all()
        assert run.status == "failed" and "451" in (run.error or "")
    assert smtp.mails == []
    # The command line's send-now path does not claim a period: it sends again.
    assert await send_digest(runtime, None, site, claim=False) is not None
    assert len(smtp.mails) == 1


async def test_a_site_without_owners_gets_no_digest(runtime: Runtime, smtp: SmtpReceiver) -> None:
    ownerless = runtime.sites["demo"].config.model_copy(update={"id": "ownerless"})
    with pytest.raises(DigestError, match="no owners"):
        await send_digest(runtime, None, ownerless)
    assert smtp.mails == []


def test_the_command_line_sends_it_now(
    runtime: Runtime, smtp: SmtpReceiver, sites_dir: Path
) -> None:
    """`frontdesk digest send demo`, run as a user would (a subprocess, settings from the
    environment); an unknown site fails with a clear message."""
    import os
    import subprocess
    import sys

    seed(runtime)
    env = {
        **os.environ,
        "FRONTDESK_DATA_DIR": str(runtime.settings.data_dir),
        "FRONTDESK_SITES_DIR": str(sites_dir),
        "FRONTDESK_SMTP_HOST": "127.0.0.1",
        "FRONTDESK_SMTP_PORT": str(smtp.port),
        "FRONTDESK_SMTP_FROM": "frontdesk@example.test",
        "COLUMNS": "200",
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "frontdesk", "digest", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=240,
            check=False,
        )

    sent = cli("send", "demo", "--days", "7")
    assert sent.returncode == 0, sent.stderr
    assert "ana@example.test" in sent.stdout
    assert len(smtp.mails) == 1 and "nonprofit" in smtp.mails[0].body.lower()
    unknown = cli("send", "nowhere")
    assert unknown.returncode == 1 and "unknown site 'nowhere'" in unknown.stderr
