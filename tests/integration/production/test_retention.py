"""GDPR retention removes everything past the site's retention — and nothing else."""

from __future__ import annotations

import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.retention import run_retention
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.models import Conversation, Lead, Message, Trace

pytestmark = [pytest.mark.integration]
VISITOR = VisitorContext(ip_hash="test")


async def test_retention_deletes_old_sessions_but_keeps_leads_and_recent_ones(
    ingested_demo: Settings, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    runtime = build_runtime(Settings(data_dir=data, sites_dir=ingested_demo.sites_dir))
    chat = ChatService(runtime)
    site = runtime.site("demo")
    old, old_lead, recent = (str(uuid.uuid4()) for _ in range(3))
    try:
        for session in (old, old_lead, recent):
            await chat.ask(site, session, "What is your uptime SLA?", VISITOR)
        past = datetime.now(UTC) - timedelta(days=site.config.privacy.retention_days + 1)
        with runtime.sessions.begin() as db:
            for session in (old, old_lead):
                db.execute(
                    update(Conversation)
                    .where(Conversation.session_id == session)
                    .values(last_activity_at=past)
                )
                db.execute(update(Trace).where(Trace.session_id == session).values(created_at=past))
            db.add(Lead(site_id="demo", session_id=old_lead, idempotency_key=f"k-{old_lead}"))

        report = await run_retention(runtime, await chat.checkpointer())

        assert report.sessions == [old] and report.kept_for_leads == 1
        graph = await chat.graph()
        with runtime.sessions() as db:
            left = set(db.scalars(select(Conversation.session_id)).all())
            traced = set(db.scalars(select(Trace.session_id)).all())
            messages = db.scalar(select(func.count(Message.id)))
        assert left == traced == {old_lead, recent}
        assert messages == 4
        for session, kept in ((old, False), (old_lead, True), (recent, True)):
            config = {"configurable": {"thread_id": thread_id("demo", session)}}
            assert bool((await graph.aget_state(config)).values) is kept
        # Erase covers the checkpoint of a session that is kept by retention.
        assert await chat.erase(site, recent)
        config = {"configurable": {"thread_id": thread_id("demo", recent)}}
        assert not (await graph.aget_state(config)).values
        assert (await chat.export(site, recent))["messages"] == []
    finally:
        await chat.close()
        runtime.close()
