"""The visitor's side of a live takeover: the session's event stream and typing.

`GET /v1/sessions/{id}/events` is Server-Sent Events (each event's `id` is its row in the
event log): a reconnect with `Last-Event-ID` resumes after it, without loss or repeats.
Like every session route it needs the widget key, an allowed origin and the session's
secret in `X-Frontdesk-Session-Secret` (never in the URL).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from frontdesk.api.deps import (
    SessionId,
    SsePingDep,
    TakeoverDeskDep,
    VisitorSessionDep,
    WidgetSiteDep,
)
from frontdesk.api.errors import ApiError
from frontdesk.api.routes.sessions import ERRORS, NOT_FOUND
from frontdesk.api.schemas import error_responses
from frontdesk.takeover.events import Published

router = APIRouter(prefix="/v1/sessions", tags=["live"])

LastEventId = Annotated[
    str | None,
    Header(alias="Last-Event-ID", max_length=20, description="Resume after this event id."),
]


class TypingIn(BaseModel):
    active: bool = Field(description="True while the visitor types.")


class TypingOut(BaseModel):
    id: int


def event_id(value: str | None) -> int:
    if not value:
        return 0
    try:
        parsed = int(value)
    except ValueError:
        raise ApiError(422, "bad_last_event_id", "Last-Event-ID must be an event id.") from None
    if parsed < 0:
        raise ApiError(422, "bad_last_event_id", "Last-Event-ID must be an event id.")
    return parsed


def sse(event: Published) -> ServerSentEvent:
    return ServerSentEvent(
        data=json.dumps(event.data, ensure_ascii=False), event=event.kind, id=str(event.id)
    )


def state_event(payload: dict[str, Any]) -> ServerSentEvent:
    """Who owns the conversation when the stream opens (no id: not part of the log)."""
    return ServerSentEvent(data=json.dumps({"type": "state", **payload}), event="state")


@router.get(
    "/{session_id}/events",
    summary="The session's live events (a person joining, their messages, typing…), as SSE",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "`state`, then `operator_joined`, `operator_message`, `typing`, "
            "`released`, `closed`, `handoff_waiting`, `handoff_async` events (ids for "
            "Last-Event-ID) and `: ping` comments.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **NOT_FOUND,
        **ERRORS,
    },
)
async def session_events(
    session_id: SessionId,
    site: WidgetSiteDep,
    live: TakeoverDeskDep,
    ping_s: SsePingDep,
    _grant: VisitorSessionDep,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    site_id = site.config.id
    after = event_id(last_event_id)
    owner = await live.ownership(site_id, str(session_id))

    async def stream() -> AsyncIterator[ServerSentEvent]:
        yield state_event({"owner": owner.state, "name": owner.operator_name})
        async for event in live.follow_session(site_id, str(session_id), after, for_visitor=True):
            yield sse(event)

    return EventSourceResponse(
        stream(), ping=ping_s, sep="\n", headers={"Cache-Control": "no-store"}
    )


@router.post(
    "/{session_id}/typing",
    summary="The visitor is typing (or stopped): shown to the operator who joined",
    response_model=TypingOut,
    status_code=202,
    responses={
        **error_responses({409: "Nobody has joined (`no_operator`)."}),
        **NOT_FOUND,
        **ERRORS,
    },
)
async def visitor_typing(
    body: TypingIn,
    session_id: SessionId,
    site: WidgetSiteDep,
    live: TakeoverDeskDep,
    _grant: VisitorSessionDep,
) -> TypingOut:
    site_id = site.config.id
    owner = await live.ownership(site_id, str(session_id))
    if owner.state != "human":
        raise ApiError(409, "no_operator", "Nobody has joined this conversation.")
    event = await live.visitor_typing(site_id, str(session_id), body.active)
    return TypingOut(id=event.id)
