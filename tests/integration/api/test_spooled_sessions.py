"""Session keys issued while the store could not write, replayed across replicas.

Two replicas, one session id: replica A (store down) spooled a visitor's key and
message; replica B (store up) issued a key for the same id to someone else. The replay
must neither put A's visitor's words into B's conversation nor let either secret open
the other's — and must lose nothing.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from api_support import write_sites
from sqlalchemy import func, select

from frontdesk.conversation.persistence import TurnWriter
from frontdesk.conversation.replay import replay_spool
from frontdesk.conversation.spool import Spool
from frontdesk.conversation.spooled_sessions import issue_spooled_key
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.repositories import ConversationRepository
from frontdesk.store.widget import WidgetSessionKey, WidgetSessionRepository, hash_secret

pytestmark = pytest.mark.integration

HUMAN = "I want to talk to a person, my email is jane.doe@example.com"


def test_a_spooled_session_never_joins_a_session_another_key_claimed(
    tmp_path: Path, sites_dir: Path
) -> None:
    write_sites(sites_dir)
    settings = Settings(data_dir=tmp_path / "data", sites_dir=sites_dir, spool_replay_s=3600.0)
    runtime = build_runtime(settings)
    spool = Spool(settings.spool_path)
    site = runtime.site("demo").config
    session = str(uuid.uuid4())
    try:
        mine = issue_spooled_key(spool, "demo", session, timedelta(hours=1), None)
        opened = TurnWriter(runtime.sessions, spool).open_turn(site, session, HUMAN, "k1")
        assert opened.turn is None, "a session whose key waits in the spool spools its turns"
        with transaction(runtime.sessions) as db:
            WidgetSessionRepository(db).issue("demo", session, timedelta(hours=1))
        assert replay_spool(runtime) == 1
        assert replay_spool(runtime) == 0
        with runtime.sessions() as db:
            assert not ConversationRepository(db).messages("demo", session)
            moved = WidgetSessionRepository(db).by_hash("demo", hash_secret(mine.secret))
            assert moved is not None and moved.session_id != session
            kept = ConversationRepository(db).messages("demo", moved.session_id)
            assert [m.content for m in kept] == [HUMAN], "nothing lost either"
            count = select(func.count()).where(WidgetSessionKey.session_id == session)
            assert db.scalar(count) == 1, "B's key, and only it"
    finally:
        runtime.close()
