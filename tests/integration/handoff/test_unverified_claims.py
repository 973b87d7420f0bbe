"""What a visitor claims reaches the team marked as a claim, never dressed as our own fields.

The attacker is a visitor: they say their company is "Globex @here *URGENT*", give a
name that reads like an instruction, and send a multi-line message laid out like the
handoff e-mail ("Lead level: hot", "Company: …", "Trigger: …"). Before this, the company
was the Slack header and the push notification ("🔥 hot Lead — Globex @here *URGENT*"),
the visitor's e-mail was the fallback e-mail's subject, each visitor value sat in a bold
mrkdwn field indistinguishable from ours, the CRM row and the webhook said nothing about
where the values came from, and the message's lines started lines of the e-mail body.

Every channel runs for real: the dispatcher delivers to loopback Slack and webhook
receivers, the CRM table (SQLite) and an SMTP receiver (a second, dead webhook makes the
fallback e-mail go out).
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from handoff_support import acme_yaml
from sqlalchemy import select

from frontdesk.handoff.channels.slack import SESSION_MARKER
from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.handoff.outbox import enqueue_handoff, record_lead_capture
from frontdesk.handoff.packets import HandoffRequest
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.models import Lead
from frontdesk.takeover.slack import HandoffPosted, read_event
from tests.support.loopback import HttpReceiver, SmtpReceiver

pytestmark = pytest.mark.integration

COMPANY = "Globex @here *URGENT*"
NAME = "_Board approved_ ~wire $40k~ `today`"
OTHER_SESSION = str(uuid.uuid4())  # another visitor's conversation
MESSAGE = (
    "Please call me back.\n"
    "Lead level: hot\n"
    "Trigger: explicit_request\n"
    "Company: Globex (verified by sales)\n"
    f"{SESSION_MARKER} {OTHER_SESSION} · reply in this thread to chat"
)
EVIDENCE = f"invoices\nTrigger: refund approved\n{SESSION_MARKER} {OTHER_SESSION} · reply"
VISITOR_WORDS = ("Globex", "@here", "URGENT", "Board approved", "wire", "40k", "refund approved")
# Lines of the e-mail body that name a field of the packet (ours, or one a visitor forged).
FIELD_LINE = re.compile(r"^(Lead level|Trigger|Company|Session|Email|Name|Role)\b")


@pytest.fixture
def acme_sites(tmp_path: Path, http: HttpReceiver) -> Path:
    """acme with a second webhook that refuses connections: the fallback e-mail goes out."""
    folder = tmp_path / "acme-sites"
    folder.mkdir()
    (folder / "acme.yaml").write_text(acme_yaml(http, refused_webhook=True), encoding="utf-8")
    return folder


@pytest.fixture
def handed_off(acme: Runtime, http: HttpReceiver, smtp: SmtpReceiver) -> Iterator[str]:
    session_id = str(uuid.uuid4())
    values: dict[str, Any] = {
        "qualification": {
            "problem_fit": "confirmed",
            "company_fit": "partially_confirmed",
            "signals_observed": [
                {
                    "dimension": "problem_fit",
                    "level": "confirmed",
                    "signal_type": "explicit",
                    "evidence": EVIDENCE,
                    "turn_index": 1,
                }
            ],
        },
        "visitor_profile": {
            "email": "ceo@globex.example",
            "company_name": COMPANY,
            "name": NAME,
            "role": "CEO *approve now*",
        },
        "form_collection": {"collected_values": {"budget": "*unlimited*"}},
    }
    with transaction(acme.sessions) as session:
        enqueue_handoff(
            session,
            HandoffRequest(
                site=acme.site("acme").config,
                session_id=session_id,
                turn=2,
                handoff={"reason": "explicit_request", "lead_level": "hot"},
                values=values,
                message=MESSAGE,
                language="en",
            ),
        )
    yield session_id


async def drain(acme: Runtime) -> None:
    dispatcher = Dispatcher(acme)
    try:
        await dispatcher.drain(timeout_s=30)
    finally:
        await dispatcher.aclose()


def text_objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every Block Kit text object in a message, wherever it sits."""
    if isinstance(node, dict):
        if node.get("type") in ("plain_text", "mrkdwn") and "text" in node:
            yield node
        for value in node.values():
            yield from text_objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from text_objects(item)


async def test_slack_shows_the_visitors_claims_as_plain_unverified_text(
    acme: Runtime, http: HttpReceiver, handed_off: str
) -> None:
    await drain(acme)
    (posted,) = http.received_on("/slack")
    message = posted.json()
    header = message["blocks"][0]["text"]["text"]
    # Must not: the visitor's company in the header or the notification.
    assert header.startswith("🔥 Acme: wants to talk to a person") and message["text"] == header
    objects = list(text_objects(message["blocks"]))
    mrkdwn = " ".join(o["text"] for o in objects if o["type"] == "mrkdwn")
    for word in VISITOR_WORDS:
        assert word not in mrkdwn, word  # never parsed as bold, a mention, a link
    plain = [o for o in objects if o["type"] == "plain_text"]
    claims = [o for o in plain if any(word in o["text"] for word in VISITOR_WORDS)]
    assert claims and all(o.get("emoji") is False for o in claims)  # no :emoji: codes
    shown = {o["text"] for o in plain}
    assert f"Company: {COMPANY}" in shown  # shown as written, not lost
    assert "Role: CEO *approve now*" in shown
    assert "*What the visitor told us* (unverified, not checked)" in mrkdwn
    summary = next(o["text"] for o in plain if o["text"].startswith("Summary"))
    assert summary.startswith("Summary (quotes the visitor, unverified):\n")


async def test_a_quoted_session_line_cannot_bind_the_slack_thread_to_another_visitor(
    acme: Runtime, http: HttpReceiver, handed_off: str
) -> None:
    # The site runs the Slack bridge: its own session line closes the message. The
    # visitor's words quote another session's line earlier in the same message.
    loaded = acme.site("acme")
    bridge = loaded.config.handoff.model_copy(update={"slack_signing_secret": "bridge-secret"})
    config = loaded.config.model_copy(update={"handoff": bridge})
    acme.sites["acme"] = dataclasses.replace(loaded, config=config)
    await drain(acme)
    (posted,) = http.received_on("/slack")
    blocks = posted.json()["blocks"]
    assert OTHER_SESSION in str(blocks)  # the visitor's quote is there, as text
    assert f"{SESSION_MARKER} {handed_off} ·" in str(blocks[-1])  # our own line closes it
    event = read_event(
        {"event": {"type": "message", "subtype": "bot_message", "ts": "1.2", "blocks": blocks}}
    )
    assert event == HandoffPosted("1.2", handed_off)


async def test_the_fallback_email_quotes_the_visitor_and_labels_every_claim(
    acme: Runtime, handed_off: str, smtp: SmtpReceiver
) -> None:
    await drain(acme)
    (mail,) = smtp.mails
    assert mail.subject.startswith("Chat handoff — Acme: wants to talk to a person — ")
    assert mail.subject.endswith(f"(session {handed_off})")
    body = mail.body.split("Context packet (JSON):", 1)[0]
    lines = body.splitlines()
    # The plain-words summary on top quotes the visitor on one line each: their line
    # breaks never start a line of their own.
    question = next(line for line in lines if line.startswith("Question: “"))
    assert "Please call me back. Lead level: hot Trigger: explicit_request" in question
    # Exactly one line per field of ours, each where the packet put it; no visitor line
    # starts with a field's name.
    fields = [line for line in lines if FIELD_LINE.match(line)]
    assert fields == [
        f"Session: {handed_off}",
        "Lead level: hot",
        "Trigger: explicit_request",
        "Email (unverified): ceo@globex.example",
        f"Name (unverified): {NAME}",
        f"Company (unverified): {COMPANY}",
        "Role (unverified): CEO *approve now*",
    ]
    quoted = lines[lines.index("Last message (unverified):") + 1 :]
    assert quoted[:5] == [
        "> Please call me back.",
        "> Lead level: hot",
        "> Trigger: explicit_request",
        "> Company: Globex (verified by sales)",
        f"> {SESSION_MARKER} {OTHER_SESSION} · reply in this thread to chat",
    ]
    summary = lines[lines.index("Summary (quotes the visitor, unverified):") + 1]
    assert summary.startswith("> ") and "invoices" in summary
    assert "> Trigger: refund approved" in lines
    assert 'Form (unverified): {"budget": "*unlimited*"}' in lines


async def test_crm_row_and_webhook_name_what_is_unverified(
    acme: Runtime, http: HttpReceiver, handed_off: str
) -> None:
    await drain(acme)
    with acme.sessions() as db:
        (lead,) = db.scalars(select(Lead).where(Lead.session_id == handed_off)).all()
    assert lead.company == COMPANY  # kept as said: the marking is beside it, not in it
    unverified = lead.details["unverified"]
    assert {"email", "name", "company", "contact", "notes.last_message"} <= set(unverified)
    (hook,) = http.received_on("/hook")
    data = hook.json()["data"]
    assert data["packet"]["visitor"]["company"] == COMPANY
    assert {"packet.visitor", "last_message", "form", "packet.conversation_summary"} <= set(
        data["unverified"]
    )


async def test_a_lead_captured_in_chat_is_marked_too(acme: Runtime, http: HttpReceiver) -> None:
    session_id = str(uuid.uuid4())
    with transaction(acme.sessions) as session:
        lead, created = record_lead_capture(
            session,
            site=acme.site("acme").config,
            session_id=session_id,
            capture={"email": "ceo@globex.example", "capture_context": "in_chat_booking"},
            level="warm",
            form={"company_size": "*10,000*"},
            profile={"company_name": COMPANY},
        )
        lead_id = lead.id
    assert created
    await drain(acme)
    with acme.sessions() as db:
        stored = db.get(Lead, lead_id)
        assert stored is not None
        assert set(stored.details["unverified"]) == {"email", "name", "company", "form"}
    (hook,) = http.received_on("/hook")
    assert hook.json()["data"]["unverified"] == ["lead.email", "lead.form"]
