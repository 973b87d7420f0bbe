""" "Suggest answer" during a live takeover, through the console API with the real
assistant behind it (real ChatService, the demo's ingested pages, SQLite): the draft is
read as the assistant reads its answers — in the visitor's language, from the site's
facts or pages — and is empty when nothing the site states fits. A German question the
pages answer used to get "Das habe ich in unserer Dokumentation nicht gefunden." (the
draft was written in the site's language from the raw search alone)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from live_support import Replica, add_operator, new_session, sign_in, write_sites

from frontdesk.conversation.service import ChatService
from frontdesk.settings import Settings
from frontdesk.takeover.desk import TakeoverDesk

pytestmark = pytest.mark.integration

LIVE = "/console/sites/demo/live"


@pytest.fixture
def replica(ingested_demo: Settings, tmp_path: Path) -> Replica:
    data, sites = tmp_path / "data", tmp_path / "sites"
    shutil.copytree(ingested_demo.data_dir, data)
    shutil.copytree(ingested_demo.sites_dir, sites)
    write_sites(sites)
    settings = Settings(data_dir=data, sites_dir=sites, live_poll_s=30.0)
    server = Replica(settings, chat_factory=ChatService).start()
    add_operator(server.runtime, "anna.berg@example.com", {"demo": "agent"})
    return server


async def draft_for(replica: Replica, question: str) -> dict[str, object]:
    base = replica.url
    session_id, _ = new_session(base)
    anna = sign_in(base, "anna.berg@example.com")
    assert (await anna.post(base, f"{LIVE}/{session_id}/join")).status_code == 200
    await TakeoverDesk(replica.runtime.sessions).relay_visitor("demo", session_id, question)
    drafted = await anna.post(base, f"{LIVE}/{session_id}/suggest")
    assert drafted.status_code == 200, drafted.text
    body: dict[str, object] = drafted.json()
    return body


async def test_a_question_the_pages_answer_gets_their_answer_in_the_visitors_language(
    replica: Replica,
) -> None:
    try:
        body = await draft_for(replica, "Unterstützt ihr SAML Single Sign-on?")
        draft = str(body["draft"])
        assert "SAML 2.0" in draft, draft
        assert "nicht gefunden" not in draft, draft
        assert body["sources"], body
        assert body["language"] == "de"
        # Of the pages in other languages, the site's own (English) is quoted, not the
        # Russian FAQ that ranked first.
        assert draft.startswith("Unsere Seite dazu ist auf Englisch"), draft
    finally:
        replica.stop()


async def test_nothing_that_fits_gives_an_empty_draft(replica: Replica) -> None:
    try:
        body = await draft_for(replica, "Habt ihr einen Kundenparkplatz vor dem Büro?")
        assert body["draft"] == "" and body["sources"] == [], body
    finally:
        replica.stop()
