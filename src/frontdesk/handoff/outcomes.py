"""What the outcome of a delivery attempt does: the outbox row is delivered, retried after
its backoff step or failed; once every channel row of a handoff is final, the handoff gets
its outcome (`complete`, `partial_failure`, `total_failure`) and, unless complete, the
fallback `email` row carrying the context packet and what failed."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from frontdesk.handoff.channels import Delivered, DeliveryError
from frontdesk.store.handoffs import HandoffRepository, OutboxRepository
from frontdesk.store.models import OutboxItem

# Logged under the dispatcher's name, where operators look for delivery failures.
log = logging.getLogger("frontdesk.handoff.dispatcher")

FINAL = frozenset({"delivered", "failed"})
FALLBACK_CHANNEL = "email"


@dataclass
class DispatchStats:
    """What a dispatcher did since it started (for the CLI, logs and the benchmark)."""

    attempts: int = 0
    delivered: int = 0
    retried: int = 0
    failed: int = 0
    fallbacks: int = 0
    by_channel: dict[str, int] = field(default_factory=dict)


def finish_attempt(
    session: Session,
    row: OutboxItem,
    outcome: Delivered | DeliveryError,
    delays: tuple[float, ...],
    attempt: int,
    *,
    now: datetime,
    stats: DispatchStats,
    record: bool = True,
) -> None:
    """Attempt number `attempt` of `row` ended with `outcome` at `now` (`record`: write it
    on its `HandoffAttempt`); move the row on, and settle its handoff once it is final."""
    outbox = OutboxRepository(session)
    stats.attempts += 1
    stats.by_channel[row.channel] = stats.by_channel.get(row.channel, 0) + 1
    if isinstance(outcome, Delivered):
        outbox.finish_attempt(row, attempt, "delivered", outcome.reference or None)
        row.status, row.delivered_at, row.last_error = "delivered", now, None
        stats.delivered += 1
    elif attempt != row.attempts:
        # Our lease ran out and a newer attempt owns the row now: only note our failure.
        outbox.finish_attempt(row, attempt, "failed", str(outcome) or "failed")
        return
    else:
        error = str(outcome) or type(outcome).__name__
        if not outcome.permanent and attempt <= len(delays):
            delay = delays[attempt - 1]
            outbox.finish_attempt(row, attempt, "failed", f"{error} (retry in {delay:g}s)")
            row.next_attempt_at, row.last_error = now + timedelta(seconds=delay), error
            stats.retried += 1
            log.warning(
                "handoff_delivery_attempt_failed",
                extra={"channel": row.channel, "attempt": attempt, "error": error},
            )
        else:
            if record:
                outbox.finish_attempt(row, attempt, "failed", f"{error} (giving up)")
            row.status, row.last_error = "failed", error
            stats.failed += 1
            level = logging.CRITICAL if row.channel == FALLBACK_CHANNEL else logging.ERROR
            log.log(
                level,
                "fallback_email_failure"
                if row.channel == FALLBACK_CHANNEL
                else "handoff_channel_failed",
                extra={
                    "channel": row.channel,
                    "attempt_count": row.attempts,
                    "error": error,
                    "handoff": row.handoff_id,
                },
            )
    session.flush()
    if row.handoff_id is not None and row.status in FINAL:
        settle_handoff(session, row.handoff_id, now, stats)


def settle_handoff(session: Session, handoff_id: str, now: datetime, stats: DispatchStats) -> None:
    """Give a handoff its outcome once its channels are final; queue the fallback."""
    handoffs, outbox = HandoffRepository(session), OutboxRepository(session)
    # Locked first: two dispatchers finishing this handoff's last two channels at once
    # would each read the other's row as pending and neither would settle it. The
    # second waits for the first to commit, then reads both rows final.
    handoff = handoffs.get(handoff_id, for_update=True)
    rows = outbox.for_handoff(handoff_id)
    if handoff is None or not rows:
        return
    channel_rows = [r for r in rows if r.channel != FALLBACK_CHANNEL]
    if any(r.status not in FINAL for r in channel_rows):
        return
    failed = {r.channel: r.last_error or "failed" for r in channel_rows if r.status == "failed"}
    if not failed:
        handoff.status, handoff.completed_at = "complete", now
        return
    handoff.status = "total_failure" if len(failed) == len(channel_rows) else "partial_failure"
    fallback = next((r for r in rows if r.channel == FALLBACK_CHANNEL), None)
    if fallback is None:
        prefix = channel_rows[0].idempotency_key.rsplit(":", 1)[0]
        outbox.enqueue_once(
            handoff_id=handoff_id,
            site_id=handoff.site_id,
            channel=FALLBACK_CHANNEL,
            idempotency_key=f"{prefix}:{FALLBACK_CHANNEL}",
            payload={**(handoff.packet or {}), "failed_channels": failed},
            next_attempt_at=now,
        )
        stats.fallbacks += 1
        log.log(
            logging.CRITICAL if handoff.status == "total_failure" else logging.WARNING,
            "handoff_%s",
            handoff.status,
            extra={"handoff": handoff_id, "failed_channels": sorted(failed)},
        )
    elif fallback.status in FINAL:
        handoff.completed_at = now
