"""`frontdesk serve` runs its own schedules: a site whose web source has a schedule is
re-synced by the served instance with no other process; with two processes sharing one
store (a SQLite file, PostgreSQL) exactly one sync runs per period; and when the process
holding a sync dies, the other takes the schedule over once the lease expires.

Each served process here is a real `frontdesk serve` subprocess; the website is a
loopback one that counts what is fetched from it. The schedule is a few seconds long and
the jobs look for due work every 0.2 s (FRONTDESK_JOBS_TICK_S), so nothing waits a minute.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import pytest
import yaml
from replicas import Replica

from frontdesk.knowledge.web.state import INTERRUPTED, CrawlRun, CrawlStore
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import make_engine
from tests.support.website import LoopbackWebsite

pytestmark = pytest.mark.integration
START_PAGE = "/docs/page-0.html"
# How long to wait for something that must happen: each sync runs in a fresh process that
# imports the product (seconds on a quiet machine, tens of seconds on a loaded one or next
# to other test workers). Only a waiting bound: the periods and the takeover delay are
# asserted from the recorded times.
WAIT_S = 240


def site_file(sites: Path, start_url: str, schedule: str) -> None:
    sites.mkdir(parents=True, exist_ok=True)
    config = {
        "id": "acme",
        "name": "Acme",
        "widget": {"public_key": "pk_acme_schedule_0001"},
        "business_hours": {"timezone": "UTC"},
        "knowledge": {
            "embedding": "hash:256",
            "sources": [
                {
                    "url": start_url,
                    "schedule": schedule,
                    "allow_private_network": True,
                    "include": [r"/docs/", r"/slow\.html"],
                    "max_pages": 3,
                }
            ],
        },
    }
    (sites / "acme.yaml").write_text(yaml.safe_dump(config))


def serve(
    tmp_path: Path, name: str, database_url: str, sites: Path, lease_s: float = 30.0
) -> Replica:
    env = {
        "FRONTDESK_DATA_DIR": str(tmp_path / f"data-{name}"),
        "FRONTDESK_DATABASE_URL": database_url,
        "FRONTDESK_JOBS_TICK_S": "0.2",
        "FRONTDESK_JOB_LEASE_S": str(lease_s),
        "FRONTDESK_DIGEST_SCHEDULE": "",
    }
    return Replica(env, tmp_path, name, ["--sites-dir", str(sites)])


def runs_of(database_url: str) -> list[CrawlRun]:
    engine = make_engine(database_url)
    try:
        return list(reversed(CrawlStore(engine).runs("acme", limit=100)))  # oldest first
    finally:
        engine.dispose()


def wait_for(check: Callable[[], bool], timeout_s: float, what: str, logs: list[Path]) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            tails = "\n".join(log.read_text()[-2000:] for log in logs)
            raise AssertionError(f"timed out waiting for {what}\n{tails}")
        time.sleep(0.1)


def prepared(database_url: str, tmp_path: Path) -> str:
    """The store migrated and the site recorded once before the processes start (as
    `serve --workers N` does): two processes creating one fresh SQLite file's tables or
    rows at the same moment would collide."""
    settings = Settings(
        database_url=database_url, sites_dir=tmp_path / "sites", data_dir=tmp_path / "data"
    )
    build_runtime(settings).close()
    return database_url


@contextlib.contextmanager
def replicas(*servers: Replica) -> Iterator[tuple[Replica, ...]]:
    try:
        for server in servers:
            server.wait_ready()
        yield servers
    finally:
        for server in servers:
            server.stop()


def test_a_served_instance_resyncs_on_its_schedule_with_no_other_process(
    tmp_path: Path,
) -> None:
    database_url = f"sqlite:///{tmp_path / 'app.db'}"
    with LoopbackWebsite(pages=3, slow_s=0.0) as website:
        site_file(tmp_path / "sites", website.url + START_PAGE, "2s")
        server = serve(tmp_path, "alone", database_url, tmp_path / "sites")
        with replicas(server):
            done = lambda: [r for r in runs_of(database_url) if r.status != "running"]  # noqa: E731
            wait_for(lambda: len(done()) >= 2, WAIT_S, "a first sync and a re-sync", [server.log])
        runs = done()
    assert all(run.trigger == "schedule" and run.status == "succeeded" for run in runs), runs
    assert runs[1].started_at - runs[0].started_at >= timedelta(seconds=2)
    assert runs[0].summary["changed"] >= 1 and runs[1].summary["changed"] == 0  # re-read, same
    assert website.paths.count(START_PAGE) >= 2


def two_processes_sync_once_per_period(tmp_path: Path, database_url: str) -> None:
    period = timedelta(seconds=3)
    with LoopbackWebsite(pages=3, slow_s=0.0) as website:
        site_file(tmp_path / "sites", website.url + START_PAGE, "3s")
        prepared(database_url, tmp_path)
        servers = [serve(tmp_path, n, database_url, tmp_path / "sites") for n in ("a", "b")]
        with replicas(*servers):
            logs = [s.log for s in servers]
            # Both processes look for due work five times a second for ~3 periods.
            finished = lambda: [r for r in runs_of(database_url) if r.finished_at]  # noqa: E731
            wait_for(lambda: len(finished()) >= 3, WAIT_S, "three finished periods", logs)
        runs = runs_of(database_url)
    assert all(run.trigger == "schedule" for run in runs), runs
    gaps = [later.started_at - earlier.started_at for earlier, later in pairwise(runs)]
    assert all(gap >= period for gap in gaps), gaps  # never two syncs in one period
    # One sync, one fetch of the start page (conditional after the first) per period;
    # a sync the shutdown interrupted may or may not have reached the start page.
    fetches = website.paths.count(START_PAGE)
    assert len([r for r in runs if r.status == "succeeded"]) <= fetches <= len(runs), runs


def test_two_processes_on_one_sqlite_file_sync_once_per_period(tmp_path: Path) -> None:
    two_processes_sync_once_per_period(tmp_path, f"sqlite:///{tmp_path / 'app.db'}")


@pytest.mark.postgres
def test_two_processes_on_postgres_sync_once_per_period(tmp_path: Path, pg_url: str) -> None:
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    two_processes_sync_once_per_period(tmp_path, url)


def sync_processes(server: Replica) -> list[int]:
    """The sync processes `serve` spawned (multiprocessing's `spawn_main` children)."""
    return server.worker_pids()


def test_when_the_syncing_process_dies_the_other_takes_the_schedule_over(
    tmp_path: Path,
) -> None:
    database_url = f"sqlite:///{tmp_path / 'app.db'}"
    lease_s = 1.5
    # The start page takes 8 s to arrive: the first sync is still running when its
    # process is killed.
    with LoopbackWebsite(pages=3, slow_s=8.0) as website:
        site_file(tmp_path / "sites", website.url + "/slow.html", "1h")
        prepared(database_url, tmp_path)
        servers = [serve(tmp_path, n, database_url, tmp_path / "sites", lease_s) for n in "ab"]
        with replicas(*servers):
            logs = [s.log for s in servers]
            wait_for(lambda: website.paths.count("/slow.html") == 1, WAIT_S, "the first sync", logs)
            holder = next(s for s in servers if sync_processes(s))
            other = next(s for s in servers if s is not holder)
            for pid in [*sync_processes(holder), holder.process.pid]:  # the machine "dies"
                os.kill(pid, signal.SIGKILL)
            holder.process.wait()
            killed_at = time.monotonic()
            wait_for(lambda: len(runs_of(database_url)) == 2, WAIT_S, "the takeover", logs)
            took_over_after = time.monotonic() - killed_at
            wait_for(lambda: website.paths.count("/slow.html") == 2, WAIT_S, "the re-fetch", logs)
            assert sync_processes(other)  # the survivor syncs, in a process of its own
        first, second = runs_of(database_url)
    assert first.status == "failed" and first.error == INTERRUPTED
    assert second.trigger == "schedule"
    assert took_over_after < lease_s + 5  # after the lease expired, within a few ticks
