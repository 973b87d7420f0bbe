"""The improvement loop's tables on PostgreSQL (migration 0012_improve): team answers with
their change log, the digest claim that lets one worker of many send a period, and the gap
report read from PostgreSQL's turn log (timestamps with time zones)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from frontdesk.improvement.gaps import gap_report
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.improvement import DigestRepository, TeamAnswerRepository
from frontdesk.store.repositories import ConversationRepository, StoredTurn

pytestmark = [pytest.mark.postgres, pytest.mark.integration]


@pytest.fixture
def runtime(pg_url: str, tmp_path: Path, sites_dir: Path) -> Iterator[Runtime]:
    built = build_runtime(
        Settings(database_url=pg_url, data_dir=tmp_path / "data", sites_dir=sites_dir)
    )
    yield built
    built.close()


def test_team_answers_and_their_changes(runtime: Runtime) -> None:
    versions = [{"language": "en", "questions": ["Nonprofit discount?"], "answer": "Yes."}]
    with transaction(runtime.sessions) as session:
        repo = TeamAnswerRepository(session)
        answer = repo.create("demo", versions, "ana@example.test")
        edited = [{**versions[0], "answer": "Yes, 30 %."}]
        repo.update(answer, "bo@example.test", versions=edited)
        repo.update(answer, "bo@example.test", status="retired")
        answer_id = answer.id
    with runtime.sessions() as session:
        repo = TeamAnswerRepository(session)
        assert [a.id for a in repo.for_site("demo")] == [answer_id]
        assert repo.for_site("acme") == []
        changes = list(reversed(repo.changes("demo", answer_id)))
        assert [(c.action, c.operator_email) for c in changes] == [
            ("created", "ana@example.test"),
            ("edited", "bo@example.test"),
            ("retired", "bo@example.test"),
        ]
        assert changes[1].before == {"status": "active", "versions": versions}
        assert changes[2].after == {"status": "retired", "versions": edited}


def test_a_digest_period_is_claimed_once(runtime: Runtime) -> None:
    end = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    with transaction(runtime.sessions) as session:
        assert DigestRepository(session).claim("demo", end) is not None
    with transaction(runtime.sessions) as session:
        assert DigestRepository(session).claim("demo", end) is None
        # The losing claim rolled back its savepoint only: the transaction goes on.
        next_week = end.replace(day=30)
        assert DigestRepository(session).claim("demo", next_week) is not None


def test_the_gap_report_reads_postgres_turns(runtime: Runtime) -> None:
    with transaction(runtime.sessions) as session:
        conversations = ConversationRepository(session)
        for question, routing in (
            ("Do you offer a discount for nonprofits?", "cannot_answer"),
            ("Is there nonprofit pricing?", "low_confidence"),
            ("How do I reset my password?", "answered"),
        ):
            conversations.record_turn(
                "demo",
                str(uuid.uuid4()),
                StoredTurn(question, "…", route="ANSWER", routing=routing, language="en"),
            )
    report = gap_report(runtime, None, runtime.sites["demo"].config, 7)
    assert report.turns == 3 and report.questions == 2
    [gap] = report.clusters
    assert gap.size == 2 and gap.reasons == {"cannot_answer": 1, "low_confidence": 1}
