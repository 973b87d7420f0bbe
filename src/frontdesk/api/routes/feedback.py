"""`POST /v1/sessions/{id}/feedback`: the visitor's 👍/👎 (and comment) on one answer."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import ChatDep, RuntimeDep, SessionId, VisitorSessionDep, WidgetSiteDep
from frontdesk.api.errors import ApiError
from frontdesk.api.feedback import record_feedback
from frontdesk.api.schemas import FeedbackIn, FeedbackOut, error_responses

router = APIRouter(prefix="/v1/sessions", tags=["feedback"])


@router.post(
    "/{session_id}/feedback",
    summary="Rate one answer of the session (a second vote replaces the first)",
    response_model=FeedbackOut,
    responses=error_responses(
        {
            401: "Missing or unknown site key.",
            403: "Origin or session secret refused.",
            404: "No such session or answer.",
            422: "Invalid body.",
            429: "Rate limited.",
        }
    ),
)
async def rate_answer(
    session_id: SessionId,
    body: FeedbackIn,
    site: WidgetSiteDep,
    runtime: RuntimeDep,
    backend: ChatDep,
    _grant: VisitorSessionDep,
) -> FeedbackOut:
    site_id = site.config.id
    answered = {
        int(m.get("turn") or 0)
        for m in await backend.history(site, str(session_id))
        if m.get("role") == "assistant"
    }
    if body.turn not in answered:
        raise ApiError(404, "answer_not_found", f"Turn {body.turn} has no answer to rate.")
    vote = await run_in_threadpool(
        record_feedback, runtime, site_id, str(session_id), body.turn, body.rating, body.comment
    )
    return FeedbackOut(turn=vote["turn"], rating=vote["rating"], comment=vote["comment"])
