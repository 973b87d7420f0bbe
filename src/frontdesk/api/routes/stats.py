"""`GET /v1/admin/sites/{site}/stats`: turns, routes, unanswered and top questions."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter

from frontdesk.api.deps import AdminDep, AdminSiteDep, DbDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS
from frontdesk.api.schemas import SiteStats
from frontdesk.api.stats import TurnRow, site_stats
from frontdesk.store.models import utcnow
from frontdesk.store.repositories import ConversationRepository

router = APIRouter(prefix="/v1/admin/sites", tags=["admin"], dependencies=[AdminDep])

MAX_CONVERSATIONS = 2_000
"""Stats read the most recent conversations only, to bound the work of one request."""


@router.get(
    "/{site}/stats",
    summary="Turns, routes, unanswered questions and top questions of a site",
    response_model=SiteStats,
    responses=ADMIN_ERRORS,
)
def stats(site: AdminSiteDep, db: DbDep) -> SiteStats:
    site_id = site.config.id
    repo = ConversationRepository(db)
    conversations = sorted(
        repo.older_than(site_id, utcnow() + timedelta(days=1)),
        key=lambda c: c.last_activity_at,
        reverse=True,
    )[:MAX_CONVERSATIONS]
    turns: list[TurnRow] = []
    for conversation in conversations:
        questions: dict[int, str] = {}
        for message in repo.messages(site_id, conversation.session_id):
            if message.role == "user":
                questions[message.turn] = message.content
            elif message.role == "assistant":
                turns.append(
                    TurnRow(questions.get(message.turn, ""), message.route, message.routing)
                )
    return site_stats(site_id, len(conversations), turns)
