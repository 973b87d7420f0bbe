"""CRM channel (seed 004 ADR-009): the `leads` table is the CRM; the record id confirms it.

The lead is created with the outbox row's idempotency key, in its own transaction:
when the process dies after the INSERT but before the outbox row is marked
delivered, the retry finds the same lead and returns its id — never a second lead.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError
from frontdesk.handoff.packets import crm_lead_payload
from frontdesk.store.db import transaction
from frontdesk.store.repositories import LeadRepository


class CrmChannel:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    async def deliver(self, delivery: Delivery) -> Delivered:
        lead_id = await asyncio.to_thread(self.create_lead, delivery)
        if not lead_id:
            raise DeliveryError("CRM insert returned no record id")
        return Delivered(reference=lead_id)

    def create_lead(self, delivery: Delivery) -> str:
        """INSERT the lead once per idempotency key; returns `leads.id` (the crm_record_id)."""
        data = delivery.payload
        packet = data["packet"]
        visitor: dict[str, Any] = packet["visitor"]
        with transaction(self.sessions) as session:
            lead, _ = LeadRepository(session).create_once(
                delivery.idempotency_key,
                site_id=delivery.site.id,
                session_id=packet["session_id"],
                email=visitor.get("email"),
                name=visitor.get("name"),
                company=visitor.get("company"),
                level=packet["lead_level"],
                reason=packet["handoff_reason"],
                capture_context="handoff",
                details={**crm_lead_payload(data), "handoff_id": delivery.handoff_id},
            )
            return lead.id
