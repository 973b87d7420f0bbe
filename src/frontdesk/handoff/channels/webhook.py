"""Generic webhooks: a JSON POST signed with HMAC-SHA256, confirmed by any 2xx.

Body (identical on every retry, so the signature and the receiver's dedupe agree):
`{"id": <idempotency key>, "event": "handoff.created" | "lead.captured", "site_id",
"created_at", "data": {...}}`. Headers: `X-Frontdesk-Event`, `Idempotency-Key`,
`X-Frontdesk-Delivery-Attempt` and, when the site sets a secret,
`X-Frontdesk-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>` — check it with
`verify_signature`. Delivery is at least once: receivers dedupe on `Idempotency-Key`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import httpx

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError

SIGNATURE_HEADER = "X-Frontdesk-Signature"
EVENT_HEADER = "X-Frontdesk-Event"
DEFAULT_EVENT = "handoff.created"


def sign(secret: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify_signature(secret: str, body: bytes, header: str) -> bool:
    """Constant-time check of an `X-Frontdesk-Signature` header against the raw body."""
    return hmac.compare_digest(sign(secret, body), header.strip())


def webhook_body(delivery: Delivery) -> tuple[str, bytes]:
    payload = delivery.payload
    event = str(payload.get("event") or DEFAULT_EVENT)
    data: dict[str, Any] = {k: v for k, v in payload.items() if k != "event"}
    document = {
        "id": delivery.idempotency_key,
        "event": event,
        "site_id": delivery.site.id,
        "created_at": delivery.created_at,
        "data": data,
    }
    body = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return event, body.encode()


def webhook_index(channel: str) -> int:
    """ "webhook:2" → 2."""
    try:
        return int(channel.split(":", 1)[1])
    except (IndexError, ValueError) as exc:
        raise DeliveryError(f"malformed webhook channel {channel!r}", permanent=True) from exc


class WebhookChannel:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def deliver(self, delivery: Delivery) -> Delivered:
        index = webhook_index(delivery.channel)
        hooks = delivery.site.handoff.webhooks
        if index >= len(hooks):
            raise DeliveryError(f"{delivery.channel} is no longer configured", permanent=True)
        hook = hooks[index]
        event, body = webhook_body(delivery)
        headers = {
            "Content-Type": "application/json",
            EVENT_HEADER: event,
            "Idempotency-Key": delivery.idempotency_key,
            "X-Frontdesk-Delivery-Attempt": str(delivery.attempt),
        }
        if hook.secret:
            headers[SIGNATURE_HEADER] = sign(hook.secret, body)
        try:
            response = await self.client.post(str(hook.url), content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        if not 200 <= response.status_code < 300:
            raise DeliveryError(f"HTTP {response.status_code}")
        return Delivered(reference=f"HTTP {response.status_code}")
