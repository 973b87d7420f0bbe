"""Generic webhooks: a JSON POST signed the Standard Webhooks way, confirmed by any 2xx.

Body (identical on every retry, so receivers can dedupe): `{"id": <idempotency key>,
"event": "handoff.created" | "lead.captured", "site_id", "created_at", "data": {...}}`.

Headers (https://www.standardwebhooks.com): `webhook-id` (the idempotency key, the same
on every retry of one delivery), `webhook-timestamp` (seconds since the epoch, when this
attempt was sent) and, when the site sets a `secret`, `webhook-signature:
v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`. The key is the base64 part of
a `whsec_…` secret (the spec's format; any Standard Webhooks library verifies it as is),
or the UTF-8 bytes of any other secret. Also `X-Frontdesk-Event`, `Idempotency-Key` (=
`webhook-id`) and `X-Frontdesk-Delivery-Attempt` (1, 2, … — an attempt lost in a crash
counts). Receivers check the signature and reject timestamps more than five minutes
away (`verify_webhook`), so a captured delivery cannot be replayed later; delivery is at
least once, so they dedupe on `webhook-id`.

The older `X-Frontdesk-Signature: sha256=<hex HMAC of the body>` is no longer sent: it
signed no timestamp, so a captured request could be replayed for ever.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import httpx
from standardwebhooks import Webhook

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError

ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
EVENT_HEADER = "X-Frontdesk-Event"
ATTEMPT_HEADER = "X-Frontdesk-Delivery-Attempt"
DEFAULT_EVENT = "handoff.created"
SECRET_PREFIX = "whsec_"
TOLERANCE_S = 300  # the spec's five minutes, both ways


def signing_key(secret: str) -> bytes:
    """The HMAC key of a site's webhook secret: a `whsec_<base64>` secret's decoded bytes
    (the spec's format), any other secret's UTF-8 bytes."""
    if secret.startswith(SECRET_PREFIX):
        try:
            return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError("a whsec_ secret must be base64 after the prefix") from exc
    return secret.encode("utf-8")


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 HMAC-SHA256>` of `{msg_id}.{timestamp}.{body}` (the spec's scheme)."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return Webhook(signing_key(secret)).sign(msg_id, moment, body.decode("utf-8"))


def verify_webhook(
    secret: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: datetime | None = None,
    tolerance_s: float = TOLERANCE_S,
) -> bool:
    """A receiver's check of one delivery: a `v1` signature of this body, id and
    timestamp with this secret, and a timestamp within `tolerance_s` of `now` (older ones
    are replays). Malformed or missing headers are simply not valid."""
    lowered = {key.lower(): value for key, value in headers.items()}
    msg_id = lowered.get(ID_HEADER, "")
    stamp = lowered.get(TIMESTAMP_HEADER, "")
    signatures = lowered.get(SIGNATURE_HEADER, "")
    if not (msg_id and stamp.isdigit() and signatures):
        return False
    moment = (now or datetime.now(UTC)).timestamp()
    if abs(moment - int(stamp)) > tolerance_s:
        return False
    try:
        expected = sign(secret, msg_id, int(stamp), body).encode()
    except (ValueError, UnicodeDecodeError):
        return False
    offered = [s.encode() for s in signatures.split() if s.startswith("v1,")]
    return any(hmac.compare_digest(expected, candidate) for candidate in offered)


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


def unix_now() -> int:
    return int(datetime.now(UTC).timestamp())


class WebhookChannel:
    def __init__(self, client: httpx.AsyncClient, clock: Callable[[], int] = unix_now) -> None:
        self.client = client
        self.clock = clock

    async def deliver(self, delivery: Delivery) -> Delivered:
        index = webhook_index(delivery.channel)
        hooks = delivery.site.handoff.webhooks
        if index >= len(hooks):
            raise DeliveryError(f"{delivery.channel} is no longer configured", permanent=True)
        hook = hooks[index]
        event, body = webhook_body(delivery)
        timestamp = self.clock()  # per attempt: a retry is signed afresh
        headers = {
            "Content-Type": "application/json",
            ID_HEADER: delivery.idempotency_key,
            TIMESTAMP_HEADER: str(timestamp),
            EVENT_HEADER: event,
            "Idempotency-Key": delivery.idempotency_key,
            ATTEMPT_HEADER: str(delivery.attempt),
        }
        if hook.secret:
            try:
                headers[SIGNATURE_HEADER] = sign(
                    hook.secret, delivery.idempotency_key, timestamp, body
                )
            except ValueError as exc:
                raise DeliveryError(f"webhook secret: {exc}", permanent=True) from exc
        try:
            response = await self.client.post(str(hook.url), content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        if not 200 <= response.status_code < 300:
            raise DeliveryError(f"HTTP {response.status_code}")
        return Delivered(reference=f"HTTP {response.status_code}")
