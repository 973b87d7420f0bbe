"""The live chat view: an operator takes over a visitor's conversation in the widget.

This module only renders the page (the chat so far, each turn's trace, the handoff's
context packet). The page's script (`static/live.js`) talks to the operator API of the
takeover (join, reply, typing, suggest, release, close and the conversation's event
stream), whose URLs the template derives from `live_base`.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import ConsoleSiteDep, RuntimeDep
from frontdesk.console.inbox_pages import load_transcript
from frontdesk.console.templating import render

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)


def live_url(site_id: str, session_id: str) -> str:
    """The live chat page of a conversation: the inbox's and the transcript's "Join", and
    the link a handoff message (Slack) gives the team."""
    return f"/console/sites/{site_id}/conversations/{session_id}/live"


@router.get("/conversations/{session_id}/live")
async def live_page(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, session_id: str
) -> Response:
    transcript = await run_in_threadpool(load_transcript, runtime, site.id, session_id[:64])
    session_id = transcript.conversation.session_id
    return render(
        request,
        "live.html",
        {
            "transcript": transcript,
            "page": "inbox",
            "live_base": live_url(site.id, session_id),
            "packet": transcript.handoffs[-1].packet if transcript.handoffs else None,
        },
        site=site,
    )
