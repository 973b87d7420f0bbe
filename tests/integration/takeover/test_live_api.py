"""Live takeover over HTTP on one replica (SQLite, in-process bus): join, messages both
ways, typing, release and close; resume after a dropped stream; bad input.

`live_poll_s` is 30 s in these tests: every delivery within them came through the bus's
wake-up, not the periodic re-read."""

from __future__ import annotations

import asyncio

import pytest
from live_support import (
    Replica,
    ScriptedBackend,
    add_operator,
    http,
    new_session,
    operator_stream,
    sign_in,
    visitor_stream,
    widget_headers,
)

from frontdesk.settings import Settings
from frontdesk.takeover.desk import TakeoverDesk

pytestmark = pytest.mark.integration
# On SQLite and on the production stack (two workers behind a balancer, PostgreSQL +
# pgvector, Redis pub/sub between them).
ON_EVERY_STACK = pytest.mark.usefixtures("stack")

LIVE = "/console/sites/demo/live"


@ON_EVERY_STACK
async def test_join_reply_typing_release_close(replica: Replica) -> None:
    base = replica.url
    session_id, secret = new_session(base)
    anna = sign_in(base, "anna.berg@example.com")
    visitor = await visitor_stream(base, session_id, secret).start()
    operator = await operator_stream(base, anna, f"{LIVE}/{session_id}/events").start()
    try:
        await visitor.wait_for(lambda events: any(e.event == "state" for e in events))
        assert visitor.of("state")[0].data["owner"] == "bot"

        joined = await anna.post(base, f"{LIVE}/{session_id}/join", {"name": "Anna"})
        assert joined.status_code == 200, joined.text
        await visitor.wait_for(lambda events: any(e.event == "operator_joined" for e in events))
        assert visitor.of("operator_joined")[0].data["name"] == "Anna"
        assert visitor.of("operator_joined")[0].data["company"]  # the site's name

        typing = await anna.post(base, f"{LIVE}/{session_id}/typing", {"active": True})
        assert typing.status_code == 200, typing.text
        sent = await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "Hi, I'm Anna."})
        assert sent.status_code == 200, sent.text
        await visitor.wait_for(lambda events: any(e.event == "operator_message" for e in events))
        message = visitor.of("operator_message")[0]
        assert message.data["text"] == "Hi, I'm Anna." and message.data["name"] == "Anna"
        assert message.id == str(sent.json()["id"])
        assert visitor.of("typing")[0].data == {**visitor.of("typing")[0].data, "who": "operator"}

        # The visitor types: the operator sees it; the visitor's own typing is not echoed.
        typed = await http(
            "POST",
            f"{base}/v1/sessions/{session_id}/typing",
            json={"active": True},
            headers=widget_headers(secret),
        )
        assert typed.status_code == 202, typed.text
        await operator.wait_for(
            lambda events: any(e.event == "typing" and e.data["who"] == "visitor" for e in events)
        )

        released = await anna.post(base, f"{LIVE}/{session_id}/release")
        assert released.status_code == 200, released.text
        await visitor.wait_for(lambda events: any(e.event == "released" for e in events))
        overview = (await anna.get(base, LIVE)).json()
        assert overview["conversations"] == []  # back to the bot

        # Join again, then close.
        assert (await anna.post(base, f"{LIVE}/{session_id}/join")).status_code == 200
        closed = await anna.post(base, f"{LIVE}/{session_id}/close")
        assert closed.status_code == 200, closed.text
        await visitor.wait_for(lambda events: any(e.event == "closed" for e in events))
        assert "visitor" not in {e.data.get("who") for e in visitor.of("typing")}
        ids = [int(e.id) for e in visitor.events if e.id]
        assert ids == sorted(set(ids))  # increasing, no repeats
    finally:
        await visitor.close()
        await operator.close()


@ON_EVERY_STACK
async def test_resume_after_a_dropped_stream_loses_and_repeats_nothing(replica: Replica) -> None:
    base = replica.url
    session_id, secret = new_session(base)
    anna = sign_in(base, "anna.berg@example.com")
    assert (await anna.post(base, f"{LIVE}/{session_id}/join")).status_code == 200
    first = await visitor_stream(base, session_id, secret).start()
    for n in range(3):
        assert (
            await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": f"m{n}"})
        ).status_code == 200
    await first.wait_for(
        lambda events: len([e for e in events if e.event == "operator_message"]) == 3
    )
    last_seen = first.last_id()
    await first.close()  # the connection drops

    for n in range(3, 6):  # said while the visitor was away
        assert (
            await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": f"m{n}"})
        ).status_code == 200
    second = await visitor_stream(base, session_id, secret, last_id=last_seen).start()
    try:
        assert (
            await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "m6"})
        ).status_code == 200
        await second.wait_for(lambda events: any(e.data.get("text") == "m6" for e in events))
        texts = [
            e.data["text"] for e in first.of("operator_message") + second.of("operator_message")
        ]
        assert texts == [f"m{n}" for n in range(7)]  # every message once, in order
        assert second.of("operator_joined") == []  # nothing before Last-Event-ID again
    finally:
        await second.close()


@ON_EVERY_STACK
async def test_bad_input_gets_clear_errors_and_loses_nothing(replica: Replica) -> None:
    base = replica.url
    session_id, secret = new_session(base)
    anna = sign_in(base, "anna.berg@example.com")
    vic = sign_in(base, "vic@example.com")
    otto = sign_in(base, "otto@example.com", site="acme")

    # Replying before joining, a viewer joining, another site's owner: refused.
    early = await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "hello"})
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_joined"
    assert (await vic.post(base, f"{LIVE}/{session_id}/join")).status_code == 403
    assert (await otto.post(base, f"{LIVE}/{session_id}/join")).status_code == 404
    assert (await otto.get(base, f"{LIVE}/{session_id}")).status_code == 404
    # Without the CSRF token.
    no_csrf = await anna.post(base, f"{LIVE}/{session_id}/join", csrf=False)
    assert no_csrf.status_code == 403
    unknown = await anna.post(base, f"{LIVE}/00000000-0000-4000-8000-000000000000/join")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "session_not_found"
    unknown_reply = await anna.post(
        base, f"{LIVE}/00000000-0000-4000-8000-000000000000/reply", {"text": "hi"}
    )
    assert unknown_reply.status_code == 404
    assert unknown_reply.json()["error"]["code"] == "session_not_found"

    # A name the visitor would take for the assistant (the widget's word for it, the
    # site's name, spelled with look-alike or invisible characters): refused, no join.
    for name in ("Tessellate Assistant", "Tessellate", "Assi\u200bstant", "\u0410ssistant"):
        posing = await anna.post(base, f"{LIVE}/{session_id}/join", {"name": name})
        assert posing.status_code == 422, (name, posing.text)
        assert posing.json()["error"]["code"] == "name_impersonates_assistant"
        assert "Choose another name" in posing.json()["error"]["message"]

    assert (await anna.post(base, f"{LIVE}/{session_id}/join")).status_code == 200
    assert (
        await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "kept"})
    ).status_code == 200
    empty = await anna.post(base, f"{LIVE}/{session_id}/reply", {"text": "   "})
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "empty_message"
    # Another agent cannot take over a conversation someone owns.
    add_operator(replica.runtime, "bo@example.com", {"demo": "agent"})
    bo = sign_in(base, "bo@example.com")
    taken = await bo.post(base, f"{LIVE}/{session_id}/join")
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "owned_by_other"

    # The visitor's stream: a wrong or missing secret, a secret in the URL, a bad id.
    wrong = await http(
        "GET", f"{base}/v1/sessions/{session_id}/events", headers=widget_headers("nope"), timeout=10
    )
    assert wrong.status_code == 403
    assert wrong.json()["error"]["code"] == "session_secret_invalid"
    in_url = await http(
        "GET",
        f"{base}/v1/sessions/{session_id}/events?session_secret={secret}",
        headers=widget_headers(),
        timeout=10,
    )
    assert in_url.status_code == 403
    bad_id = await http(
        "GET",
        f"{base}/v1/sessions/{session_id}/events",
        headers=widget_headers(secret, **{"Last-Event-ID": "x1"}),
        timeout=10,
    )
    assert bad_id.status_code == 422
    assert bad_id.json()["error"]["code"] == "bad_last_event_id"

    # What must survive all of that: the join and the one message, nothing else.
    log = (await anna.get(base, f"{LIVE}/{session_id}")).json()
    assert log["state"] == "human" and log["operator_name"] == "Anna Berg"
    assert [e["type"] for e in log["events"]] == ["operator_joined", "operator_message"]
    assert log["events"][1]["text"] == "kept"
    stream = await visitor_stream(base, session_id, secret).start()
    try:
        await stream.wait_for(lambda events: len(stream.of("operator_message")) == 1)
        assert stream.of("state")[0].data["owner"] == "human"
    finally:
        await stream.close()


@ON_EVERY_STACK
async def test_presence_and_ringing_on_the_site_stream(replica: Replica) -> None:
    base = replica.url
    session_id, _ = new_session(base)
    anna = sign_in(base, "anna.berg@example.com")
    site = await operator_stream(base, anna, f"{LIVE}/events").start()
    try:
        await site.wait_for(lambda events: any(e.event == "presence" for e in events))
        assert [op["name"] for op in site.of("presence")[-1].data["operators"]] == ["Anna Berg"]
        assert [op["name"] for op in (await anna.get(base, LIVE)).json()["online"]] == ["Anna Berg"]
        assert (await anna.get(base, LIVE)).json()["can_join"] is True
    finally:
        await site.close()
    # The stream closed: Anna is offline (checked on the server, which saw the disconnect).
    for _ in range(50):
        if not (await anna.get(base, LIVE)).json()["online"]:
            break
        await asyncio.sleep(0.1)
    assert (await anna.get(base, LIVE)).json()["online"] == []
    assert session_id  # a session existed throughout; nothing rang for it
    assert (await anna.get(base, LIVE)).json()["conversations"] == []


class DraftingBackend(ScriptedBackend):
    """The scripted backend plus a drafter that records the question it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.questions: list[str] = []

    async def draft_reply(self, site: object, session_id: str, question: str) -> dict[str, object]:
        self.questions.append(question)
        return {"draft": f"Draft for: {question}", "sources": []}


async def test_suggest_returns_a_draft_for_the_visitors_last_question(
    live_settings: Settings,
) -> None:
    backend = DraftingBackend()
    server = Replica(live_settings, backend).start()
    try:
        add_operator(server.runtime, "anna.berg@example.com", {"demo": "agent"})
        add_operator(server.runtime, "vic@example.com", {"demo": "viewer"})
        base = server.url
        session_id, _ = new_session(base)
        anna = sign_in(base, "anna.berg@example.com")
        none_yet = await anna.post(base, f"{LIVE}/{session_id}/suggest")
        assert none_yet.status_code == 404 and none_yet.json()["error"]["code"] == "no_question"
        assert (await anna.post(base, f"{LIVE}/{session_id}/join")).status_code == 200
        # The visitor's message while Anna owns the conversation (what human_relay writes).
        writer = TakeoverDesk(server.runtime.sessions)  # this loop's own desk on the same store
        await writer.relay_visitor("demo", session_id, "Can I pay by invoice?")
        drafted = await anna.post(base, f"{LIVE}/{session_id}/suggest")
        assert drafted.status_code == 200, drafted.text
        assert drafted.json()["draft"] == "Draft for: Can I pay by invoice?"
        assert backend.questions == ["Can I pay by invoice?"]
        # Nothing was sent to the visitor by suggesting.
        log = (await anna.get(base, f"{LIVE}/{session_id}")).json()["events"]
        assert [e["type"] for e in log] == ["operator_joined", "visitor_message"]
        vic = sign_in(base, "vic@example.com")
        assert (await vic.post(base, f"{LIVE}/{session_id}/suggest")).status_code == 403
    finally:
        server.stop()


async def test_chat_turn_while_a_person_owns_it_is_relayed_not_answered(
    live_settings: Settings,
) -> None:
    from frontdesk.conversation.service import ChatService

    server = Replica(live_settings, chat_factory=ChatService).start()
    try:
        add_operator(server.runtime, "anna.berg@example.com", {"demo": "agent"})
        base = server.url
        session_id, secret = new_session(base)
        anna = sign_in(base, "anna.berg@example.com")
        operator = await operator_stream(base, anna, f"{LIVE}/{session_id}/events").start()
        visitor = await visitor_stream(base, session_id, secret).start()
        try:
            assert (await anna.post(base, f"{LIVE}/{session_id}/join")).status_code == 200
            body = {"message": "Is anyone there?", "session_id": session_id}
            turn = await http(
                "POST", f"{base}/v1/chat", json=body, headers=widget_headers(secret), timeout=120
            )
            assert turn.status_code == 200, turn.text
            kinds = [line[7:] for line in turn.text.splitlines() if line.startswith("event: ")]
            assert kinds == ["relayed"]  # no token, no complete: the bot said nothing
            await operator.wait_for(lambda events: bool(operator.of("visitor_message")))
            relayed = operator.of("visitor_message")[0]
            assert relayed.data["text"] == "Is anyone there?"
            assert f'"event_id": {relayed.id}' in turn.text
            # The visitor's own message is not echoed back on the widget's stream.
            await visitor.wait_for(lambda events: bool(visitor.of("operator_joined")))
            assert visitor.of("visitor_message") == []
        finally:
            await operator.close()
            await visitor.close()
    finally:
        server.stop()
