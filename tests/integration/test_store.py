"""Repositories and migrations against a real SQLite file."""

from pathlib import Path

import pytest
from sqlalchemy import inspect

from frontdesk.runtime import Runtime
from frontdesk.sites.registry import load_site_file
from frontdesk.store import migrate
from frontdesk.store.db import make_engine, session_factory, transaction
from frontdesk.store.handoffs import LeadRepository
from frontdesk.store.repositories import (
    ConversationRepository,
    SiteRepository,
    StoredTurn,
    TraceRepository,
)

pytestmark = pytest.mark.integration


def test_migrations_from_empty_create_every_table(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh' / 'app.db'}")
    assert migrate.current_revision(engine) is None
    migrate.upgrade(engine)
    migrate.upgrade(engine)  # idempotent
    tables = set(inspect(engine).get_table_names())
    assert {
        "sites",
        "conversations",
        "messages",
        "leads",
        "handoffs",
        "outbox",
        "handoff_attempts",
        "traces",
    } <= tables
    assert migrate.is_current(engine)
    engine.dispose()


def test_site_upsert_mirrors_config_and_skips_unchanged(runtime: Runtime, sites_dir: Path) -> None:
    config = load_site_file(sites_dir / "demo.yaml").config
    with transaction(runtime.sessions) as session:
        site = SiteRepository(session).upsert(config)
        first_update = site.updated_at
    with transaction(runtime.sessions) as session:
        site = SiteRepository(session).upsert(config)
        assert site.updated_at == first_update
        assert site.config["widget"]["public_key"] == config.widget.public_key


def test_turns_are_numbered_and_survive_a_reopen(runtime: Runtime) -> None:
    with transaction(runtime.sessions) as session:
        repo = ConversationRepository(session)
        assert repo.record_turn("demo", "s1", StoredTurn("hi", "hello", route="REDIRECT")) == 1
        assert repo.record_turn("demo", "s1", StoredTurn("sso?", "yes [1]", route="ANSWER")) == 2
    runtime.engine.dispose()
    reopened = make_engine(runtime.settings.database_url)
    with session_factory(reopened)() as session:
        messages = ConversationRepository(session).messages("demo", "s1")
        assert [(m.turn, m.role, m.content) for m in messages] == [
            (1, "user", "hi"),
            (1, "assistant", "hello"),
            (2, "user", "sso?"),
            (2, "assistant", "yes [1]"),
        ]
    reopened.dispose()


def test_conversations_are_separated_by_site(runtime: Runtime, sites_dir: Path) -> None:
    with transaction(runtime.sessions) as session:
        ConversationRepository(session).record_turn("demo", "shared", StoredTurn("a", "b"))
        assert ConversationRepository(session).messages("other-site", "shared") == []


def test_erase_removes_messages_and_traces_of_that_session_only(runtime: Runtime) -> None:
    with transaction(runtime.sessions) as session:
        conversations = ConversationRepository(session)
        traces = TraceRepository(session)
        for sid in ("keep", "erase"):
            conversations.record_turn("demo", sid, StoredTurn("q", "a"))
            traces.add(site_id="demo", session_id=sid, turn=1, route="ANSWER")
    with transaction(runtime.sessions) as session:
        assert ConversationRepository(session).delete("demo", "erase")
        assert TraceRepository(session).delete_session("demo", "erase") == 1
        assert not ConversationRepository(session).delete("demo", "erase")
    with runtime.sessions() as session:
        assert ConversationRepository(session).messages("demo", "erase") == []
        assert len(ConversationRepository(session).messages("demo", "keep")) == 2
        assert len(TraceRepository(session).for_session("demo", "keep")) == 1


def test_lead_creation_is_idempotent(runtime: Runtime) -> None:
    with transaction(runtime.sessions) as session:
        leads = LeadRepository(session)
        first, created = leads.create_once(
            "demo:s1:handoff", site_id="demo", session_id="s1", email="ana@example.com", level="hot"
        )
        again, created_again = leads.create_once(
            "demo:s1:handoff", site_id="demo", session_id="s1", email="x@example.com"
        )
        assert created and not created_again
        assert again.id == first.id and again.email == "ana@example.com"
    with runtime.sessions() as session:
        assert len(LeadRepository(session).list("demo")) == 1


def test_failed_transaction_loses_nothing_already_committed(runtime: Runtime) -> None:
    with transaction(runtime.sessions) as session:
        ConversationRepository(session).record_turn("demo", "s", StoredTurn("one", "1"))
    with pytest.raises(RuntimeError), transaction(runtime.sessions) as session:
        ConversationRepository(session).record_turn("demo", "s", StoredTurn("two", "2"))
        raise RuntimeError("database hiccup mid-turn")
    with runtime.sessions() as session:
        assert [m.content for m in ConversationRepository(session).messages("demo", "s")] == [
            "one",
            "1",
        ]
