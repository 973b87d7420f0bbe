"""PostgreSQL as the app store and the checkpointer: same migrations, same behaviour."""

from __future__ import annotations

import uuid
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import func, select

from frontdesk.conversation.checkpoints import libpq_url
from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store import migrate
from frontdesk.store.models import Conversation, Message, Trace
from tests.conftest import private_copy

pytestmark = [pytest.mark.postgres, pytest.mark.integration]
VISITOR = VisitorContext(ip_hash="test")


def _checkpoint_rows(url: str, thread: str) -> int:
    with psycopg.connect(libpq_url(url)) as conn:
        row = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread,)
        ).fetchone()
    return int(row[0]) if row else 0


def pg_settings(ingested_demo: Settings, pg_url: str, tmp_path: Path) -> Settings:
    # Knowledge from the ingested SQLite file when this PostgreSQL has no pgvector (these
    # tests read the store, not the knowledge index).
    knowledge_dir = private_copy(ingested_demo.data_dir, tmp_path / "knowledge")
    knowledge = f"sqlite:///{knowledge_dir / 'frontdesk.db'}"
    return Settings(
        data_dir=tmp_path / "data",
        sites_dir=ingested_demo.sites_dir,
        database_url=pg_url,
        knowledge_url=knowledge,
    )


def test_migrations_reach_head_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    from frontdesk.store.db import make_engine

    engine = make_engine(pg_url)
    migrate.upgrade(engine)
    migrate.upgrade(engine)  # idempotent
    assert migrate.is_current(engine)
    engine.dispose()


async def test_turns_checkpoints_and_erase_on_postgresql(
    ingested_demo: Settings, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = pg_settings(ingested_demo, pg_url, tmp_path)
    monkeypatch.setenv("FRONTDESK_KNOWLEDGE_URL", settings.knowledge_url)
    from frontdesk.settings import get_settings

    get_settings.cache_clear()
    runtime = build_runtime(settings)
    chat = ChatService(runtime)
    site = runtime.site("demo")
    session, other = str(uuid.uuid4()), str(uuid.uuid4())
    try:
        await chat.ask(site, session, "I'd like to book a demo", VISITOR)
        await chat.ask(site, other, "What is your uptime SLA?", VISITOR)
        await chat.close()
        # A new service (as another replica would) continues from the PostgreSQL checkpoint.
        chat = ChatService(runtime)
        result = await chat.ask(site, session, "sure, it's maria@example.org", VISITOR)
        assert result.route == "BOOKING" and result.turn == 2
        assert (await chat.checkpointer()).backend == "postgres"
        assert _checkpoint_rows(pg_url, f"demo:{session}") > 0
        with runtime.sessions() as db:
            count = db.scalar(
                select(func.count(Message.id))
                .join(Conversation)
                .where(Conversation.session_id == session)
            )
            traces = db.scalars(select(Trace).where(Trace.session_id == session)).all()
        assert count == 4
        assert [t.turn for t in traces] == [1, 2] and all(t.nodes for t in traces)

        exported = await chat.export(site, session)
        assert exported["state"]["turn_number"] == 2 and len(exported["messages"]) == 4

        assert await chat.erase(site, session)
        assert _checkpoint_rows(pg_url, f"demo:{session}") == 0
        assert _checkpoint_rows(pg_url, f"demo:{other}") > 0
        with runtime.sessions() as db:
            left = db.scalars(select(Conversation.session_id)).all()
            assert db.scalar(select(func.count(Trace.id)).where(Trace.session_id == session)) == 0
        assert left == [other]
    finally:
        await chat.close()
        runtime.close()
        get_settings.cache_clear()
