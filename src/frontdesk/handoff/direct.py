"""The last path of a handoff: mailed at once when neither the store nor the spool
could keep it (a full disk under both). It is the fallback email, sent by the
API process itself instead of the dispatcher; a failure here is logged as CRITICAL with
the session, so an operator can still find the visitor in the logs.

When the context packet cannot be built (a state it does not accept), the mail still
goes out as a degraded packet with what is known: the session, the site, the visitor's
e-mail if captured and the last message. A mail that is sent beats a perfect one that
is not."""

from __future__ import annotations

import logging
from dataclasses import replace

from frontdesk.handoff.channels import Delivery, DeliveryError
from frontdesk.handoff.channels.email import EmailChannel
from frontdesk.handoff.packets import (
    DEGRADED,
    HandoffRequest,
    degraded_handoff_data,
    handoff_packet,
)
from frontdesk.settings import Settings

log = logging.getLogger(__name__)

STORE_FAILURE = "the store and the spool could not write; this email is the only record"


async def mail_handoff(settings: Settings, request: HandoffRequest, *, key: str) -> bool:
    """Mail the handoff's packet to the fallback address; True when the server took it."""
    site, session_id = request.site, request.session_id
    try:
        data = handoff_packet(replace(request, handoff={"lead_level": "cold", **request.handoff}))
    except Exception as exc:
        # Any failure to build the packet (its own error or a state it refuses, such as a
        # captured e-mail's reason) must not cost the only record of the lead.
        log.error(
            "context packet failed for session %s; mailing a degraded packet",
            session_id,
            exc_info=True,
        )
        data = degraded_handoff_data(request, error=f"{type(exc).__name__}: {exc}")
    data["failed_channels"] = {"store": STORE_FAILURE}
    delivery = Delivery(
        outbox_id=0,
        channel="email",
        idempotency_key=f"{site.id}:{session_id}:{key}:email",
        site=site,
        payload=data,
        attempt=1,
    )
    try:
        await EmailChannel(settings).deliver(delivery)
    except (DeliveryError, Exception) as exc:
        # The only record left: the address the visitor gave, so the team can still write.
        visitor = (data if DEGRADED in data else data["packet"]).get("visitor") or {}
        log.critical(
            "handoff lost: store, spool and fallback email all failed (%s); site %s "
            "session %s reason %s visitor email %s",
            exc,
            site.id,
            session_id,
            request.handoff.get("reason"),
            visitor.get("email") or "not captured",
        )
        return False
    log.warning(
        "handoff of session %s mailed directly (store and spool failed)%s",
        session_id,
        " as a degraded packet" if DEGRADED in data else "",
    )
    return True
