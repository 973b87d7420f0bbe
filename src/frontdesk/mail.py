"""One e-mail through the SMTP server of the process settings (`FRONTDESK_SMTP_*`): the
handoff's fallback e-mail, appointment invitations and the weekly digest go out this way."""

from __future__ import annotations

from email.message import EmailMessage

import aiosmtplib

from frontdesk.settings import Settings


class MailError(Exception):
    """The server refused the message or could not be reached: the cause's type and text."""


async def send_mail(settings: Settings, message: EmailMessage) -> None:
    """Send `message`; raises `MailError` when it does not go out."""
    try:
        await aiosmtplib.send(
            message,
            hostname=settings.smtp_host,
            port=settings.smtp_port,
            username=settings.smtp_username or None,
            password=settings.smtp_password or None,
            start_tls=True if settings.smtp_starttls else None,  # None: if offered
            timeout=settings.smtp_timeout_s,
        )
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
        raise MailError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
