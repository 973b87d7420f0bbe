"""The visitor's history (`GET /v1/sessions/{id}`) and GDPR export include the live
takeover: a reload shows the operator's messages once, in place, and the event stream
resumes right after them."""

from __future__ import annotations

import httpx
import pytest
from live_support import Replica, new_session, sign_in, visitor_stream, widget_headers

pytestmark = pytest.mark.integration

LIVE = "/console/sites/demo/live"


async def ask(base: str, session_id: str, secret: str, text: str) -> None:
    body = {"message": text, "session_id": session_id, "session_secret": secret}
    async with httpx.AsyncClient(base_url=base, headers=widget_headers(), timeout=30) as visitor:
        answered = await visitor.post("/v1/ask", json=body)
    assert answered.status_code == 200, answered.text


async def test_history_merges_the_live_log_in_time_order_and_says_where_to_resume(
    replica: Replica,
) -> None:
    base = replica.url
    session_id, secret = new_session(base)
    await ask(base, session_id, secret, "How do I export my data?")
    anna = sign_in(base, "anna.berg@example.com")
    joined = await anna.post(base, f"{LIVE}/{session_id}/join", {"name": "Anna"})
    assert joined.status_code == 200, joined.text
    typing = await anna.post(base, f"{LIVE}/{session_id}/typing", {"active": True})
    assert typing.status_code == 200, typing.text
    sent = await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "Hi, I'm Anna."})
    assert sent.status_code == 200, sent.text

    async with httpx.AsyncClient(base_url=base, headers=widget_headers(secret)) as visitor:
        history = await visitor.get(f"/v1/sessions/{session_id}")
    assert history.status_code == 200, history.text
    body = history.json()
    shape = [(m["role"], m.get("event")) for m in body["messages"]]
    assert shape == [
        ("user", None),
        ("assistant", None),
        ("event", "operator_joined"),  # typing is a moment, not part of the transcript
        ("operator", "operator_message"),
    ]
    joined, message = body["messages"][2], body["messages"][3]
    assert joined["name"] == "Anna" and joined["company"]
    assert message["text"] == "Hi, I'm Anna." and message["event_id"] == sent.json()["id"]
    assert body["live"] == {"owner": "human", "name": "Anna", "last_event_id": sent.json()["id"]}

    # Resuming after last_event_id repeats nothing; the next message arrives.
    stream = await visitor_stream(
        base, session_id, secret, last_id=str(body["live"]["last_event_id"])
    ).start()
    try:
        await stream.wait_for(lambda events: any(e.event == "state" for e in events))
        await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "Still there?"})
        await stream.wait_for(lambda events: any(e.event == "operator_message" for e in events))
        assert [e.data["text"] for e in stream.of("operator_message")] == ["Still there?"]
    finally:
        await stream.close()

    async with httpx.AsyncClient(base_url=base, headers=widget_headers(secret)) as visitor:
        exported = (await visitor.get(f"/v1/sessions/{session_id}/export")).json()
    kinds = [e["type"] for e in exported["live_events"]]
    assert kinds == ["operator_joined", "typing", "operator_message", "operator_message"]
