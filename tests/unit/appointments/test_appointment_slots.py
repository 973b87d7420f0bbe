"""Free slots: opening hours minus busy times minus buffers, on the team's wall clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from frontdesk.appointments.slots import Interval, SlotRules, free_slots, is_free, spread
from frontdesk.leads.hours import BusinessHours, parse_range
from frontdesk.sites.calendar import AppointmentType, CalendarConfig

pytestmark = pytest.mark.unit

BERLIN = ZoneInfo("Europe/Berlin")
SHOP = BusinessHours(
    timezone="Europe/Berlin",
    weekly=(
        (),
        (parse_range("09:30-13:00"), parse_range("14:00-18:30")),
        (parse_range("09:30-13:00"), parse_range("14:00-18:30")),
        (parse_range("09:30-13:00"), parse_range("14:00-18:30")),
        (parse_range("09:30-13:00"), parse_range("14:00-18:30")),
        (parse_range("10:00-14:00"),),
        (),
    ),
    public_holidays="DE-SN",
    closed=frozenset({date(2026, 12, 24)}),
)
HOUR = SlotRules(duration=timedelta(hours=1), min_notice=timedelta(0), step=timedelta(hours=1))


def berlin(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=BERLIN)  # type: ignore[misc]


def wall(slots: list[Interval]) -> list[str]:
    return [s.start.astimezone(BERLIN).strftime("%a %d.%m. %H:%M") for s in slots]


def test_slots_keep_the_wall_clock_across_the_autumn_dst_change() -> None:
    # Saturday 24 Oct is summer time (UTC+2), Tuesday 27 Oct winter time (UTC+1).
    now = berlin(2026, 10, 24, 7, 0)
    slots = free_slots(SHOP, HOUR, [], now, window=Interval(now, berlin(2026, 10, 28, 0, 0)))
    assert wall(slots)[:4] == [
        "Sat 24.10. 10:00",
        "Sat 24.10. 11:00",
        "Sat 24.10. 12:00",
        "Sat 24.10. 13:00",
    ]
    tuesday = [s for s in slots if s.start.astimezone(BERLIN).date() == date(2026, 10, 27)]
    assert wall(tuesday)[0] == "Tue 27.10. 09:30"
    assert tuesday[0].start == datetime(2026, 10, 27, 8, 30, tzinfo=UTC)
    assert slots[0].start == datetime(2026, 10, 24, 8, 0, tzinfo=UTC)
    assert all(s.end - s.start == timedelta(hours=1) for s in slots)
    # 09:30-13:00 holds three one-hour slots, 14:00-18:30 four: none runs into the break.
    assert wall(tuesday) == [
        "Tue 27.10. 09:30",
        "Tue 27.10. 10:30",
        "Tue 27.10. 11:30",
        "Tue 27.10. 14:00",
        "Tue 27.10. 15:00",
        "Tue 27.10. 16:00",
        "Tue 27.10. 17:00",
    ]


def test_slots_keep_the_wall_clock_across_the_spring_dst_change() -> None:
    now = berlin(2026, 3, 28, 7, 0)  # Saturday, winter time; Sunday 29 Mar springs forward
    slots = free_slots(SHOP, HOUR, [], now, window=Interval(now, berlin(2026, 4, 1, 0, 0)))
    assert slots[0].start == datetime(2026, 3, 28, 9, 0, tzinfo=UTC)  # 10:00 UTC+1
    tuesday = [s for s in slots if s.start.astimezone(BERLIN).date() == date(2026, 3, 31)]
    assert tuesday[0].start == datetime(2026, 3, 31, 7, 30, tzinfo=UTC)  # 09:30 UTC+2


def test_public_holidays_of_the_region_and_closures_have_no_slots() -> None:
    # 18 Nov 2026 (Buß- und Bettag) is a holiday in Saxony only; 24 Dec is closed by the file.
    now = berlin(2026, 11, 16, 7, 0)
    slots = free_slots(SHOP, HOUR, [], now, window=Interval(now, berlin(2026, 11, 20, 0, 0)))
    days = {s.start.astimezone(BERLIN).date() for s in slots}
    assert date(2026, 11, 18) not in days
    assert {date(2026, 11, 17), date(2026, 11, 19)} <= days
    bavaria = SHOP.model_copy(update={"public_holidays": "DE-BY"})
    other = free_slots(bavaria, HOUR, [], now, window=Interval(now, berlin(2026, 11, 20, 0, 0)))
    assert date(2026, 11, 18) in {s.start.astimezone(BERLIN).date() for s in other}
    december = berlin(2026, 12, 22, 7, 0)
    around = free_slots(SHOP, HOUR, [], december, window=Interval(december, berlin(2026, 12, 29)))
    days = {s.start.astimezone(BERLIN).date() for s in around}
    assert days.isdisjoint({date(2026, 12, 24), date(2026, 12, 25), date(2026, 12, 26)})
    assert date(2026, 12, 23) in days


def test_busy_times_and_buffers_are_kept_free() -> None:
    now = berlin(2026, 12, 12, 7, 0)  # Saturday 10:00-14:00
    busy = [Interval(berlin(2026, 12, 12, 11, 0), berlin(2026, 12, 12, 11, 30))]
    rules = SlotRules(
        duration=timedelta(minutes=30),
        buffer=timedelta(minutes=15),
        min_notice=timedelta(0),
        step=timedelta(minutes=15),
    )
    window = Interval(now, berlin(2026, 12, 13))
    slots = wall(free_slots(SHOP, rules, busy, now, window=window))
    assert "Sat 12.12. 10:15" in slots  # ends 10:45, 15 minutes before the busy time
    assert "Sat 12.12. 10:30" not in slots and "Sat 12.12. 11:30" not in slots
    assert "Sat 12.12. 11:45" in slots
    assert slots[-1] == "Sat 12.12. 13:30"  # ends at closing


def test_minimum_notice_and_how_far_ahead() -> None:
    now = berlin(2026, 12, 12, 10, 20)
    rules = SlotRules(
        duration=timedelta(hours=1),
        min_notice=timedelta(hours=2),
        max_ahead=timedelta(days=4),
        step=timedelta(hours=1),
    )
    slots = free_slots(SHOP, rules, [], now)
    assert wall(slots)[0] == "Sat 12.12. 13:00"
    assert max(s.end for s in slots) <= now + timedelta(days=4)
    assert wall(slots)[-1] == "Tue 15.12. 17:00"


def test_the_type_hours_narrow_the_opening_hours() -> None:
    kind = AppointmentType(
        id="inspection",
        name={"de": "Inspektion", "en": "Inspection"},
        duration_minutes=60,
        hours={"sat": ["10:00-12:00"], "tue-fri": ["08:00-10:30"]},
    )
    rules = SlotRules(
        duration=timedelta(minutes=kind.duration_minutes),
        min_notice=timedelta(0),
        step=timedelta(minutes=30),
        allowed=kind.allowed(),
    )
    now = berlin(2026, 12, 12, 7, 0)
    slots = wall(free_slots(SHOP, rules, [], now, window=Interval(now, berlin(2026, 12, 16))))
    assert slots == ["Sat 12.12. 10:00", "Sat 12.12. 10:30", "Sat 12.12. 11:00", "Tue 15.12. 09:30"]


def test_is_free_and_spread() -> None:
    now = berlin(2026, 12, 12, 7, 0)
    slots = free_slots(SHOP, HOUR, [], now, window=Interval(now, berlin(2026, 12, 17)))
    assert is_free(slots[0], SHOP, HOUR, [], now)
    assert not is_free(slots[0], SHOP, HOUR, [slots[0]], now)
    offered = spread(slots, 4, SHOP)
    assert wall(offered) == [
        "Sat 12.12. 10:00",
        "Sat 12.12. 11:00",
        "Tue 15.12. 09:30",
        "Tue 15.12. 10:30",
    ]


def test_calendar_section_names_the_password_variable_never_the_password() -> None:
    base = {
        "url": "https://cloud.example.org/dav/calendars/team/shop/",
        "user": "team",
        "appointment_types": [
            {"id": "inspection", "name": {"en": "Inspection"}, "duration_minutes": 60}
        ],
    }
    assert CalendarConfig.model_validate({**base, "password_env": "SHOP_CALDAV_PASSWORD"})
    with pytest.raises(ValueError, match="NAME of an environment variable"):
        CalendarConfig.model_validate({**base, "password_env": "hunter2!secret"})
    with pytest.raises(ValueError, match="named by both"):
        AppointmentType(
            id="x",
            name={"en": "X"},
            duration_minutes=30,
            hours={"sat": ["10:00-11:00"], "fri-sun": ["10:00-11:00"]},
        )
