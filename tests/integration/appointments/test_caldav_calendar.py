"""The team's calendar on a real Radicale server: busy times, booking, cancel, move,
two visitors on one slot, a calendar that is down and wrong credentials."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from frontdesk.appointments.calendar import (
    CalendarAuthError,
    CalendarError,
    NotFound,
    SlotTaken,
    TeamCalendar,
)
from frontdesk.appointments.slots import Interval, SlotRules, free_slots
from frontdesk.leads.hours import BusinessHours, parse_range
from frontdesk.sites.calendar import CalendarConfig
from tests.support.radicale_server import PASSWORD, USER, RadicaleServer

pytestmark = pytest.mark.integration

BERLIN = ZoneInfo("Europe/Berlin")
SHOP = BusinessHours(
    timezone="Europe/Berlin",
    weekly=((),)
    + ((parse_range("09:30-13:00"), parse_range("14:00-18:30")),) * 4
    + ((parse_range("10:00-14:00"),), ()),
    public_holidays="DE-SN",
)
HOUR = SlotRules(duration=timedelta(hours=1), min_notice=timedelta(0), step=timedelta(hours=1))
ENV = {"SHOP_CALDAV_PASSWORD": PASSWORD}


def config(server: RadicaleServer, **overrides: object) -> CalendarConfig:
    return CalendarConfig.model_validate(
        {
            "url": server.calendar_url,
            "user": USER,
            "password_env": "SHOP_CALDAV_PASSWORD",
            "appointment_types": [
                {"id": "inspection", "name": {"en": "Inspection"}, "duration_minutes": 60}
            ],
            **overrides,
        }
    )


def team(server: RadicaleServer, **overrides: object) -> TeamCalendar:
    return TeamCalendar.from_config(config(server, **overrides), BERLIN, ENV)


def berlin(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=BERLIN)  # type: ignore[misc]


def put_team_event(server: RadicaleServer, name: str, start: datetime, end: datetime) -> None:
    """An event the team made itself in its calendar app (not a Frontdesk booking)."""
    body = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//team//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:{name}@team\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start:%Y%m%dT%H%M%S}\r\n"
        f"DTEND;TZID=Europe/Berlin:{end:%Y%m%dT%H%M%S}\r\n"
        f"SUMMARY:{name}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    reply = httpx.put(
        f"{server.calendar_url}{name}.ics",
        content=body,
        auth=(USER, PASSWORD),
        headers={"Content-Type": "text/calendar"},
    )
    reply.raise_for_status()


def wall(slots: list[Interval]) -> list[str]:
    return [s.start.astimezone(BERLIN).strftime("%a %d.%m. %H:%M") for s in slots]


@pytest.mark.parametrize("busy_from", ["events", "freebusy"])
def test_slots_across_a_dst_change_and_a_public_holiday(
    radicale: RadicaleServer, busy_from: str
) -> None:
    # Summer time ends on Sunday 25 Oct 2026; Saturday 31 Oct is Reformation Day in Saxony.
    calendar = team(radicale, busy_from=busy_from)
    put_team_event(radicale, "workshop", berlin(2026, 10, 27, 10, 0), berlin(2026, 10, 27, 11, 0))
    now, until = berlin(2026, 10, 24, 7, 0), berlin(2026, 11, 1, 0, 0)
    busy = calendar.busy(now, until)
    assert busy == [
        Interval(datetime(2026, 10, 27, 9, tzinfo=UTC), datetime(2026, 10, 27, 10, tzinfo=UTC))
    ]
    slots = free_slots(SHOP, HOUR, busy, now, window=Interval(now, until))
    shown = wall(slots)
    assert shown[0] == "Sat 24.10. 10:00" and slots[0].start == datetime(
        2026, 10, 24, 8, tzinfo=UTC
    )
    tuesday = [s for s in shown if s.startswith("Tue 27.10.")]
    # 09:30 and 10:30 would overlap the workshop at 10:00-11:00 (winter time, UTC+1).
    assert tuesday[:2] == ["Tue 27.10. 11:30", "Tue 27.10. 14:00"]
    assert slots[shown.index("Tue 27.10. 11:30")].start == datetime(
        2026, 10, 27, 10, 30, tzinfo=UTC
    )
    assert not [s for s in shown if s.startswith("Sat 31.10.")]  # public holiday in DE-SN
    assert [s for s in shown if s.startswith("Fri 30.10.")]


def test_book_cancel_and_move(radicale: RadicaleServer) -> None:
    calendar = team(radicale, busy_from="events")
    start = berlin(2026, 12, 12, 10, 0)
    booked = calendar.book(
        start,
        start + timedelta(hours=1),
        kind="inspection",
        summary="Inspection: Ada Lovelace",
        name="Ada Lovelace",
        email="ada@example.org",
        session_id="s-1",
        language="de",
    )
    assert booked.uid.endswith("@frontdesk")
    stored = httpx.get(booked.href, auth=(USER, PASSWORD)).text.replace("\r\n ", "")
    assert (
        f"UID:{booked.uid}" in stored
        and "ATTENDEE" in stored
        and "mailto:ada@example.org" in stored
    )
    day = (berlin(2026, 12, 12, 0, 0), berlin(2026, 12, 13, 0, 0))
    assert [a.uid for a in calendar.appointments(*day)] == [booked.uid]
    again = calendar.get(booked.uid)
    assert (again.name, again.email, again.session_id, again.language) == (
        "Ada Lovelace",
        "ada@example.org",
        "s-1",
        "de",
    )
    assert calendar.busy(*day) == [
        Interval(start.astimezone(UTC), (start + timedelta(hours=1)).astimezone(UTC))
    ]

    later = berlin(2026, 12, 15, 14, 0)
    moved = calendar.move(booked.uid, later, later + timedelta(hours=1))
    assert moved.uid == booked.uid and moved.sequence == 1
    assert calendar.appointments(*day) == []
    assert calendar.get(booked.uid).start == later.astimezone(UTC)

    calendar.cancel(booked.uid)
    with pytest.raises(NotFound):
        calendar.get(booked.uid)
    assert calendar.busy(berlin(2026, 12, 15, 0, 0), berlin(2026, 12, 16, 0, 0)) == []


def test_a_move_onto_a_busy_time_keeps_the_booking(radicale: RadicaleServer) -> None:
    calendar = team(radicale)
    start = berlin(2026, 12, 12, 10, 0)
    booked = calendar.book(
        start,
        start + timedelta(hours=1),
        kind="inspection",
        summary="A",
        name="A",
        email="a@example.org",
    )
    put_team_event(radicale, "lunch", berlin(2026, 12, 15, 12, 0), berlin(2026, 12, 15, 13, 0))
    with pytest.raises(SlotTaken):
        calendar.move(booked.uid, berlin(2026, 12, 15, 12, 0), berlin(2026, 12, 15, 13, 0))
    assert calendar.get(booked.uid).start == start.astimezone(UTC)


def test_two_visitors_on_one_slot_exactly_one_gets_it(radicale: RadicaleServer) -> None:
    # Two calendars (two Frontdesk processes): no shared lock, the server decides.
    first, second = team(radicale), team(radicale)
    start = berlin(2026, 12, 12, 11, 0)
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def take(calendar: TeamCalendar, who: str) -> None:
        barrier.wait()
        try:
            calendar.book(
                start,
                start + timedelta(hours=1),
                kind="inspection",
                summary=who,
                name=who,
                email=f"{who}@example.org",
            )
            outcomes[who] = "booked"
        except SlotTaken:
            outcomes[who] = "taken"

    threads = [
        threading.Thread(target=take, args=(c, w)) for c, w in ((first, "ann"), (second, "bob"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes.values()) == ["booked", "taken"]
    stored = first.appointments(berlin(2026, 12, 12, 0, 0), berlin(2026, 12, 13, 0, 0))
    assert len(stored) == 1 and outcomes[stored[0].name] == "booked"


def test_a_calendar_that_is_down_raises_a_clear_error(radicale: RadicaleServer) -> None:
    calendar = team(radicale)
    radicale.stop()
    with pytest.raises(CalendarError, match=r"unreachable|failed"):
        calendar.busy(berlin(2026, 12, 12, 0, 0), berlin(2026, 12, 13, 0, 0))


def test_wrong_credentials_and_a_missing_password_variable(radicale: RadicaleServer) -> None:
    assert team(radicale).check() == "Appointments"
    wrong = TeamCalendar.from_config(config(radicale), BERLIN, {"SHOP_CALDAV_PASSWORD": "nope"})
    with pytest.raises(CalendarAuthError, match=r"refuses user 'team'.*\$SHOP_CALDAV_PASSWORD"):
        wrong.check()
    with pytest.raises(CalendarAuthError, match=r"SHOP_CALDAV_PASSWORD .* is not set"):
        TeamCalendar.from_config(config(radicale), BERLIN, {})


def test_sites_validate_signs_in_to_the_calendar(radicale: RadicaleServer, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    import yaml

    from frontdesk.settings import DEMO_DIR

    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    raw["calendar"] = config(radicale).model_dump(mode="json")
    site = tmp_path / "demo.yaml"
    site.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")

    def validate(password: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "FRONTDESK_DATA_DIR": str(tmp_path / "d"), "COLUMNS": "300"}
        env["SHOP_CALDAV_PASSWORD"] = password
        return subprocess.run(
            [sys.executable, "-m", "frontdesk", "sites", "validate", str(site)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )

    good = validate(PASSWORD)
    assert good.returncode == 0, good.stderr
    assert "Calendar: Appointments" in good.stdout and "appointments: inspection" in good.stdout
    wrong = validate("not-the-password")
    assert wrong.returncode == 1
    assert "refuses user 'team'" in wrong.stderr and "$SHOP_CALDAV_PASSWORD" in wrong.stderr


_MOVER = """
import json, sys, time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from frontdesk.appointments.calendar import Changed, SlotTaken, TeamCalendar
from frontdesk.sites.calendar import CalendarConfig

config, password, uid, start, folder = sys.argv[1:6]
calendar = TeamCalendar.from_config(
    CalendarConfig.model_validate(json.loads(config)),
    ZoneInfo("Europe/Berlin"),
    {"SHOP_CALDAV_PASSWORD": password},
)
calendar.get(uid)  # connected and imported before the start
Path(folder, f"ready-{start}").touch()
while not Path(folder, "go").exists():
    time.sleep(0.001)
begin = datetime.fromisoformat(start)
try:
    calendar.move(uid, begin, begin + timedelta(hours=1))
    print("moved")
except Changed:
    print("changed")
except SlotTaken:
    print("taken")
"""


def test_two_replicas_moving_one_booking_at_once_leave_one(
    radicale: RadicaleServer, tmp_path: Path
) -> None:
    """Two processes (two replicas: no lock in common) move the same booking to two times
    at the same instant: one moves it, the other is told it changed; one event is left."""
    import subprocess
    import sys
    import time

    calendar = team(radicale)
    start = berlin(2026, 12, 12, 10, 0)
    booked = calendar.book(
        start, start + timedelta(hours=1), kind="inspection", summary="A", name="A", email="a@x.org"
    )
    targets = [berlin(2026, 12, 15, 10, 30), berlin(2026, 12, 15, 14, 0)]
    args = [sys.executable, "-c", _MOVER, config(radicale).model_dump_json(), PASSWORD, booked.uid]
    movers = [
        subprocess.Popen(
            [*args, t.isoformat(), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for t in targets
    ]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outcomes = []
    for mover in movers:
        out, err = mover.communicate(timeout=120)
        assert mover.returncode == 0, err[-2000:]
        outcomes.append(out.strip())
    assert "moved" in outcomes and set(outcomes) <= {"moved", "changed"}, outcomes
    stored = calendar.appointments(berlin(2026, 12, 1, 0, 0), berlin(2026, 12, 31, 0, 0))
    assert [a.uid for a in stored] == [booked.uid]
    assert stored[0].start in {t.astimezone(UTC) for t in targets}
