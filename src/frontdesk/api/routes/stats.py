"""`GET /v1/admin/sites/{site}/stats`: turns, routes, content gaps and top questions."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import Query, Request
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import AdminSiteDep, DbDep, RuntimeDep
from frontdesk.api.routes.admin_common import ADMIN_ERRORS, admin_router
from frontdesk.api.schemas import GapClusterOut, QuestionCount, SiteStats
from frontdesk.api.stats import TurnRow, site_stats
from frontdesk.store.models import utcnow
from frontdesk.store.repositories import ConversationRepository

router = admin_router()

MAX_CONVERSATIONS = 2_000
"""Stats read the most recent conversations only, to bound the work of one request."""


@router.get(
    "/{site}/stats",
    summary="Turns, routes, content gaps and top questions of a site",
    response_model=SiteStats,
    responses=ADMIN_ERRORS,
)
async def stats(
    request: Request,
    site: AdminSiteDep,
    db: DbDep,
    runtime: RuntimeDep,
    days: Annotated[int, Query(ge=1, le=366, description="Period of the content gaps.")] = 30,
) -> SiteStats:
    from frontdesk.api.ingestion import knowledge_base
    from frontdesk.improvement.gaps import gap_report

    found = await run_in_threadpool(_turn_stats, site.config.id, db)
    try:
        knowledge = knowledge_base(request)
    except Exception:  # titles of passages are a nicety; clusters still come
        knowledge = None
    report = await run_in_threadpool(gap_report, runtime, knowledge, site.config, days)
    gaps = [GapClusterOut.model_validate(cluster.as_json()) for cluster in report.clusters]
    return found.model_copy(
        update={
            "gap_days": days,
            "gaps": gaps,
            "unanswered_questions": [
                QuestionCount(question=gap.label, count=gap.size) for gap in gaps[:10]
            ],
        }
    )


def _turn_stats(site_id: str, db: DbDep) -> SiteStats:
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
