"""The operator's side of a live takeover (JSON and Server-Sent Events for the console).

Under `/console/sites/{site}/live`: the conversations being rung for or owned, one
conversation's log and stream, and the actions join, reply, typing, release, close and
suggest. Reading needs any role on the site; acting needs agent (a viewer gets 403, any
role on another site 404). Every POST needs the session's `X-CSRF-Token`.

The per-site stream (`…/live/events`) is also the operator's presence: while it is open
they are online for ringing, on every replica (a heartbeat row in the store).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Annotated, Any, Protocol
from uuid import UUID

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from frontdesk.api.console_access import ConsoleSite
from frontdesk.api.deps import (
    ConsoleSiteDep,
    CsrfDep,
    GuardDep,
    OpenChatDep,
    SsePingDep,
    TakeoverDeskDep,
)
from frontdesk.api.errors import ApiError
from frontdesk.api.turns import Admission, TurnGuard
from frontdesk.sites.registry import LoadedSite
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.events import Operator, Published
from frontdesk.takeover.names import ImpersonatingName, check_display_name, safe_display_name
from frontdesk.takeover.web.visitor_api import LastEventId, event_id, sse

router = APIRouter(prefix="/console/sites/{site}/live", include_in_schema=False)

SessionId = Annotated[UUID, Path(description="The visitor's session id.")]


class ChatHistory(Protocol):
    """What the operator API reads of the chat service (a `ChatBackend`); remembering an
    exchange and drafting a reply are optional, asked for by name."""

    async def history(
        self, site: LoadedSite, session_id: str
    ) -> Sequence[Mapping[str, object]]: ...


class JoinIn(BaseModel):
    name: str = Field(default="", max_length=80, description="Shown to the visitor.")


class ReplyIn(BaseModel):
    text: str = Field(max_length=8000)


class TypingIn(BaseModel):
    active: bool


def display_name(email: str) -> str:
    local = email.split("@", 1)[0].replace(".", " ").replace("_", " ").strip()
    return local.title() or email


def operator_of(site: ConsoleSite, name: str = "") -> Operator:
    """The operator as the visitor sees them: the name they chose (refused if it would
    pass for the assistant), else one made from their e-mail (left out if it would)."""
    site_name = site.site.config.name
    try:
        chosen = check_display_name(name, site_name) if name.strip() else ""
    except ImpersonatingName as exc:
        raise ApiError(422, "name_impersonates_assistant", str(exc)) from exc
    return Operator(
        site.user.operator_id,
        chosen or safe_display_name(display_name(site.user.email), site_name),
    )


def agent(site: ConsoleSite, name: str = "") -> Operator:
    site.require("agent")
    return operator_of(site, name)


@router.get("")
async def live_overview(site: ConsoleSiteDep, live: TakeoverDeskDep) -> dict[str, Any]:
    """Conversations waiting for a person or owned by one, and who is online."""
    return {
        "conversations": await live.active(site.id),
        "online": await live.online(site.id),
        "you": dataclasses.asdict(operator_of(site)),
        "can_join": site.can("agent"),
    }


@router.get("/events")
async def site_events(
    site: ConsoleSiteDep,
    live: TakeoverDeskDep,
    ping_s: SsePingDep,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    """`ringing` {session_id, expected_wait_seconds}, `ringing_stopped` {session_id,
    reason}, `presence` {operators}. An agent with this open is online."""
    after = event_id(last_event_id) if last_event_id else None
    operator = operator_of(site)
    present = site.can("agent")

    async def stream() -> AsyncIterator[ServerSentEvent]:
        beat: asyncio.Task[None] | None = None
        if present:
            await live.heartbeat(site.id, operator)
            beat = asyncio.create_task(_heartbeats(live, site.id, operator))
        shown: list[dict[str, str]] | None = None
        try:
            async for event in live.follow_site(site.id, after):
                if event.kind == "presence":
                    online = await live.online(site.id)
                    if online != shown:
                        shown = online
                        payload = {"type": "presence", "operators": online}
                        yield ServerSentEvent(data=json.dumps(payload), event="presence")
                    continue
                yield _site_event(event)
        finally:
            if beat is not None:
                beat.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await beat
                with contextlib.suppress(Exception):
                    await asyncio.shield(live.offline(site.id, operator))

    return EventSourceResponse(stream(), ping=ping_s, sep="\n")


async def _heartbeats(live: TakeoverDesk, site_id: str, operator: Operator) -> None:
    while True:
        await asyncio.sleep(live.presence_ttl_s / 3)
        with contextlib.suppress(Exception):
            await live.heartbeat(site_id, operator)


def _site_event(event: Published) -> ServerSentEvent:
    data = event.data
    if event.kind == "handoff_waiting":
        name, payload = (
            "ringing",
            {
                "type": "ringing",
                "session_id": data["session_id"],
                "expected_wait_seconds": data.get("expected_wait_seconds"),
                "at": data["at"],
            },
        )
    else:
        reason = {"operator_joined": "joined", "handoff_async": "no_operator"}.get(
            event.kind, event.kind
        )
        name, payload = (
            "ringing_stopped",
            {
                "type": "ringing_stopped",
                "session_id": data["session_id"],
                "reason": reason,
                "name": data.get("name"),
            },
        )
    return ServerSentEvent(data=json.dumps(payload), event=name, id=str(event.id))


@router.get("/{session_id}")
async def live_conversation(
    session_id: SessionId, site: ConsoleSiteDep, live: TakeoverDeskDep
) -> dict[str, Any]:
    """Who owns the conversation and its live log so far (visitor and operator messages,
    typing, joins and releases), oldest first."""
    await live.require_session(site.id, str(session_id))
    owner = await live.ownership(site.id, str(session_id))
    events = await live.session_log(site.id, str(session_id))
    return {
        "session_id": str(session_id),
        "state": owner.state,
        "operator_id": owner.operator_id,
        "operator_name": owner.operator_name,
        "events": [event.data for event in events],
    }


@router.get("/{session_id}/events")
async def conversation_events(
    session_id: SessionId,
    site: ConsoleSiteDep,
    live: TakeoverDeskDep,
    ping_s: SsePingDep,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    """Every event of the conversation (the visitor's messages and typing included)."""
    await live.require_session(site.id, str(session_id))
    after = event_id(last_event_id)

    async def stream() -> AsyncIterator[ServerSentEvent]:
        async for event in live.follow_session(site.id, str(session_id), after, for_visitor=False):
            yield sse(event)

    return EventSourceResponse(stream(), ping=ping_s, sep="\n")


@router.post("/{session_id}/join", dependencies=[CsrfDep])
async def join(
    session_id: SessionId,
    site: ConsoleSiteDep,
    live: TakeoverDeskDep,
    body: JoinIn | None = None,
) -> dict[str, Any]:
    operator = agent(site, body.name if body else "")
    return (await live.join(site.site.config, str(session_id), operator)).data


@router.post("/{session_id}/reply", dependencies=[CsrfDep])
async def reply(
    session_id: SessionId, body: ReplyIn, site: ConsoleSiteDep, live: TakeoverDeskDep
) -> dict[str, Any]:
    event = await live.reply(site.site.config, str(session_id), agent(site), body.text)
    return event.data


@router.post("/{session_id}/typing", dependencies=[CsrfDep])
async def typing(
    session_id: SessionId, body: TypingIn, site: ConsoleSiteDep, live: TakeoverDeskDep
) -> dict[str, Any]:
    event = await live.operator_typing(site.site.config, str(session_id), agent(site), body.active)
    return event.data


SLOT_WAIT_S = 10.0


async def _session_slot(guard: TurnGuard, site_id: str, session_id: str) -> Admission:
    """The session's turn slot (shared by replicas): a turn relaying a message must not
    write its checkpoint over the exchange being remembered. Relayed turns are short."""
    deadline = time.monotonic() + SLOT_WAIT_S
    while True:
        try:
            return await guard.admit(site_id, session_id, [])
        except ApiError as exc:
            if exc.code != "session_busy" or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.1)


async def _hand_back(
    session_id: str,
    site: ConsoleSite,
    live: TakeoverDesk,
    guard: TurnGuard,
    chat: ChatHistory | None,
    *,
    close: bool,
) -> dict[str, Any]:
    operator = agent(site)
    admission = await _session_slot(guard, site.id, session_id)
    try:
        event, exchange = await live.hand_back(site.site.config, session_id, operator, close=close)
        # The assistant's memory: what the person and the visitor said, in order, so the
        # next answer can build on it.
        remember = getattr(chat, "remember_exchange", None)
        remembered = 0
        if remember is not None and exchange:
            remembered = await remember(site.site, session_id, exchange)
    finally:
        await admission.release()
    return {**event.data, "remembered": remembered}


@router.post("/{session_id}/release", dependencies=[CsrfDep])
async def release(
    session_id: SessionId,
    site: ConsoleSiteDep,
    live: TakeoverDeskDep,
    guard: GuardDep,
    chat: OpenChatDep,
) -> dict[str, Any]:
    return await _hand_back(str(session_id), site, live, guard, chat, close=False)


@router.post("/{session_id}/close", dependencies=[CsrfDep])
async def close(
    session_id: SessionId,
    site: ConsoleSiteDep,
    live: TakeoverDeskDep,
    guard: GuardDep,
    chat: OpenChatDep,
) -> dict[str, Any]:
    return await _hand_back(str(session_id), site, live, guard, chat, close=True)


@router.post("/{session_id}/suggest", dependencies=[CsrfDep])
async def suggest(
    session_id: SessionId, site: ConsoleSiteDep, live: TakeoverDeskDep, chat: OpenChatDep
) -> dict[str, Any]:
    """A draft answer to the visitor's last question, written by the assistant from the
    knowledge base, for the operator to edit. Nothing is sent."""
    site.require("agent")
    question = await _last_question(chat, site, str(session_id), live)
    if not question:
        raise ApiError(404, "no_question", "The visitor has not asked anything yet.")
    drafter = getattr(chat, "draft_reply", None)
    if drafter is None:
        raise ApiError(503, "suggest_unavailable", "The assistant cannot draft answers here.")
    draft: dict[str, Any] = await drafter(site.site, str(session_id), question)
    return {"question": question, **draft}


async def _last_question(
    chat: ChatHistory | None, site: ConsoleSite, session_id: str, live: TakeoverDesk
) -> str:
    for event in reversed(await live.session_log(site.id, session_id)):
        if event.kind == "visitor_message":
            return str(event.data.get("text") or "")
    if chat is None:
        return ""
    for message in reversed(await chat.history(site.site, session_id)):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""
