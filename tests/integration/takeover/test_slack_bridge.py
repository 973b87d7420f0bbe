"""The Slack bridge against a loopback stand-in for Slack: the handoff message reaches the
stand-in's incoming webhook (the real dispatcher), the stand-in reports it back through
the Events API as Slack documents it (a signed `event_callback` with a `bot_message`),
then posts a person's reply in that message's thread — which reaches the visitor's
widget stream. Signatures are checked; Slack's retries are relayed once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from live_support import Replica, http, new_session, visitor_stream, widget_headers

from frontdesk.conversation.service import ChatService
from frontdesk.settings import Settings
from frontdesk.takeover.slack import slack_signature
from tests.support.loopback import HttpReceiver

pytestmark = pytest.mark.integration

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"  # Slack's documentation example
HANDOFF_TS = "1700000000.000100"


class SlackStandIn:
    """Sends what Slack's Events API sends: signed JSON bodies to the request URL."""

    def __init__(self, url: str, secret: str = SIGNING_SECRET) -> None:
        self.url = url
        self.secret = secret

    async def send(
        self, payload: dict[str, object], *, age_s: int = 0, retry: int | None = None
    ) -> httpx.Response:
        body = json.dumps(payload).encode()
        timestamp = str(int(time.time()) - age_s)
        headers = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": slack_signature(self.secret, timestamp, body),
        }
        if retry is not None:
            headers["X-Slack-Retry-Num"] = str(retry)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        return await http("POST", self.url, content=body, headers=headers)


def callback(event: dict[str, object], event_id: str) -> dict[str, object]:
    return {
        "token": "unused-verification-token",
        "team_id": "T0001",
        "api_app_id": "A0001",
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "event": event,
    }


@pytest.fixture
def slack_receiver() -> Iterator[HttpReceiver]:
    receiver = HttpReceiver().start()
    yield receiver
    receiver.stop()


def bridge_site(sites_dir: Path, webhook: str) -> None:
    demo_file = sites_dir / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo.setdefault("handoff", {})
    demo["handoff"]["slack_webhook_url"] = webhook
    demo["handoff"]["slack_signing_secret"] = SIGNING_SECRET
    # The team hears of a handoff at once, even while it asks the visitor for a contact.
    demo["handoff"]["contact_wait_seconds"] = 0
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")


async def test_a_reply_in_the_slack_thread_reaches_the_widget(
    live_settings: Settings, sites_dir: Path, slack_receiver: HttpReceiver
) -> None:
    bridge_site(sites_dir, slack_receiver.url("/slack"))
    server = Replica(live_settings, chat_factory=ChatService).start()
    slack = SlackStandIn(f"{server.url}/v1/slack/events/demo")
    try:
        base = server.url
        session_id, secret = new_session(base)
        # Slack checks the request URL first.
        check = await slack.send({"type": "url_verification", "challenge": "3eZbrw1aBm2rZgRNFdxV"})
        assert check.status_code == 200 and check.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV"}

        turn = await http(
            "POST",
            f"{base}/v1/chat",
            json={"message": "I want to talk to a person", "session_id": session_id},
            headers=widget_headers(secret),
        )
        assert turn.status_code == 200, turn.text
        deadline = time.monotonic() + 30
        while not slack_receiver.received_on("/slack") and time.monotonic() < deadline:
            await _pause()
        posted = slack_receiver.received_on("/slack")[0].json()
        assert f"Frontdesk session {session_id}" in json.dumps(posted["blocks"])

        # Slack reports the webhook's message to the app, with its ts.
        reported = await slack.send(
            callback(
                {
                    "type": "message",
                    "subtype": "bot_message",
                    "bot_id": "B0001",
                    "text": posted["text"],
                    "blocks": posted["blocks"],
                    "ts": HANDOFF_TS,
                    "channel": "C0001",
                },
                "Ev0001",
            )
        )
        assert reported.status_code == 200, reported.text

        visitor = await visitor_stream(base, session_id, secret).start()
        try:
            reply = {
                "type": "message",
                "user": "U0001",
                "text": "Hi, Dana from sales here. How can I help?",
                "ts": "1700000050.000200",
                "thread_ts": HANDOFF_TS,
                "channel": "C0001",
                "user_profile": {"display_name": "Dana", "real_name": "Dana Kim"},
            }
            assert (await slack.send(callback(reply, "Ev0002"))).status_code == 200
            # Slack retries a delivery it thinks timed out: relayed once.
            assert (await slack.send(callback(reply, "Ev0002"), retry=1)).status_code == 200
            await visitor.wait_for(lambda events: bool(visitor.of("operator_message")))
            joined = visitor.of("operator_joined")
            assert [e.data["name"] for e in joined] == ["Dana"]
            message = visitor.of("operator_message")[0]
            assert message.data["text"] == "Hi, Dana from sales here. How can I help?"
            assert message.data["via"] == "slack"
            # While Dana owns it, the bot is silent: the visitor's next message is relayed.
            relayed = await http(
                "POST",
                f"{base}/v1/chat",
                json={"message": "Great, thanks", "session_id": session_id},
                headers=widget_headers(secret),
            )
            assert "event: relayed" in relayed.text and "event: token" not in relayed.text
        finally:
            await visitor.close()
        log = server.app.state.takeover
        events = await log.session_log("demo", session_id)
        assert [e.data.get("text") for e in events if e.kind == "operator_message"] == [
            "Hi, Dana from sales here. How can I help?"
        ]

        # A top-level message, a forged or stale signature: nothing reaches the visitor.
        top_level = {**reply, "ts": "1700000099.000300", "thread_ts": None, "text": "psst"}
        assert (await slack.send(callback(top_level, "Ev0003"))).status_code == 200
        forged = SlackStandIn(slack.url, secret="not-the-secret")
        bad = await forged.send(callback({**reply, "ts": "1700000100.0004"}, "Ev0004"))
        assert bad.status_code == 401 and bad.json()["error"]["code"] == "bad_signature"
        stale = await slack.send(callback({**reply, "ts": "1700000101.0005"}, "Ev0005"), age_s=600)
        assert stale.status_code == 401
        events = await log.session_log("demo", session_id)
        assert len([e for e in events if e.kind == "operator_message"]) == 1
        # A site without the bridge has no request URL.
        off = await SlackStandIn(f"{base}/v1/slack/events/acme").send({"type": "url_verification"})
        assert off.status_code == 404
    finally:
        server.stop()


async def _pause() -> None:
    import asyncio

    await asyncio.sleep(0.1)
