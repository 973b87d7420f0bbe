"""Fallback email over SMTP: the context packet as plain text.

Sent when a handoff's channels end in partial or total failure. The path is
independent of the AI backend and of Slack/CRM. Recipient: the site's
`handoff.fallback_email`, else `FRONTDESK_FALLBACK_EMAIL`.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

from frontdesk.handoff.channels import Delivered, Delivery, DeliveryError
from frontdesk.handoff.rendering import email_body, email_subject
from frontdesk.mail import MailError, send_mail
from frontdesk.settings import Settings


def conversation_url(public_url: str, site_id: str, session_id: str) -> str | None:
    """The console's page of the conversation, absolute: only when the server knows its
    public URL (never from a Host header)."""
    if not public_url or not session_id:
        return None
    return f"{public_url.rstrip('/')}/console/sites/{site_id}/conversations/{session_id}"


def fallback_message(
    delivery: Delivery, sender: str, recipient: str, public_url: str = ""
) -> EmailMessage:
    payload = delivery.payload
    message = EmailMessage()
    message["From"] = sender
    message["To"] = recipient
    message["Subject"] = email_subject(payload)
    # A stable id per handoff lets a mailbox (or a test) spot a re-sent duplicate.
    domain = sender.rsplit("@", 1)[-1] or "frontdesk.local"
    message["Message-ID"] = make_msgid(
        idstring=delivery.idempotency_key.replace(":", "."), domain=domain
    )
    message["X-Frontdesk-Idempotency-Key"] = delivery.idempotency_key
    conversation = conversation_url(
        public_url, delivery.site.id, str(payload.get("session_id") or "")
    )
    failed = dict(payload.get("failed_channels") or {})
    message.set_content(email_body(payload, failed, conversation))
    return message


class EmailChannel:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def recipient(self, delivery: Delivery) -> str:
        return delivery.site.handoff.fallback_email or self.settings.fallback_email

    async def deliver(self, delivery: Delivery) -> Delivered:
        settings = self.settings
        recipient = self.recipient(delivery)
        if not recipient:
            raise DeliveryError("no fallback email address configured", permanent=True)
        if not settings.smtp_host:
            raise DeliveryError("FRONTDESK_SMTP_HOST is not configured", permanent=True)
        message = fallback_message(delivery, settings.smtp_from, recipient, settings.public_url)
        try:
            await send_mail(settings, message)
        except MailError as exc:
            raise DeliveryError(str(exc)) from exc
        return Delivered(reference=recipient)
