"""A visitor's words never become Slack markup, and Block Kit limits hold however long
the conversation was. The visitor's words travel in `plain_text`
objects (Slack never parses them); every `mrkdwn` text is ours, escaped.

A real dispatcher delivers to a real loopback HTTP receiver standing in for Slack's
incoming webhook; what the receiver got is what the sales channel would render.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from frontdesk.handoff.dispatcher import Dispatcher
from frontdesk.handoff.outbox import enqueue_handoff
from frontdesk.handoff.packets import HandoffRequest
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from tests.support.loopback import HttpReceiver

pytestmark = pytest.mark.integration

INJECTED = "<@U024BE7LH> <http://evil.example/login|re-verify Slack login> <!channel> & co"
# A Slack control sequence: `<` then @, #, !, or a URL scheme — exactly what must not get
# through unescaped in a mrkdwn text.
SLACK_MARKUP = re.compile(r"<[@#!]|<https?:")


def texts(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(type, text) of every text object Slack renders: the notification text, headers,
    section texts and fields, context elements, button labels."""
    found = [("mrkdwn", message["text"])]
    for block in message["blocks"]:
        if "text" in block:
            found.append((block["text"]["type"], block["text"]["text"]))
        for field in block.get("fields", []):
            found.append((field["type"], field["text"]))
        for element in block.get("elements", []):
            if "type" in element and "text" in element and isinstance(element["text"], str):
                found.append((element["type"], element["text"]))
    return found


async def deliver(runtime: Runtime, values: dict[str, Any], message: str) -> None:
    with transaction(runtime.sessions) as session:
        enqueue_handoff(
            session,
            HandoffRequest(
                site=runtime.site("acme").config,
                session_id="sess-slack",
                turn=1,
                handoff={"reason": "explicit_request", "lead_level": "hot"},
                values=values,
                message=message,
                language="en",
            ),
        )
    dispatcher = Dispatcher(runtime)
    try:
        await dispatcher.drain(timeout_s=30)
    finally:
        await dispatcher.aclose()


def quoting(evidence: str, **profile: str) -> dict[str, Any]:
    """State whose summary quotes the visitor's own words (an explicit problem signal)."""
    return {
        "qualification": {
            "problem_fit": "confirmed",
            "signals_observed": [
                {
                    "dimension": "problem_fit",
                    "level": "confirmed",
                    "signal_type": "explicit",
                    "evidence": evidence,
                    "turn_index": 1,
                }
            ],
        },
        "visitor_profile": {"email": "ana@northwind.io", **profile},
    }


async def test_mentions_and_links_arrive_as_literal_text(acme: Runtime, http: HttpReceiver) -> None:
    # Must survive: the visitor's words, readable as typed (a `plain_text` object is
    # shown as written), and the handoff delivered. Must not: a mention, @channel or a
    # disguised link in the sales channel (markup in a `mrkdwn` text).
    await deliver(acme, quoting(INJECTED, role="Ops & Finance <lead>"), INJECTED)
    (slack,) = http.received_on("/slack")
    message = slack.json()
    rendered = texts(message)
    for kind, text in rendered:
        if kind == "mrkdwn":
            assert not SLACK_MARKUP.search(text), text
            assert "&" not in text.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "")
    summary = message["blocks"][4]["text"]
    assert summary["type"] == "plain_text" and INJECTED in summary["text"]
    role = message["blocks"][3]["fields"][3]
    assert role == {"type": "plain_text", "text": "Role: Ops & Finance", "emoji": False}
    assert [kind for kind, text in rendered if "evil.example" in text] == ["plain_text"]


async def test_block_kit_limits_are_enforced_with_an_ellipsis(
    acme: Runtime, http: HttpReceiver
) -> None:
    # Must survive: a delivered message (Slack answers 400 `invalid_blocks` to a section
    # text over 3,000 characters or a header over 150), with the start of the visitor's
    # words. Must not: a text over its limit, or an entity cut in half.
    long_words = "&<>" * 2000  # 6,000 characters, 18,000 once escaped
    company = "C&" * 150  # a 200-character company once the packet cuts it
    await deliver(acme, quoting(long_words, company_name=company), long_words)
    (slack,) = http.received_on("/slack")
    message = slack.json()
    assert len(message["blocks"]) <= 50
    header = message["blocks"][0]["text"]["text"]
    assert header == "🔥 Acme: wants to talk to a person — wrote 1 message"  # not the company
    for kind, text in texts(message):
        assert len(text) <= 3000, (kind, len(text))
        if kind == "mrkdwn":  # escaped text: never an entity cut in half
            assert re.search(r"&[a-z]{0,3}…$", text) is None
    summary = message["blocks"][4]["text"]["text"]
    assert summary.endswith("…") and len(summary) > 2900
    for block in message["blocks"][2:4]:
        for field in block["fields"]:
            assert len(field["text"]) <= 2000
    company = message["blocks"][3]["fields"][2]["text"]
    assert company.startswith("Company: C&C&") and len(company) <= 2000
