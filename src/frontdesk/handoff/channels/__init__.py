"""Delivery channels: Slack (Block Kit), CRM (the leads table), webhooks (HMAC), email."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from frontdesk.sites.schema import SiteConfig


class DeliveryError(Exception):
    """One attempt failed; the dispatcher retries it (or gives up after the last delay).

    `permanent` failures (a channel that is not configured) are not retried.
    """

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class Delivery:
    """One outbox row, as a channel sees it."""

    outbox_id: int
    channel: str  # "crm", "slack", "webhook:0", "email"
    idempotency_key: str
    site: SiteConfig
    payload: dict[str, Any]
    attempt: int  # 1-based number of this attempt
    handoff_id: str | None = None
    created_at: str = ""  # ISO time the row was written (stable across retries)
    extras: dict[str, Any] = field(default_factory=dict)  # e.g. the CRM record id for Slack


@dataclass(frozen=True)
class Delivered:
    """A confirmed delivery: a reference on the other side (lead id, HTTP status…)."""

    reference: str = ""


class Channel(Protocol):
    async def deliver(self, delivery: Delivery) -> Delivered:
        """Deliver once; raise `DeliveryError` (or any exception) when not confirmed."""
        ...


def channel_kind(channel: str) -> str:
    """ "webhook:2" → "webhook"."""
    return channel.split(":", 1)[0]
