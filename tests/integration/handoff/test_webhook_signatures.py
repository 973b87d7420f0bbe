"""Webhooks signed the Standard Webhooks way, and attempts counted
right when a process dies mid-delivery.

Real loopback HTTP and SMTP receivers, a real SQLite store. The receiver side is checked
with the `standardwebhooks` reference library, as a user's endpoint would check it.
"""

from __future__ import annotations

import asyncio
import textwrap
from datetime import UTC, datetime, timedelta

import pytest
from handoff_support import MakeHandoff
from standardwebhooks import Webhook, WebhookVerificationError

from frontdesk.handoff.channels.webhook import sign, signing_key, verify_webhook
from frontdesk.handoff.dispatcher import Dispatcher, start_dispatcher
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.handoffs import HandoffRepository, OutboxRepository
from frontdesk.store.models import HandoffAttempt, OutboxItem
from tests.support.loopback import HttpReceiver, SmtpReceiver

pytestmark = pytest.mark.integration

# The Standard Webhooks specification's published test vector.
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_signatures_match_the_specifications_test_vector() -> None:
    signature = sign(
        SPEC_SECRET, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, b'{"test": 2432232314}'
    )
    assert signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    # A plain (non-whsec_) secret is its UTF-8 bytes.
    assert signing_key("s3cret") == b"s3cret"


@pytest.fixture
def whsec_runtime(acme_settings: Settings, http: HttpReceiver) -> Runtime:
    (acme_settings.sites_dir / "acme.yaml").write_text(
        textwrap.dedent(
            f"""\
            id: acme
            name: Acme
            widget: {{public_key: pk_acme_000000000001}}
            business_hours: {{timezone: Europe/Madrid}}
            handoff:
              webhooks: [{{url: '{http.url("/hook")}', secret: '{SPEC_SECRET}'}}]
              fallback_email: sales@acme.test
              retry_delays_s: [0.01, 0.01, 0.01]
            """
        ),
        encoding="utf-8",
    )
    return build_runtime(acme_settings)


async def test_a_delivery_verifies_with_the_reference_library_and_a_replay_does_not(
    whsec_runtime: Runtime, make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    # Must survive: the delivery, verifiable by any Standard Webhooks library with the
    # site's secret as configured. Must not: the same request accepted six minutes later
    # (a replay), or with its timestamp moved forward (a forged "fresh" replay).
    try:
        make_handoff(runtime=whsec_runtime)
        dispatcher = Dispatcher(whsec_runtime)
        try:
            await dispatcher.drain(timeout_s=30)
        finally:
            await dispatcher.aclose()
    finally:
        whsec_runtime.close()
    (hook,) = http.received_on("/hook")
    headers = hook.headers
    assert headers["webhook-id"] == headers["idempotency-key"]
    assert headers["webhook-signature"].startswith("v1,")
    assert "x-frontdesk-signature" not in headers  # the replayable scheme is gone
    document = Webhook(SPEC_SECRET).verify(hook.body, headers)
    assert document["event"] == "handoff.created"

    sent = datetime.fromtimestamp(int(headers["webhook-timestamp"]), UTC)
    assert abs((datetime.now(UTC) - sent).total_seconds()) < 60
    assert verify_webhook(SPEC_SECRET, hook.body, headers, now=sent + timedelta(minutes=4))
    assert not verify_webhook(SPEC_SECRET, hook.body, headers, now=sent + timedelta(minutes=6))
    moved = {**headers, "webhook-timestamp": str(int(sent.timestamp()) + 360)}
    assert not verify_webhook(SPEC_SECRET, hook.body, moved, now=sent + timedelta(minutes=6))
    with pytest.raises(WebhookVerificationError):
        Webhook(SPEC_SECRET).verify(hook.body, moved)


def attempts_of(runtime: Runtime, handoff_id: str, channel: str) -> list[tuple[int, str]]:
    with runtime.sessions() as db:
        return [
            (a.attempt, a.status)
            for a in HandoffRepository(db).attempts(handoff_id)
            if a.channel == channel
        ]


def outbox_row(runtime: Runtime, handoff_id: str, channel: str) -> OutboxItem:
    with runtime.sessions() as db:
        rows = {r.channel: r for r in OutboxRepository(db).for_handoff(handoff_id)}
        return rows[channel]


async def test_a_delivery_resent_after_a_crash_carries_the_next_attempt_number(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    # A worker claims the webhook row, sends it, and dies before writing the outcome.
    # Must survive: the delivery (re-sent once the lease runs out, under the same
    # webhook-id so the receiver can dedupe) and both attempts in the HandoffRecord —
    # the lost one as `interrupted`. Must not: the re-send claiming to be "attempt 1".
    handoff_id = make_handoff()
    row_id = outbox_row(acme, handoff_id, "webhook:0").id
    crashed = Dispatcher(acme, lease_s=0.2)
    claimed = crashed._claim(row_id)
    assert claimed is not None
    await crashed._deliver(claimed.delivery)  # the request went out; the process "dies"
    await crashed.aclose()
    await asyncio.sleep(0.25)  # the lease runs out

    survivor = Dispatcher(acme)
    try:
        await survivor.drain(timeout_s=30)
    finally:
        await survivor.aclose()
    first, second = http.received_on("/hook")
    assert first.headers["x-frontdesk-delivery-attempt"] == "1"
    assert second.headers["x-frontdesk-delivery-attempt"] == "2"
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert first.body == second.body
    assert verify_webhook("s3cret", second.body, second.headers)
    assert attempts_of(acme, handoff_id, "webhook:0") == [(1, "interrupted"), (2, "delivered")]
    row = outbox_row(acme, handoff_id, "webhook:0")
    assert row.status == "delivered" and row.attempts == 2


async def test_a_row_whose_every_attempt_was_lost_is_given_up_to_the_fallback_email(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver, smtp: SmtpReceiver
) -> None:
    # Must survive: the lead, through the fallback email, after four attempts that each
    # died mid-delivery (1 + len(retry_delays_s)). Must not: a row that loops through
    # crashes for ever with no record of them.
    handoff_id = make_handoff()
    row_id = outbox_row(acme, handoff_id, "webhook:0").id
    for _ in range(4):
        crashed = Dispatcher(acme, lease_s=0.05)
        assert crashed._claim(row_id) is not None
        await crashed.aclose()
        await asyncio.sleep(0.06)
    survivor = Dispatcher(acme)
    try:
        await survivor.drain(timeout_s=30)
    finally:
        await survivor.aclose()
    assert attempts_of(acme, handoff_id, "webhook:0") == [(n, "interrupted") for n in (1, 2, 3, 4)]
    row = outbox_row(acme, handoff_id, "webhook:0")
    assert row.status == "failed" and "no outcome after 4 attempts" in (row.last_error or "")
    (mail,) = smtp.mails
    assert "webhook:0" in mail.body
    with acme.sessions() as db:
        handoff = HandoffRepository(db).get(handoff_id)
        assert handoff is not None and handoff.status == "partial_failure"
        assert db.query(HandoffAttempt).filter_by(status="sending").count() == 0


async def test_an_attempt_cut_short_by_a_clean_shutdown_is_recorded_as_interrupted(
    acme: Runtime, make_handoff: MakeHandoff, http: HttpReceiver
) -> None:
    # The in-process dispatcher is stopped while the webhook request is in flight.
    # Must survive: the row (released at once, not after the lease) and its delivery by
    # the next process as attempt 2. Must not: an attempt left `sending` for ever.
    http.fail_next("/hook", "timeout")  # the receiver holds the first request
    handoff_id = make_handoff()
    task = start_dispatcher(acme, poll_s=0.02)
    for _ in range(500):
        if http.seen >= 1 and attempts_of(acme, handoff_id, "webhook:0"):
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert attempts_of(acme, handoff_id, "webhook:0") == [(1, "interrupted")]
    survivor = Dispatcher(acme)
    try:
        await survivor.drain(timeout_s=30)
    finally:
        await survivor.aclose()
    assert attempts_of(acme, handoff_id, "webhook:0") == [(1, "interrupted"), (2, "delivered")]
    (delivered,) = http.received_on("/hook")
    assert delivered.headers["x-frontdesk-delivery-attempt"] == "2"
