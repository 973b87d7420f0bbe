"""What the team reads and changes on the console's leads page: leads with their status,
handoffs with every delivery row and attempt, and a retry of a failed delivery.

A retry puts the failed outbox row back to `pending` and due now; the dispatcher (in the
API process, or `frontdesk worker`) makes the attempt, records it like any other and
settles the handoff again. Nothing is delivered from the web request itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select

from frontdesk.store.db import Repository
from frontdesk.store.handoffs import HandoffRepository, LeadRepository
from frontdesk.store.models import Handoff, HandoffAttempt, Lead, OutboxItem, utcnow

LEAD_STATUSES = ("new", "contacted", "won", "lost")
FAILED = "failed"


@dataclass
class HandoffDeliveries:
    handoff: Handoff
    channels: list[OutboxItem] = field(default_factory=list)
    attempts: list[HandoffAttempt] = field(default_factory=list)

    def attempts_of(self, outbox_id: int) -> list[HandoffAttempt]:
        return [a for a in self.attempts if a.outbox_id == outbox_id]


class DeskRepository(Repository):
    def leads(self, site_id: str, status: str | None = None, limit: int = 200) -> Sequence[Lead]:
        return LeadRepository(self.session).list(site_id, limit=limit, status=status)

    def set_lead_status(self, site_id: str, lead_id: str, status: str) -> Lead | None:
        if status not in LEAD_STATUSES:
            raise ValueError(f"unknown lead status {status!r} (one of: {', '.join(LEAD_STATUSES)})")
        lead = self.session.get(Lead, lead_id)
        if lead is None or lead.site_id != site_id:
            return None
        lead.status = status
        self.session.flush()
        return lead

    def handoffs(self, site_id: str, limit: int = 100) -> list[HandoffDeliveries]:
        """Newest first, each with its outbox rows and attempts (three queries in all)."""
        rows = HandoffRepository(self.session).list(site_id, limit=limit)
        found = {row.id: HandoffDeliveries(row) for row in rows}
        if not found:
            return []
        for item in self.session.scalars(
            select(OutboxItem).where(OutboxItem.handoff_id.in_(found)).order_by(OutboxItem.id)
        ):
            found[str(item.handoff_id)].channels.append(item)
        for attempt in self.session.scalars(
            select(HandoffAttempt)
            .where(HandoffAttempt.handoff_id.in_(found))
            .order_by(HandoffAttempt.id)
        ):
            found[str(attempt.handoff_id)].attempts.append(attempt)
        return list(found.values())

    def handoff(self, site_id: str, handoff_id: str) -> HandoffDeliveries | None:
        row = self.session.get(Handoff, handoff_id)
        if row is None or row.site_id != site_id:
            return None
        found = HandoffDeliveries(row)
        found.channels = list(
            self.session.scalars(
                select(OutboxItem).where(OutboxItem.handoff_id == row.id).order_by(OutboxItem.id)
            )
        )
        found.attempts = list(
            self.session.scalars(
                select(HandoffAttempt)
                .where(HandoffAttempt.handoff_id == row.id)
                .order_by(HandoffAttempt.id)
            )
        )
        return found

    def retry_delivery(self, site_id: str, outbox_id: int) -> OutboxItem | None:
        """Make a failed delivery due again; None when there is no such failed row."""
        item = self.session.get(OutboxItem, outbox_id)
        if item is None or item.site_id != site_id or item.status != FAILED:
            return None
        item.status, item.next_attempt_at = "pending", utcnow()
        if item.handoff_id is not None:
            handoff = self.session.get(Handoff, item.handoff_id)
            if handoff is not None:
                # Settled again by the dispatcher once every channel is final.
                handoff.status, handoff.completed_at = "pending", None
        self.session.flush()
        return item
