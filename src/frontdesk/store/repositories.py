"""Repositories: the only code that reads or writes the app store's tables."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from frontdesk.sites.schema import SiteConfig
from frontdesk.store.models import (
    Conversation,
    Handoff,
    HandoffAttempt,
    Lead,
    Message,
    OutboxItem,
    Site,
    Trace,
    utcnow,
)


def config_hash(config: SiteConfig) -> str:
    payload = json.dumps(config.model_dump(mode="json"), sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


class SiteRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def upsert(self, config: SiteConfig) -> Site:
        """Mirror a site file into the store; unchanged configs are not rewritten."""
        digest = config_hash(config)
        site = self.session.get(Site, config.id)
        if site is None:
            site = Site(id=config.id, name=config.name, config={}, config_hash="")
            self.session.add(site)
        if site.config_hash != digest:
            site.name = config.name
            site.config = config.model_dump(mode="json")
            site.config_hash = digest
            site.updated_at = utcnow()
        self.session.flush()
        return site

    def get(self, site_id: str) -> Site | None:
        return self.session.get(Site, site_id)

    def list(self) -> Sequence[Site]:
        return self.session.scalars(select(Site).order_by(Site.id)).all()


@dataclass(frozen=True)
class StoredTurn:
    """What a finished turn writes: the visitor's message and the assistant's reply."""

    user_text: str
    assistant_text: str
    route: str | None = None
    routing: str | None = None
    intent: str | None = None
    language: str | None = None
    details: dict[str, Any] | None = None


class ConversationRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, site_id: str, session_id: str) -> Conversation | None:
        return self.session.scalar(
            select(Conversation).where(
                Conversation.site_id == site_id, Conversation.session_id == session_id
            )
        )

    def get_or_create(self, site_id: str, session_id: str) -> Conversation:
        conversation = self.get(site_id, session_id)
        if conversation is None:
            conversation = Conversation(site_id=site_id, session_id=session_id, turn_count=0)
            self.session.add(conversation)
            self.session.flush()
        return conversation

    def record_turn(self, site_id: str, session_id: str, turn: StoredTurn) -> int:
        """Append both sides of a turn; returns the turn number (1-based)."""
        conversation = self.get_or_create(site_id, session_id)
        conversation.turn_count += 1
        conversation.last_activity_at = utcnow()
        if turn.language:
            conversation.language = turn.language
        number = conversation.turn_count
        self.session.add(
            Message(
                conversation_id=conversation.id,
                turn=number,
                role="user",
                content=turn.user_text,
                details={},
            )
        )
        self.session.add(
            Message(
                conversation_id=conversation.id,
                turn=number,
                role="assistant",
                content=turn.assistant_text,
                route=turn.route,
                routing=turn.routing,
                intent=turn.intent,
                details=turn.details or {},
            )
        )
        self.session.flush()
        return number

    def messages(self, site_id: str, session_id: str) -> Sequence[Message]:
        conversation = self.get(site_id, session_id)
        if conversation is None:
            return []
        return self.session.scalars(
            select(Message).where(Message.conversation_id == conversation.id).order_by(Message.id)
        ).all()

    def delete(self, site_id: str, session_id: str) -> bool:
        """Erase a conversation and its messages (GDPR). True when something was deleted."""
        conversation = self.get(site_id, session_id)
        if conversation is None:
            return False
        self.session.execute(delete(Message).where(Message.conversation_id == conversation.id))
        self.session.delete(conversation)
        self.session.flush()
        return True

    def older_than(self, site_id: str, cutoff: datetime) -> Sequence[Conversation]:
        return self.session.scalars(
            select(Conversation).where(
                Conversation.site_id == site_id, Conversation.last_activity_at < cutoff
            )
        ).all()

    def count_turns(self, site_id: str) -> int:
        total = self.session.scalar(
            select(func.coalesce(func.sum(Conversation.turn_count), 0)).where(
                Conversation.site_id == site_id
            )
        )
        return int(total or 0)


class LeadRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def create_once(self, idempotency_key: str, **fields: Any) -> tuple[Lead, bool]:
        """Create the lead unless one with this key exists; returns (lead, created)."""
        existing = self.session.scalar(select(Lead).where(Lead.idempotency_key == idempotency_key))
        if existing is not None:
            return existing, False
        lead = Lead(idempotency_key=idempotency_key, **fields)
        self.session.add(lead)
        self.session.flush()
        return lead, True

    def list(self, site_id: str, limit: int = 100) -> Sequence[Lead]:
        return self.session.scalars(
            select(Lead)
            .where(Lead.site_id == site_id)
            .order_by(Lead.created_at.desc())
            .limit(limit)
        ).all()

    def has_lead(self, site_id: str, session_id: str) -> bool:
        found = self.session.scalar(
            select(Lead.id).where(Lead.site_id == site_id, Lead.session_id == session_id)
        )
        return found is not None


class HandoffRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def create(self, **fields: Any) -> Handoff:
        handoff = Handoff(**fields)
        self.session.add(handoff)
        self.session.flush()
        return handoff

    def list(self, site_id: str, limit: int = 100) -> Sequence[Handoff]:
        return self.session.scalars(
            select(Handoff)
            .where(Handoff.site_id == site_id)
            .order_by(Handoff.created_at.desc())
            .limit(limit)
        ).all()

    def attempts(self, handoff_id: str) -> Sequence[HandoffAttempt]:
        return self.session.scalars(
            select(HandoffAttempt)
            .where(HandoffAttempt.handoff_id == handoff_id)
            .order_by(HandoffAttempt.id)
        ).all()


class OutboxRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def enqueue(self, **fields: Any) -> OutboxItem:
        item = OutboxItem(**fields)
        self.session.add(item)
        self.session.flush()
        return item

    def due(self, now: datetime, limit: int = 50) -> Sequence[OutboxItem]:
        return self.session.scalars(
            select(OutboxItem)
            .where(OutboxItem.status == "pending", OutboxItem.next_attempt_at <= now)
            .order_by(OutboxItem.id)
            .limit(limit)
        ).all()

    def record_attempt(
        self, item: OutboxItem, status: str, error: str | None = None
    ) -> HandoffAttempt:
        item.attempts += 1
        attempt = HandoffAttempt(
            outbox_id=item.id,
            handoff_id=item.handoff_id,
            channel=item.channel,
            attempt=item.attempts,
            status=status,
            error=error,
        )
        self.session.add(attempt)
        self.session.flush()
        return attempt


class TraceRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, **fields: Any) -> Trace:
        trace = Trace(**fields)
        self.session.add(trace)
        self.session.flush()
        return trace

    def for_session(self, site_id: str, session_id: str) -> Sequence[Trace]:
        return self.session.scalars(
            select(Trace)
            .where(Trace.site_id == site_id, Trace.session_id == session_id)
            .order_by(Trace.turn)
        ).all()

    def delete_session(self, site_id: str, session_id: str) -> int:
        result = self.session.execute(
            delete(Trace).where(Trace.site_id == site_id, Trace.session_id == session_id)
        )
        return int(getattr(result, "rowcount", 0) or 0)
