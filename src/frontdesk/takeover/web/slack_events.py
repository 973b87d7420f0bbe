"""`POST /v1/slack/events/{site}`: the Slack Events API request URL of a site's Slack app
(the takeover's Slack bridge, `frontdesk.takeover.slack`). Off unless the site sets
`handoff.slack_signing_secret`; every request must carry Slack's v0 signature."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Request

from frontdesk.api.deps import RuntimeDep, TakeoverDeskDep
from frontdesk.api.errors import ApiError
from frontdesk.api.schemas import error_responses
from frontdesk.takeover.slack import (
    HandoffPosted,
    ThreadReply,
    read_event,
    request_kind,
    signature_valid,
)

router = APIRouter(prefix="/v1/slack", tags=["live"])


@router.post(
    "/events/{site}",
    summary="Slack Events API: replies in a handoff message's thread reach the visitor",
    responses=error_responses(
        {401: "Bad or stale Slack signature.", 404: "No such site, or its bridge is off."}
    ),
)
async def slack_events(
    request: Request,
    runtime: RuntimeDep,
    live: TakeoverDeskDep,
    site: Annotated[str, Path(max_length=63)],
    timestamp: Annotated[str | None, Header(alias="X-Slack-Request-Timestamp")] = None,
    signature: Annotated[str | None, Header(alias="X-Slack-Signature")] = None,
) -> dict[str, Any]:
    loaded = runtime.sites.get(site)
    secret = loaded.config.handoff.slack_signing_secret if loaded else ""
    if loaded is None or not secret:
        raise ApiError(404, "not_found", "No Slack bridge here.")
    body = await request.body()
    if not signature_valid(secret, timestamp, signature, body, live.clock()):
        raise ApiError(401, "bad_signature", "The Slack signature is missing, wrong or stale.")
    try:
        payload = json.loads(body)
    except ValueError:
        raise ApiError(400, "bad_request", "The body is not JSON.") from None
    if not isinstance(payload, dict):
        raise ApiError(400, "bad_request", "The body is not a JSON object.")
    kind = request_kind(payload)
    if kind == "url_verification":
        return {"challenge": str(payload.get("challenge") or "")}
    if kind != "event_callback":
        return {"ok": True}
    event = read_event(payload)
    config = loaded.config
    if isinstance(event, HandoffPosted):
        await live.slack_thread(config.id, event.ts, event.session_id)
    elif isinstance(event, ThreadReply):
        await live.slack_reply(
            config, event.thread_ts, event.ts, event.user, event.name, event.text
        )
    return {"ok": True}
