"""One trust report per site at a time, however claims interleave (SQLite and PostgreSQL):
the partial unique index `uq_trust_runs_one_running` is the guard, not a read-then-write."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from frontdesk.store import migrate
from frontdesk.store.db import make_engine
from frontdesk.store.trust import STALE_AFTER, TrustStore, keep_alive, utcnow

pytestmark = pytest.mark.integration


def _one_running_per_site(url: str) -> None:
    engine = make_engine(url)
    migrate.upgrade(engine)
    try:
        store = TrustStore(engine)
        first = store.queue("acme", "sync")
        assert first is not None
        assert store.queue("acme", "console", "ann@acme.test") is None  # one waits already
        assert store.claim(first)
        assert not store.claim(first)  # claimed once
        second = store.queue("acme", "console", "ann@acme.test")
        assert second is not None
        assert not store.claim(second)  # the site's report is running
        assert store.start("acme", "cli") is None
        other = store.start("globex", "cli")  # another site is not held up
        assert other is not None
        store.finish(first, {"answered": 0.8}, {"figures": {"answered": 0.8}}, "local")
        assert store.claim(second)
        store.fail(second, "boom")
        runs = {run.id: run for run in store.history("acme")}
        assert runs[first].status == "done" and runs[first].figures == {"answered": 0.8}
        assert runs[first].seconds is not None and runs[second].error == "boom"
        latest = store.latest_done("acme")
        assert latest is not None and latest.report == {"figures": {"answered": 0.8}}
        # A run whose process died (no heartbeat for STALE_AFTER) is failed; the site is free.
        store.beat(other)
        assert store.fail_stale(utcnow() + STALE_AFTER - timedelta(seconds=30)) == 0
        assert store.fail_stale(utcnow() + STALE_AFTER + timedelta(minutes=1)) == 1
        assert store.start("globex", "cli") is not None
    finally:
        engine.dispose()


async def test_a_live_run_keeps_beating(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    migrate.upgrade(engine)
    try:
        store = TrustStore(engine)
        run_id = store.start("acme", "cli")
        assert run_id is not None
        async with keep_alive(store, run_id, every_s=0.05):
            await asyncio.sleep(0.3)
        with engine.connect() as conn:
            started, beaten = conn.execute(
                text("SELECT started_at, heartbeat_at FROM trust_runs WHERE id = :id"),
                {"id": run_id},
            ).one()
        assert str(beaten) > str(started)  # renewed while the body ran
    finally:
        engine.dispose()


def test_one_running_report_per_site_on_sqlite(tmp_path: Path) -> None:
    _one_running_per_site(f"sqlite:///{tmp_path / 'store.db'}")


@pytest.mark.postgres
def test_one_running_report_per_site_on_postgresql(pg_url: str) -> None:
    _one_running_per_site(pg_url)
