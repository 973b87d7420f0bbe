"""The dispatcher: delivers due outbox rows with retries, records every attempt, falls back
to email, and picks up after a restart (DESIGN "Nothing lost").

One attempt of one row:
1. claim the row (an atomic UPDATE that pushes `next_attempt_at` out by a lease, so
   two dispatchers never deliver the same attempt, and a crashed one's row comes back)
   and, in the same transaction, number the attempt and record it as `sending` (a
   `HandoffAttempt`, one record per attempt and channel);
2. deliver it through its channel (which sees the attempt's number);
3. in one transaction: the attempt's outcome, then the row becomes `delivered`, `failed`
   (after 1 + len(retry_delays_s) attempts, or a permanent error) or stays `pending`
   until the next backoff step;
4. when every channel row of a handoff is final, the handoff gets its outcome
   (`complete`, `partial_failure`, `total_failure`) and, unless complete, an `email`
   row carrying the context packet and what failed (steps 3 and 4: `outcomes`).

All state is in the store, so a process can stop at any point: rows still pending
are delivered by the next dispatcher, and CRM leads are created with the row's
idempotency key, so a retry never makes a second lead. An attempt whose process died
before its outcome was written stays in the record as `interrupted` (marked when the row
is claimed again, or at a clean shutdown) and counts like a failed one: the next attempt
carries the next number, and a row whose every attempt was lost is given up (then the
fallback email goes out) instead of looping through crashes. The visitor never hears of
any of this: the reply was sent when the turn was stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy.orm import Session

from frontdesk.handoff.channels import Channel, Delivered, Delivery, DeliveryError, channel_kind
from frontdesk.handoff.channels.crm import CrmChannel
from frontdesk.handoff.channels.email import EmailChannel
from frontdesk.handoff.channels.slack import SlackChannel
from frontdesk.handoff.channels.webhook import WebhookChannel
from frontdesk.handoff.outcomes import FINAL, DispatchStats, finish_attempt
from frontdesk.handoff.packets import as_utc, crm_lead_key
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import LeadRepository, OutboxRepository
from frontdesk.store.models import OutboxItem

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class _Claimed:
    delivery: Delivery
    delays: tuple[float, ...]

    @property
    def number(self) -> int:
        return self.delivery.attempt


class Dispatcher:
    """Delivers the outbox of every site in `runtime`.

    `channels` maps a channel kind ("crm", "slack", "webhook", "email") to its
    implementation; the defaults are the real ones. `lease_s` bounds how long a
    crashed worker's row stays invisible.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        channels: Mapping[str, Channel] | None = None,
        client: httpx.AsyncClient | None = None,
        lease_s: float = 120.0,
        batch_size: int = 50,
        concurrency: int = 8,
        poll_s: float | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        settings = runtime.settings
        self.runtime = runtime
        self.lease = timedelta(seconds=lease_s)
        self.attempt_timeout_s = max(1.0, min(lease_s / 2, 60.0))
        self.batch_size = batch_size
        self.poll_s = poll_s if poll_s is not None else settings.dispatcher_poll_s
        self.clock = clock
        self.stats = DispatchStats()
        self._owns_client = client is None
        self.client = client or httpx.AsyncClient(
            timeout=settings.handoff_http_timeout_s, follow_redirects=False
        )
        self.channels: dict[str, Channel] = {
            "crm": CrmChannel(runtime.sessions),
            "slack": SlackChannel(self.client, settings.public_url),
            "webhook": WebhookChannel(self.client),
            "email": EmailChannel(settings),
        }
        self.channels.update(channels or {})
        self._limit = asyncio.Semaphore(concurrency)
        self._in_flight: set[int] = set()
        # SQLite has one writer; taking turns here avoids lock waits between our own threads.
        self._writes = threading.Lock()

    # -- loop --------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Deliver until cancelled (or `stop` is set), polling every `poll_s`."""
        stop = stop or asyncio.Event()
        try:
            while not stop.is_set():
                try:
                    done = await self.run_once()
                except Exception:  # a broken database must not kill the loop for good
                    log.exception("dispatcher pass failed")
                    done = 0
                if done == 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), timeout=self.poll_s)
        finally:
            await asyncio.to_thread(self._release, set(self._in_flight))

    async def run_once(self) -> int:
        """One attempt for each row due now; returns the number of attempts made.

        CRM, webhook and email rows go first, Slack last, so a Slack message can link
        the CRM record created in the same pass.
        """
        due = await asyncio.to_thread(self._due_ids)
        first = [item_id for item_id, channel in due if channel != "slack"]
        last = [item_id for item_id, channel in due if channel == "slack"]
        made = 0
        for group in (first, last):
            results = await asyncio.gather(
                *(self._attempt(item_id) for item_id in group), return_exceptions=True
            )
            for result in results:
                if isinstance(result, BaseException):
                    if isinstance(result, asyncio.CancelledError):
                        raise result
                    log.error("delivery attempt crashed", exc_info=result)
                else:
                    made += result
        return made

    async def drain(self, timeout_s: float = 60.0) -> None:
        """Deliver until no row is pending (every row delivered or failed), or time out."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        while True:
            await self.run_once()
            next_due = await asyncio.to_thread(self._next_due)
            if next_due is None:
                return
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError("outbox not drained in time")
            wait = (as_utc(next_due) - self.clock()).total_seconds()
            await asyncio.sleep(min(max(wait, 0.0), self.poll_s, remaining))

    async def aclose(self) -> None:
        if self._owns_client:
            await self.client.aclose()

    # -- one attempt -------------------------------------------------------------------
    async def _attempt(self, item_id: int) -> int:
        async with self._limit:
            claimed = await asyncio.to_thread(self._claim, item_id)
            if claimed is None:
                return 0
            # Left in `_in_flight` if cancelled mid-attempt, so shutdown can release the row.
            self._in_flight.add(item_id)
            outcome = await self._deliver(claimed.delivery)
            await asyncio.to_thread(self._record, item_id, claimed, outcome)
            self._in_flight.discard(item_id)
            return 1

    async def _deliver(self, delivery: Delivery) -> Delivered | DeliveryError:
        channel = self.channels.get(channel_kind(delivery.channel))
        if channel is None:
            return DeliveryError(f"unknown channel {delivery.channel!r}", permanent=True)
        try:
            return await asyncio.wait_for(channel.deliver(delivery), self.attempt_timeout_s)
        except DeliveryError as exc:
            return exc
        except TimeoutError:
            return DeliveryError(f"no confirmation within {self.attempt_timeout_s:g}s")
        except Exception as exc:  # a channel bug is a failed attempt, not a dead dispatcher
            return DeliveryError(f"{type(exc).__name__}: {exc}".rstrip(": "))

    # -- store (run in a worker thread) ------------------------------------------------
    def _due_ids(self) -> list[tuple[int, str]]:
        with self.runtime.sessions() as session:
            rows = OutboxRepository(session).due(self.clock(), limit=self.batch_size)
            return [(row.id, row.channel) for row in rows]

    def _next_due(self) -> datetime | None:
        with self.runtime.sessions() as session:
            return OutboxRepository(session).next_due_at()

    def _claim(self, item_id: int) -> _Claimed | None:
        now = self.clock()
        with self._writes, transaction(self.runtime.sessions) as session:
            outbox = OutboxRepository(session)
            if outbox.crm_in_flight(item_id, now):
                return None  # Slack waits for the CRM record it links (next pass)
            if not outbox.claim(item_id, now, now + self.lease):
                return None  # another dispatcher has it, or it is no longer due
            row = outbox.get(item_id)
            assert row is not None
            site = self.runtime.sites.get(row.site_id)
            if site is None:
                # The site file was removed: nothing can be delivered for it any more.
                number = outbox.start_attempt(row).attempt
                gone = DeliveryError("unknown site", permanent=True)
                finish_attempt(session, row, gone, (), number, now=self.clock(), stats=self.stats)
                return None
            delays = tuple(site.config.handoff.retry_delays_s)
            if row.attempts > len(delays) and outbox.has_unfinished(row):
                # Every attempt was made and the last had no outcome (crashes): give up.
                # (Past the budget with every outcome known: a retry from the console.)
                outbox.interrupt_unfinished(row)
                lost = DeliveryError(
                    f"no outcome after {row.attempts} attempts (interrupted)", permanent=True
                )
                finish_attempt(
                    session,
                    row,
                    lost,
                    delays,
                    row.attempts,
                    now=self.clock(),
                    stats=self.stats,
                    record=False,
                )
                return None
            number = outbox.start_attempt(row).attempt
            extras: dict[str, Any] = {}
            if row.channel == "slack":
                extras["crm_record_id"] = self._crm_record_id(session, row)
            delivery = Delivery(
                outbox_id=row.id,
                channel=row.channel,
                idempotency_key=row.idempotency_key,
                site=site.config,
                payload=dict(row.payload or {}),
                attempt=number,
                handoff_id=row.handoff_id,
                created_at=as_utc(row.created_at).isoformat(),
                extras=extras,
            )
            return _Claimed(delivery, delays)

    def _crm_record_id(self, session: Session, row: OutboxItem) -> str | None:
        session_id = (row.payload or {}).get("session_id")
        if not session_id:
            return None
        lead = LeadRepository(session).by_key(crm_lead_key(row.site_id, str(session_id)))
        return lead.id if lead is not None else None

    def _record(self, item_id: int, claimed: _Claimed, outcome: Delivered | DeliveryError) -> None:
        with self._writes, transaction(self.runtime.sessions) as session:
            row = OutboxRepository(session).get(item_id)
            if row is None or row.status in FINAL:
                return  # deleted with its site, or settled by someone else
            finish_attempt(
                session,
                row,
                outcome,
                claimed.delays,
                claimed.number,
                now=self.clock(),
                stats=self.stats,
            )

    def _release(self, item_ids: set[int]) -> None:
        """On shutdown, make claimed rows due again at once instead of after the lease."""
        if not item_ids:
            return
        now = self.clock()
        with self._writes, transaction(self.runtime.sessions) as session:
            outbox = OutboxRepository(session)
            for item_id in item_ids:
                row = outbox.get(item_id)
                if row is not None and row.status == "pending":
                    row.next_attempt_at = now
                    outbox.interrupt_unfinished(row, "cancelled at shutdown, outcome unknown")


def start_dispatcher(runtime: Runtime, **options: Any) -> asyncio.Task[None]:
    """Run a dispatcher inside the current event loop (the API process); cancel to stop."""
    dispatcher = Dispatcher(runtime, **options)

    async def serve() -> None:
        try:
            await dispatcher.run()
        finally:
            await dispatcher.aclose()

    return asyncio.create_task(serve(), name="frontdesk-dispatcher")


async def stop_dispatcher(task: asyncio.Task[None] | None) -> None:
    """Cancel an in-process dispatcher and wait for it (claimed rows are released)."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
