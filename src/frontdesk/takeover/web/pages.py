"""The live chat view: an operator takes over a visitor's conversation in the widget.

This module renders the page: the conversation so far as one timeline (the assistant's
turns and the live log of the takeover, in time order, each live event with its id so
the page's stream resumes right after it), each turn's trace and the handoff's context
packet. The page's script (`static/live.js`) acts through the operator API of
`operator_api.py` (join, reply, typing, suggest, release, close) and follows the
conversation's event stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import ConsoleSiteDep, OpenTakeoverDeskDep, RuntimeDep
from frontdesk.console.i18n import N_, SOURCE_LOCALE, Messages
from frontdesk.console.inbox_pages import load_transcript
from frontdesk.console.templating import page_messages, render
from frontdesk.store.inbox import Transcript
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.events import Ownership, Published, as_utc
from frontdesk.takeover.web.operator_api import display_name

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

# How each live event shows in the chat column (typing is a moment, not a line).
NOTES = {
    "operator_joined": N_("%(name)s from %(company)s joined"),
    "released": N_("Back to the assistant (%(name)s released the chat)"),
    "closed": N_("Conversation closed by %(name)s"),
    "handoff_waiting": N_("The visitor accepted a handoff: ringing the team"),
    "handoff_async": N_("Nobody joined (%(reason)s): the visitor got the e-mail follow-up"),
}


@dataclass(frozen=True)
class Line:
    """One line of the chat column."""

    kind: str  # visitor | assistant | operator | note
    who: str
    text: str
    at: datetime
    event_id: int | None = None
    note: str = ""  # the live event kind of a note


def live_url(site_id: str, session_id: str) -> str:
    """The live chat page of a conversation: the inbox's and the transcript's "Join", and
    the link a handoff message (Slack) gives the team."""
    return f"/console/sites/{site_id}/conversations/{session_id}/live"


def timeline(transcript: Transcript, log: list[Published], t: Messages | None = None) -> list[Line]:
    """The assistant's turns and the takeover's live log in time order, labelled in the
    operator's language. A message relayed to a person is a turn without an answer
    (route HUMAN) and also a `visitor_message` event: it shows once, from the log."""
    t = t or Messages(SOURCE_LOCALE)
    visitor, assistant = t.gettext("Visitor"), t.gettext("Assistant")
    lines: list[Line] = []
    for turn in transcript.turns:
        if turn.route == "HUMAN":
            continue
        at = as_utc(turn.at)
        lines.append(Line("visitor", visitor, turn.visitor, at))
        if turn.assistant:
            lines.append(Line("assistant", assistant, turn.assistant, at))
    for event in log:
        data: dict[str, Any] = event.data
        at = as_utc(datetime.fromisoformat(str(data["at"])))
        if event.kind == "visitor_message":
            lines.append(Line("visitor", visitor, str(data.get("text", "")), at, event.id))
        elif event.kind == "operator_message":
            who = str(data.get("name") or t.gettext("Operator"))
            lines.append(Line("operator", who, str(data.get("text", "")), at, event.id))
        elif event.kind in NOTES:
            values = {"name": "", "company": "", "reason": "", **data}
            text = t.gettext(NOTES[event.kind], **{k: str(v or "") for k, v in values.items()})
            lines.append(Line("note", "", text, at, event.id, event.kind))
    return sorted(lines, key=lambda line: line.at)


async def _live_state(
    desk: TakeoverDesk | None, site_id: str, session_id: str
) -> tuple[Ownership | None, list[Published]]:
    if desk is None:
        return None, []
    log = await desk.whole_log(site_id, session_id)
    return await desk.ownership(site_id, session_id), log


@router.get("/conversations/{session_id}/live")
async def live_page(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    desk: OpenTakeoverDeskDep,
    session_id: str,
) -> Response:
    transcript = await run_in_threadpool(load_transcript, runtime, site.id, session_id[:64])
    session_id = transcript.conversation.session_id
    owner, log = await _live_state(desk, site.id, session_id)
    mine = (
        owner is not None and owner.state == "human" and owner.operator_id == site.user.operator_id
    )
    return render(
        request,
        "live.html",
        {
            "transcript": transcript,
            "page": "inbox",
            "lines": timeline(transcript, log, page_messages(request, site.user)),
            "last_event_id": log[-1].id if log else 0,
            "owner": owner,
            "mine": mine,
            "my_name": display_name(site.user.email),
            "available": desk is not None,
            "api": f"/console/sites/{site.id}/live/{session_id}",
            "packet": transcript.handoffs[-1].packet if transcript.handoffs else None,
        },
        site=site,
    )
