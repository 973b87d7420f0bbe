"""The takeover desk refuses with domain errors, not HTTP ones (real SQLite, no web app):
another site's owner naming this site's session finds nothing, a second operator cannot
act on a conversation someone else owns, a bad message is refused and nothing is lost.
Whether to ring is the conversation's routing, handed to the desk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_support import write_sites

from frontdesk.api.visitor_sessions import start_session
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.errors import (
    BadMessage,
    NotJoined,
    OwnedByOther,
    TakeoverError,
    UnknownSession,
)
from frontdesk.takeover.events import MAX_TEXT, Operator

pytestmark = pytest.mark.integration

ANNA = Operator("op-anna", "Anna")
BORIS = Operator("op-boris", "Boris")
OTTO = Operator("op-otto", "Otto")  # owner of the other site, acme


@pytest.fixture
def runtime(tmp_path: Path, sites_dir: Path) -> Iterator[Runtime]:
    write_sites(sites_dir)
    runtime = build_runtime(Settings(data_dir=tmp_path / "data", sites_dir=sites_dir))
    yield runtime
    runtime.close()


def new_session(runtime: Runtime, site_id: str) -> str:
    return start_session(runtime, runtime.sites[site_id].config, None).session_id


async def test_another_sites_owner_cannot_reach_this_sites_session(runtime: Runtime) -> None:
    desk = TakeoverDesk(runtime.sessions)
    demo, acme = runtime.sites["demo"].config, runtime.sites["acme"].config
    session_id = new_session(runtime, "demo")

    with pytest.raises(UnknownSession) as refused:
        await desk.join(acme, session_id, OTTO)
    assert refused.value.code == "session_not_found"
    with pytest.raises(UnknownSession):
        await desk.require_session("acme", session_id)
    with pytest.raises(UnknownSession):
        await desk.reply(acme, session_id, OTTO, "hello from acme")

    # The session is untouched: nobody owns it and its log is empty on either site.
    assert (await desk.ownership("demo", session_id)).state == "bot"
    assert await desk.whole_log("demo", session_id) == []
    assert await desk.whole_log("acme", session_id) == []
    await desk.join(demo, session_id, ANNA)  # its own site's operator still can
    assert (await desk.ownership("demo", session_id)).operator_id == ANNA.id


async def test_a_second_operator_cannot_act_on_a_conversation_someone_owns(
    runtime: Runtime,
) -> None:
    desk = TakeoverDesk(runtime.sessions)
    demo = runtime.sites["demo"].config
    session_id = new_session(runtime, "demo")

    with pytest.raises(NotJoined) as not_joined:
        await desk.reply(demo, session_id, ANNA, "Hi")
    assert not_joined.value.code == "not_joined"

    await desk.join(demo, session_id, ANNA)
    with pytest.raises(OwnedByOther, match="Anna has already joined"):
        await desk.join(demo, session_id, BORIS)
    for action in (
        desk.reply(demo, session_id, BORIS, "I am Anna"),
        desk.operator_typing(demo, session_id, BORIS, True),
        desk.hand_back(demo, session_id, BORIS, close=True),
    ):
        with pytest.raises(OwnedByOther) as refused:
            await action
        assert refused.value.code == "owned_by_other"

    owner = await desk.ownership("demo", session_id)
    assert (owner.state, owner.operator_id) == ("human", ANNA.id)
    kinds = [event.kind for event in await desk.whole_log("demo", session_id)]
    assert kinds == ["operator_joined"]


async def test_a_bad_message_is_refused_and_nothing_is_lost(runtime: Runtime) -> None:
    desk = TakeoverDesk(runtime.sessions)
    demo = runtime.sites["demo"].config
    session_id = new_session(runtime, "demo")
    await desk.join(demo, session_id, ANNA)
    sent = await desk.reply(demo, session_id, ANNA, "  Hello, how can I help?  ")
    assert sent.data["text"] == "Hello, how can I help?"

    for text, code in ((" \x00\n\t ", "empty_message"), ("x" * (MAX_TEXT + 1), "message_too_long")):
        with pytest.raises(BadMessage) as refused:
            await desk.reply(demo, session_id, ANNA, text)
        assert isinstance(refused.value, TakeoverError)
        assert refused.value.code == code

    log = await desk.whole_log("demo", session_id)
    assert [event.kind for event in log] == ["operator_joined", "operator_message"]
    assert log[-1].data["text"] == "Hello, how can I help?"


async def test_the_conversations_routing_decides_whether_to_ring(runtime: Runtime) -> None:
    desk = TakeoverDesk(runtime.sessions)
    demo = runtime.sites["demo"].config
    asked: list[tuple[bool, int]] = []

    def nobody(*, in_hours: bool, operators_online: int) -> str:
        asked.append((in_hours, operators_online))
        return "no_operator"

    def ring(*, in_hours: bool, operators_online: int) -> str:
        return "ring"

    quiet = new_session(runtime, "demo")
    offered = await desk.offer_person(demo, quiet, policy=nobody)
    assert offered is not None
    assert (offered.kind, offered.data["reason"]) == ("handoff_async", "no_operator")
    assert asked and asked[0][1] == 0  # nobody online was what the policy was told
    assert (await desk.ownership("demo", quiet)).state == "bot"

    rung = new_session(runtime, "demo")
    offered = await desk.offer_person(demo, rung, policy=ring)
    assert offered is not None and offered.kind == "handoff_waiting"
    assert (await desk.ownership("demo", rung)).state == "waiting"
    assert await desk.offer_person(demo, rung, policy=ring) is None  # rung once
