"""Repositories of leads, handoffs and the outbox that delivers them: the only code that
reads or writes those tables."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Select, func, select, update

from frontdesk.store.db import Repository
from frontdesk.store.models import Handoff, HandoffAttempt, Lead, OutboxItem, as_utc

_SiteRow = TypeVar("_SiteRow", Lead, Handoff)


def newest_of_site(model: type[_SiteRow], site_id: str) -> Select[_SiteRow]:
    """A site's leads or handoffs, newest first: the lists of the admin API and the console."""
    return select(model).where(model.site_id == site_id).order_by(model.created_at.desc())


class LeadRepository(Repository):
    def create_once(self, idempotency_key: str, **fields: Any) -> tuple[Lead, bool]:
        """Create the lead unless one with this key exists; returns (lead, created)."""
        existing = self.session.scalar(select(Lead).where(Lead.idempotency_key == idempotency_key))
        if existing is not None:
            return existing, False
        return self._insert(Lead(idempotency_key=idempotency_key, **fields)), True

    def by_key(self, idempotency_key: str) -> Lead | None:
        return self.session.scalar(select(Lead).where(Lead.idempotency_key == idempotency_key))

    def list(self, site_id: str, limit: int = 100, status: str | None = None) -> Sequence[Lead]:
        query = newest_of_site(Lead, site_id)
        if status:
            query = query.where(Lead.status == status)
        return self.session.scalars(query.limit(limit)).all()


class HandoffRepository(Repository):
    def create(self, **fields: Any) -> Handoff:
        return self._insert(Handoff(**fields))

    def list(self, site_id: str, limit: int = 100) -> Sequence[Handoff]:
        return self.session.scalars(newest_of_site(Handoff, site_id).limit(limit)).all()

    def attempts(self, handoff_id: str) -> Sequence[HandoffAttempt]:
        return self.session.scalars(
            select(HandoffAttempt)
            .where(HandoffAttempt.handoff_id == handoff_id)
            .order_by(HandoffAttempt.id)
        ).all()

    def get(self, handoff_id: str, *, for_update: bool = False) -> Handoff | None:
        """The handoff; `for_update` locks its row until the transaction ends (PostgreSQL;
        SQLite writes one transaction at a time anyway)."""
        return self.session.get(Handoff, handoff_id, with_for_update=for_update or None)


class OutboxRepository(Repository):
    def enqueue(self, **fields: Any) -> OutboxItem:
        return self._insert(OutboxItem(**fields))

    def due(self, now: datetime, limit: int = 50) -> Sequence[OutboxItem]:
        return self.session.scalars(
            select(OutboxItem)
            .where(OutboxItem.status == "pending", OutboxItem.next_attempt_at <= now)
            .order_by(OutboxItem.id)
            .limit(limit)
        ).all()

    def enqueue_once(self, **fields: Any) -> tuple[OutboxItem, bool]:
        """Enqueue unless a row with this idempotency key exists; returns (row, created)."""
        key = fields["idempotency_key"]
        existing = self.session.scalar(select(OutboxItem).where(OutboxItem.idempotency_key == key))
        if existing is not None:
            return existing, False
        return self.enqueue(**fields), True

    def get(self, item_id: int) -> OutboxItem | None:
        return self.session.get(OutboxItem, item_id)

    def claim(self, item_id: int, now: datetime, lease_until: datetime) -> bool:
        """Take a due row for one delivery attempt (atomic across processes).

        The lease is `next_attempt_at`: a worker that dies mid-attempt leaves the row
        pending, and it becomes due again when the lease runs out.
        """
        leased = self._changed(
            update(OutboxItem)
            .where(
                OutboxItem.id == item_id,
                OutboxItem.status == "pending",
                OutboxItem.next_attempt_at <= now,
            )
            .values(next_attempt_at=lease_until)
        )
        return leased == 1

    def for_handoff(self, handoff_id: str) -> Sequence[OutboxItem]:
        return self.session.scalars(
            select(OutboxItem).where(OutboxItem.handoff_id == handoff_id).order_by(OutboxItem.id)
        ).all()

    def next_due_at(self) -> datetime | None:
        return self.session.scalar(
            select(func.min(OutboxItem.next_attempt_at)).where(OutboxItem.status == "pending")
        )

    def start_attempt(self, item: OutboxItem) -> HandoffAttempt:
        """Number and record an attempt as it starts (status `sending`), in the claim's
        transaction. An earlier attempt still `sending` never got an outcome (its process
        died or stopped mid-attempt): it becomes `interrupted`, so the record shows it."""
        self.interrupt_unfinished(item)
        return self.record_attempt(item, "sending")

    def has_unfinished(self, item: OutboxItem) -> bool:
        """Whether an attempt of `item` started and never got an outcome."""
        return (
            self.session.scalar(
                select(HandoffAttempt.id)
                .where(HandoffAttempt.outbox_id == item.id, HandoffAttempt.status == "sending")
                .limit(1)
            )
            is not None
        )

    def crm_in_flight(self, item_id: int, now: datetime) -> bool:
        """Whether row `item_id` is a Slack row whose handoff's CRM row another dispatcher
        is delivering right now (its attempt started and its lease runs). One dispatcher
        sends CRM before Slack in each pass so the message links the record; across
        dispatchers Slack waits for it. A dispatcher that died mid-attempt holds nobody up
        past its lease."""
        # By id, holding no row afterwards: `claim` then has no loaded row to synchronise
        # (its naive SQLite datetime would not compare with `now`).
        item = self.get(item_id)
        if item is None or item.channel != "slack" or item.handoff_id is None:
            return False
        return any(
            other.channel == "crm"
            and other.status == "pending"
            and as_utc(other.next_attempt_at) > now
            and self.has_unfinished(other)
            for other in self.for_handoff(item.handoff_id)
        )

    def interrupt_unfinished(
        self,
        item: OutboxItem,
        reason: str = "no outcome recorded: the dispatcher stopped during this attempt",
    ) -> int:
        """Attempts of `item` still `sending` become `interrupted`; returns how many."""
        lost = self.session.scalars(
            select(HandoffAttempt).where(
                HandoffAttempt.outbox_id == item.id, HandoffAttempt.status == "sending"
            )
        ).all()
        for attempt in lost:
            attempt.status, attempt.error = "interrupted", reason
        return len(lost)

    def finish_attempt(
        self, item: OutboxItem, number: int, status: str, error: str | None = None
    ) -> HandoffAttempt:
        """The outcome of attempt `number` (started by `start_attempt`)."""
        attempt = self.session.scalar(
            select(HandoffAttempt).where(
                HandoffAttempt.outbox_id == item.id, HandoffAttempt.attempt == number
            )
        )
        if attempt is None:  # started before attempts were recorded at claim time
            return self.record_attempt(item, status, error)
        attempt.status, attempt.error = status, error
        self.session.flush()
        return attempt

    def record_attempt(
        self, item: OutboxItem, status: str, error: str | None = None
    ) -> HandoffAttempt:
        item.attempts += 1
        return self._insert(
            HandoffAttempt(
                outbox_id=item.id,
                handoff_id=item.handoff_id,
                channel=item.channel,
                attempt=item.attempts,
                status=status,
                error=error,
            )
        )
