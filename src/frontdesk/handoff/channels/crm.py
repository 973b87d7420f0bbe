"""CRM channel: the `leads` table is the CRM; the record id confirms it.

A conversation has one lead, keyed `site:session:handoff` and written in its own
transaction: when the process dies after the INSERT but before the outbox row is
marked delivered, the retry finds the same lead and returns its id — never a second
lead. A later handoff of the same session (an email left after a proposal, a second
reason) fills in what the lead lacked and raises its level, keeping one row.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError
from frontdesk.handoff.packets import LEAD_UNVERIFIED_COLUMNS, UNVERIFIED, crm_lead_key
from frontdesk.handoff.rendering import crm_lead_payload
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import LeadRepository

LEVEL_RANK = {"cold": 0, "warm": 1, "hot": 2}


class CrmChannel:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    async def deliver(self, delivery: Delivery) -> Delivered:
        lead_id = await asyncio.to_thread(self.create_lead, delivery)
        if not lead_id:
            raise DeliveryError("CRM insert returned no record id")
        return Delivered(reference=lead_id)

    def create_lead(self, delivery: Delivery) -> str:
        """INSERT the session's lead once (or complete it); returns `leads.id`."""
        data = delivery.payload
        packet = data["packet"]
        visitor: dict[str, Any] = packet["visitor"]
        payload = crm_lead_payload(data)
        details = {
            **payload,
            "handoff_id": delivery.handoff_id,
            "handoffs": [delivery.handoff_id],
            # The row's contact columns and these details paths are the visitor's word.
            UNVERIFIED: [*LEAD_UNVERIFIED_COLUMNS, *payload[UNVERIFIED]],
        }
        with transaction(self.sessions) as session:
            lead, created = LeadRepository(session).create_once(
                crm_lead_key(delivery.site.id, packet["session_id"]),
                site_id=delivery.site.id,
                session_id=packet["session_id"],
                email=visitor.get("email"),
                name=visitor.get("name"),
                company=visitor.get("company"),
                level=packet["lead_level"],
                reason=packet["handoff_reason"],
                capture_context="handoff",
                details=details,
            )
            if not created and delivery.handoff_id not in (lead.details or {}).get("handoffs", []):
                for field in ("email", "name", "company"):
                    if getattr(lead, field) is None and visitor.get(field):
                        setattr(lead, field, visitor[field])
                if LEVEL_RANK.get(packet["lead_level"], 0) > LEVEL_RANK.get(lead.level, 0):
                    lead.level = packet["lead_level"]
                earlier = list((lead.details or {}).get("handoffs", []))
                lead.details = {**details, "handoffs": [*earlier, delivery.handoff_id]}
            return lead.id
