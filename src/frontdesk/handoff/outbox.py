"""Writing side effects into the outbox, inside the caller's transaction (the turn's).

Nothing here talks to the outside world: the dispatcher delivers the rows later, so
a turn is acknowledged only once its handoff and every delivery it owes are stored.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from frontdesk.guard.visitor_text import EMAIL_CHARS, clean_field, clean_fields
from frontdesk.handoff.packets import (
    LEAD_UNVERIFIED_COLUMNS,
    UNVERIFIED,
    HandoffRequest,
    handoff_packet,
    visitor_fields,
)
from frontdesk.leads.packet import ContextPacketGenerationError
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.handoffs import HandoffRepository, LeadRepository, OutboxRepository
from frontdesk.store.models import Handoff, Lead, OutboxItem
from frontdesk.store.repositories import AnalyticsEventRepository
from frontdesk.store.widget import WidgetSessionRepository

log = logging.getLogger(__name__)

LEAD_CAPTURED_EVENT = "lead.captured"
EMAIL_CAPTURED_EVENT = "email_captured"  # the analytics event of a captured email


def handoff_channels(site: SiteConfig) -> list[str]:
    """Where a handoff goes: the CRM table always, plus each configured channel."""
    channels = ["crm"]
    if site.handoff.slack_webhook_url:
        channels.append("slack")
    channels.extend(f"webhook:{i}" for i, _ in enumerate(site.handoff.webhooks))
    return channels


# A handoff whose copy for the team waits for the visitor's contact (`handoff.hold_s`).
AWAITING_CONTACT = "awaiting_contact"


def enqueue_handoff(session: Session, request: HandoffRequest) -> Handoff:
    """The handoff row and one outbox row per channel, keyed `site:session:turn:channel`.

    A handoff that asked the visitor how to reach them while nobody can answer live
    (`hold_s`) is `awaiting_contact`: its rows fall due when the wait is over, so the team
    hears of it even when the visitor never answers; the answer sends it at once
    (`complete_handoff`)."""
    site, session_id, handoff = request.site, request.session_id, request.handoff
    hold_s = float(handoff.get("hold_s") or 0.0)
    try:
        data = handoff_packet(request)
        status = AWAITING_CONTACT if hold_s > 0 else "pending"
    except ContextPacketGenerationError as exc:
        # abort delivery and alert; the row keeps what is known for manual recovery.
        log.critical("context_packet_generation_failure", extra={"session": session_id})
        data = {"error": str(exc), "session_id": session_id, "reason": handoff.get("reason")}
        status = "packet_failed"
    row = HandoffRepository(session).create(
        site_id=site.id,
        session_id=session_id,
        reason=str(handoff["reason"]),
        business_hours=bool(handoff.get("business_hours", True)),
        packet=data,
        status=status,
    )
    if status not in ("pending", AWAITING_CONTACT):
        return row
    outbox = OutboxRepository(session)
    due = datetime.now(UTC) + timedelta(seconds=hold_s)
    for channel in handoff_channels(site):
        outbox.enqueue(
            handoff_id=row.id,
            site_id=site.id,
            channel=channel,
            idempotency_key=handoff_key(site.id, session_id, request.turn, channel),
            payload=data,
            next_attempt_at=due,
        )
    return row


def handoff_key(site_id: str, session_id: str, turn: int, channel: str) -> str:
    return f"{site_id}:{session_id}:{turn}:{channel}"


def complete_handoff(session: Session, request: HandoffRequest) -> Handoff:
    """The visitor answered the contact question of this conversation's handoff that
    waits for it (`awaiting_contact`): it goes now with the answer (the contact, or
    "declined") — one delivery per channel. Once it went out (the wait was over), the
    answer goes as a handoff of its own.

    Only this conversation's handoff is looked at: another visitor's answer (another
    session) can never complete it."""
    site, session_id = request.site, request.session_id
    held = session.scalar(
        select(Handoff)
        .where(
            Handoff.site_id == site.id,
            Handoff.session_id == session_id,
            Handoff.status == AWAITING_CONTACT,
        )
        .order_by(Handoff.created_at.desc())
        .limit(1)
    )
    # With no held handoff to complete (or one that went out meanwhile), the answer goes
    # as a handoff of its own.
    without_wait = {key: value for key, value in request.handoff.items() if key != "hold_s"}
    on_its_own = partial(enqueue_handoff, session, replace(request, handoff=without_wait))
    if held is None:
        return on_its_own()
    # The question and answer the handoff is about are those of the turn that asked.
    asked = held.packet or {}
    excerpt = (
        (str(asked.get("question") or ""), str(asked.get("last_answer") or ""))
        if "question" in asked
        else None
    )
    try:
        asking_turn = int(held.packet.get("turn", request.turn))
        data = handoff_packet(replace(request, turn=asking_turn), excerpt=excerpt)
    except ContextPacketGenerationError:
        data = dict(held.packet)  # the asking turn's packet still goes, now
    now = datetime.now(UTC)
    rows = OutboxRepository(session).for_handoff(held.id)
    # Conditional: a dispatcher that claimed a row meanwhile (its wait just ended) keeps
    # it, and the answer then goes as a handoff of its own.
    released = session.execute(
        update(OutboxItem)
        .where(
            OutboxItem.handoff_id == held.id,
            OutboxItem.status == "pending",
            OutboxItem.attempts == 0,
            OutboxItem.next_attempt_at > now,
        )
        .values(payload=data, next_attempt_at=now)
        .execution_options(synchronize_session=False)
    )
    if int(getattr(released, "rowcount", 0) or 0) != len(rows):
        return on_its_own()
    held.packet, held.status = data, "pending"
    return held


def record_lead_capture(
    session: Session,
    *,
    site: SiteConfig,
    session_id: str,
    capture: Mapping[str, Any],
    level: str,
    form: Mapping[str, Any] | None = None,
    profile: Mapping[str, Any] | None = None,
) -> tuple[Lead, bool]:
    """An email captured in chat (booking): the lead, its webhooks, the event.

    Idempotent per session and capture context: the same booking confirmed twice is
    one lead, one webhook per endpoint and one analytics event.
    """
    context = str(capture["capture_context"])
    email = clean_field(capture["email"], EMAIL_CHARS) if capture.get("email") else None
    visitor = visitor_fields(profile or {})  # cleaned: one line, no markup, bounded
    form = clean_fields(form or {})
    # A visitor the site signed in (widget identity verification) is named on the lead.
    identity = WidgetSessionRepository(session).identity(site.id, session_id)
    details: dict[str, Any] = {"form": form, UNVERIFIED: [*LEAD_UNVERIFIED_COLUMNS, "form"]}
    # A booked appointment, or the time asked for when the calendar failed.
    appointment = clean_fields(dict(capture.get("appointment") or {}))
    if appointment:
        details["appointment"] = appointment
    if identity is not None:
        details["identity"] = identity.as_dict()
    lead, created = LeadRepository(session).create_once(
        f"{site.id}:{session_id}:{context}",
        site_id=site.id,
        session_id=session_id,
        email=email or (identity.email if identity else None),
        name=visitor["name"] or (identity.name if identity else None),
        company=visitor["company"],
        level=level,
        reason="booking" if context == "in_chat_booking" else context,
        capture_context=context,
        details=details,
    )
    if not created:
        return lead, False
    AnalyticsEventRepository(session).add(
        site.id, session_id, EMAIL_CAPTURED_EVENT, capture_context=context, lead_id=lead.id
    )
    data = {
        "event": LEAD_CAPTURED_EVENT,
        "capture_context": context,
        "lead": {
            "id": lead.id,
            "email": email,
            "level": level,
            "session_id": session_id,
            "form": form,
            **({"appointment": appointment} if appointment else {}),
            "captured_at": datetime.now(UTC).isoformat(),
        },
        UNVERIFIED: ["lead.email", "lead.form"],
    }
    outbox = OutboxRepository(session)
    for index, _ in enumerate(site.handoff.webhooks):
        outbox.enqueue(
            handoff_id=None,
            site_id=site.id,
            channel=f"webhook:{index}",
            idempotency_key=f"{site.id}:{session_id}:{context}:webhook:{index}",
            payload=data,
        )
    return lead, True
