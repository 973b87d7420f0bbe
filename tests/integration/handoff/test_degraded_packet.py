"""The last-resort e-mail goes out even when the context packet cannot be built.

With the store and the spool unable to write, the API process mails a lead straight to
the site's fallback address. When the packet builder fails (its own error, or a state it
refuses such as a captured e-mail's `lead_capture:…` reason) the mail still goes to a
real SMTP server on loopback, marked as a degraded packet, with the session, the site,
the visitor's e-mail and their last message: nothing else holds that lead.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from frontdesk.conversation.leads_in_outage import mail_owed_lead
from frontdesk.handoff import direct
from frontdesk.handoff.direct import mail_handoff
from frontdesk.handoff.packets import HandoffRequest
from frontdesk.leads.packet import ContextPacketGenerationError
from frontdesk.runtime import Runtime
from tests.support.loopback import SmtpReceiver

pytestmark = pytest.mark.integration

EMAIL = "dana@northwind.io"
MESSAGE = "Please call me back about 40 seats.\nLead level: hot"


def failing_packet_builder(*_: Any, **__: Any) -> dict[str, Any]:
    raise ContextPacketGenerationError("handoff_reason not set")


async def test_a_failing_packet_builder_still_mails_a_degraded_packet(
    acme: Runtime,
    smtp: SmtpReceiver,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(direct, "handoff_packet", failing_packet_builder)
    session_id = str(uuid.uuid4())
    with caplog.at_level(logging.WARNING, logger="frontdesk.handoff.direct"):
        mailed = await mail_handoff(
            acme.settings,
            HandoffRequest(
                site=acme.site("acme").config,
                session_id=session_id,
                turn=3,
                handoff={"reason": "explicit_request", "notify": True},
                values={"visitor_profile": {"email": EMAIL}},
                message=MESSAGE,
                language="en",
            ),
            key="k1",
        )
    assert mailed, caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.CRITICAL], caplog.text
    (mail,) = smtp.mails
    assert mail.recipients == ("sales@acme.test",)
    subject = f"[HANDOFF FALLBACK] [DEGRADED PACKET] lead — Acme — session {session_id}"
    assert mail.subject == subject
    body = mail.body
    assert body.startswith("DEGRADED PACKET: the context packet could not be built")
    assert "handoff_reason not set" in body  # why it is degraded
    assert f"Session: {session_id}" in body and "Site: Acme (acme)" in body
    assert f"Email (unverified): {EMAIL}" in body
    # The visitor's message is quoted: its second line cannot pose as a packet field.
    assert "> Please call me back about 40 seats.\n> Lead level: hot" in body
    assert "\nLead level: hot" not in body
    assert "store: the store and the spool could not write" in body


async def test_a_captured_email_with_no_packet_reason_is_mailed_degraded(
    acme: Runtime, smtp: SmtpReceiver
) -> None:
    """A captured e-mail (no handoff) has a reason the packet does not accept: the real
    builder fails, and the lead still reaches the mailbox."""
    session_id = str(uuid.uuid4())
    mailed = await mail_owed_lead(
        acme.settings,
        acme.site("acme").config,
        session_id=session_id,
        turn=2,
        key="k2",
        message=f"Book me in, my email is {EMAIL}",
        values={"lead_capture": {"email": EMAIL, "capture_context": "in_chat_booking"}},
    )
    assert mailed
    (mail,) = smtp.mails
    assert "[DEGRADED PACKET]" in mail.subject and session_id in mail.subject
    assert EMAIL not in mail.subject  # the visitor's words stay out of the subject
    assert f"Email (unverified): {EMAIL}" in mail.body
    assert "Trigger: lead_capture:in_chat_booking" in mail.body
    # Why it is degraded, on one line (the validation error spans several).
    assert mail.body.split("\n", 1)[0].endswith("this is what is known."), mail.body
    assert f"> Book me in, my email is {EMAIL}" in mail.body
