"""Presence while an operator's streams come and go at once (real SQLite and PostgreSQL):
the page they leave marks them offline while the page they open marks them online. Every
heartbeat must land, whichever runs first; a heartbeat that lost the race used to fail
its stream with a 500 (the console then saw the site stream break)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontdesk.api.visitor_sessions import start_session
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.takeover.desk import TakeoverDesk
from frontdesk.takeover.errors import OwnedByOther
from frontdesk.takeover.events import Operator

pytestmark = pytest.mark.integration

ANNA = Operator("op-anna", "Anna")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def runtime(request: pytest.FixtureRequest, tmp_path: Path, sites_dir: Path) -> Iterator[Runtime]:
    options: dict[str, object] = {"data_dir": tmp_path / "data", "sites_dir": sites_dir}
    if request.param == "postgres":
        options["database_url"] = request.getfixturevalue("pg_url")
    runtime = build_runtime(Settings(**options))  # type: ignore[arg-type]
    yield runtime
    runtime.close()


async def test_heartbeats_racing_the_page_left_behind_all_land(runtime: Runtime) -> None:
    desk = TakeoverDesk(runtime.sessions)
    failures: list[BaseException] = []
    for _ in range(150):
        outcomes = await asyncio.gather(
            desk.heartbeat("demo", ANNA),
            desk.offline("demo", ANNA),
            desk.heartbeat("demo", ANNA),
            return_exceptions=True,
        )
        failures += [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert failures == []

    # After the races, the last word decides: online after a heartbeat, gone after offline.
    await desk.heartbeat("demo", ANNA)
    assert await desk.online("demo") == [{"id": ANNA.id, "name": "Anna"}]
    await desk.offline("demo", ANNA)
    assert await desk.online("demo") == []


async def test_a_second_heartbeat_updates_and_tells_no_change(runtime: Runtime) -> None:
    desk = TakeoverDesk(runtime.sessions)
    woken: list[list[str]] = []
    publish = desk.bus.publish

    async def record(channels: list[str]) -> None:
        woken.append(list(channels))
        await publish(channels)

    desk.bus.publish = record  # type: ignore[method-assign]
    await desk.heartbeat("demo", ANNA)
    await desk.heartbeat("demo", Operator(ANNA.id, "Anna B."))
    assert woken == [["site:demo"]]  # only coming online is a presence change
    assert await desk.online("demo") == [{"id": ANNA.id, "name": "Anna B."}]


async def test_two_operators_joining_at_once_one_owns_the_conversation(runtime: Runtime) -> None:
    """Two operators click "Take over" on the same bot-owned conversation at the same
    moment. What must hold: one owns it, the other is told who did (never a failed insert
    of the ownership row, which was the loser's 500)."""
    site = runtime.sites["demo"].config
    desk = TakeoverDesk(runtime.sessions)
    ben = Operator("op-ben", "Ben")
    for _ in range(20):
        session_id = start_session(runtime, site, None).session_id
        outcomes = await asyncio.gather(
            desk.join(site, session_id, ANNA), desk.join(site, session_id, ben),
            return_exceptions=True,
        )  # fmt: skip
        failures = [o for o in outcomes if isinstance(o, BaseException)]
        assert len(failures) == 1 and isinstance(failures[0], OwnedByOther), outcomes
        owner = await desk.ownership("demo", session_id)
        assert owner.state == "human" and owner.operator_id in (ANNA.id, ben.id)
