"""GDPR retention: forget conversations older than each site's `privacy.retention_days`.

A conversation whose last activity is older than the site's retention is deleted with
its messages, traces, analytics events and LangGraph checkpoints — unless the session
is tied to a lead, whose record (and the conversation behind it) lives as long as the
lead does. Traces and events of sessions without a conversation row follow
the same cutoff. `frontdesk db retention` runs it once; `frontdesk serve` (or
`frontdesk worker`) every hour (frontdesk/jobs.py).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select

from frontdesk.conversation.checkpoints import Checkpointer, open_checkpointer
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.models import AnalyticsEvent, Conversation, Lead, Message, Trace
from frontdesk.store.widget import WidgetSessionRepository

log = logging.getLogger(__name__)


@dataclass
class RetentionReport:
    conversations: int = 0
    traces: int = 0
    events: int = 0
    checkpoints: int = 0
    kept_for_leads: int = 0
    sessions: list[str] = field(default_factory=list)


def _expire_site(
    runtime: Runtime, site_id: str, cutoff: datetime, report: RetentionReport
) -> list[str]:
    with transaction(runtime.sessions) as db:
        leads = set(db.scalars(select(Lead.session_id).where(Lead.site_id == site_id)).all())
        old = db.scalars(
            select(Conversation).where(
                Conversation.site_id == site_id, Conversation.last_activity_at < cutoff
            )
        ).all()
        expired = [c for c in old if c.session_id not in leads]
        report.kept_for_leads += len(old) - len(expired)
        ids = [c.id for c in expired]
        if ids:
            db.execute(delete(Message).where(Message.conversation_id.in_(ids)))
            db.execute(delete(Conversation).where(Conversation.id.in_(ids)))
            keys = WidgetSessionRepository(db)  # the widget's secrets and votes go too
            for conversation in expired:
                keys.delete_session(site_id, conversation.session_id)
        report.conversations += len(ids)
        for model in (Trace, AnalyticsEvent):
            conditions = [model.site_id == site_id, model.created_at < cutoff]
            if leads:
                conditions.append(model.session_id.not_in(leads))
            result = db.execute(delete(model).where(*conditions))
            count = int(getattr(result, "rowcount", 0) or 0)
            if model is Trace:
                report.traces += count
            else:
                report.events += count
    return [c.session_id for c in expired]


async def run_retention(
    runtime: Runtime, checkpointer: Checkpointer, now: datetime | None = None
) -> RetentionReport:
    """Delete everything past retention for every site; what was deleted."""
    from frontdesk.conversation.service import thread_id

    now = now or datetime.now(UTC)
    report = RetentionReport()
    for site in runtime.sites.values():
        cutoff = now - timedelta(days=site.config.privacy.retention_days)
        sessions = await asyncio.to_thread(_expire_site, runtime, site.config.id, cutoff, report)
        await checkpointer.delete_threads([thread_id(site.config.id, s) for s in sessions])
        report.checkpoints += len(sessions)
        report.sessions.extend(sessions)
    log.info(
        "retention: %d conversations, %d traces, %d events, %d checkpoint threads deleted;"
        " %d kept for leads",
        report.conversations,
        report.traces,
        report.events,
        report.checkpoints,
        report.kept_for_leads,
    )
    return report


async def retention_once(runtime: Runtime) -> RetentionReport:
    checkpointer = await open_checkpointer(runtime.settings)
    try:
        return await run_retention(runtime, checkpointer)
    finally:
        await checkpointer.aclose()
