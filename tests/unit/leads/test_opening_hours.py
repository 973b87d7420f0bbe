"""Opening hours with several ranges a day, public holidays, closures and special hours.

The shop below is the one the site file reference documents. Dates are in 2026, when
Europe/Berlin springs forward on Sunday 29 March and falls back on Sunday 25 October;
31 October (a Saturday) is Reformation Day in Saxony (DE-SN) but not in Bavaria (DE-BY).
"""

from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from frontdesk.leads.hours import (
    OpeningRange,
    days_ahead,
    is_business_hours,
    is_open,
    next_opening,
    parse_range,
    weekly_summary,
)
from frontdesk.sites.hours import BusinessHoursConfig

pytestmark = pytest.mark.unit

BERLIN = ZoneInfo("Europe/Berlin")
SHOP: dict[str, Any] = {
    "timezone": "Europe/Berlin",
    "weekly": {"tue-fri": ["09:30-13:00", "14:00-18:30"], "sat": ["10:00-14:00"]},
    "holidays": "DE-SN",
    "closed": ["2026-12-24", "2026-12-31"],
    "special": {"2026-12-23": ["10:00-16:00"]},
}
HOURS = BusinessHoursConfig.model_validate(SHOP).hours()


def berlin(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=BERLIN)


def shop(**changes: Any) -> BusinessHoursConfig:
    return BusinessHoursConfig.model_validate({**SHOP, **changes})


def test_the_documented_example_validates_and_reads_as_written() -> None:
    assert weekly_summary(HOURS) == [
        ("mon", "closed"),
        ("tue-fri", "09:30-13:00, 14:00-18:30"),
        ("sat", "10:00-14:00"),
        ("sun", "closed"),
    ]
    assert shop().warnings() == []


@pytest.mark.parametrize(
    ("now", "open_"),
    [
        (berlin(12, 8, 9, 29), False),  # Tuesday, a minute before opening
        (berlin(12, 8, 9, 30), True),
        (berlin(12, 8, 12, 59), True),
        (berlin(12, 8, 13, 0), False),  # lunch break: the end is exclusive
        (berlin(12, 8, 13, 59), False),
        (berlin(12, 8, 14, 0), True),
        (berlin(12, 8, 18, 30), False),
        (berlin(12, 7, 11, 0), False),  # Monday: not in the weekly schedule
        (berlin(12, 12, 13, 59), True),  # Saturday
        (berlin(12, 23, 13, 30), True),  # special hours replace the lunch break
        (berlin(12, 23, 16, 30), False),
        (berlin(12, 24, 10, 0), False),  # dated closure
        (berlin(12, 25, 10, 0), False),  # Christmas Day, a public holiday
        (datetime(2026, 12, 8, 13, 30, tzinfo=UTC), True),  # 14:30 in Berlin
    ],
)
def test_is_open(now: datetime, open_: bool) -> None:
    assert is_open(now, HOURS) is open_


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        # Lunch break: back the same afternoon.
        (berlin(12, 8, 13, 15), berlin(12, 8, 14, 0)),
        # After closing on Saturday: Sunday and Monday are closed.
        (berlin(12, 12, 15, 0), berlin(12, 15, 9, 30)),
        # Special hours open at 10:00 instead of 09:30.
        (berlin(12, 22, 19, 0), berlin(12, 23, 10, 0)),
        # 24 Dec closed, 25 and 26 Dec holidays, Sunday and Monday closed.
        (berlin(12, 23, 17, 0), berlin(12, 29, 9, 30)),
        # Reformation Day in Saxony, then Sunday and Monday.
        (berlin(10, 30, 19, 0), berlin(11, 3, 9, 30)),
    ],
)
def test_next_opening(reference: datetime, expected: datetime) -> None:
    opening = next_opening(reference, HOURS)
    assert opening == expected and opening.utcoffset() == expected.utcoffset()


def test_reformation_day_closes_saxony_but_not_bavaria() -> None:
    bavaria = shop(holidays="DE-BY").hours()
    assert not is_open(berlin(10, 31, 11, 0), HOURS)
    assert is_open(berlin(10, 31, 11, 0), bavaria)
    assert next_opening(berlin(10, 30, 19, 0), bavaria) == berlin(10, 31, 10, 0)
    (saturday,) = days_ahead(date(2026, 10, 31), 1, HOURS)
    assert (saturday.kind, saturday.note, saturday.ranges) == ("holiday", "Reformation Day", ())


def test_next_opening_across_spring_forward_keeps_the_wall_clock() -> None:
    # Saturday 28 March 15:00 CET → Tuesday 31 March 09:30 CEST (07:30 UTC, not 08:30).
    opening = next_opening(berlin(3, 28, 15, 0), HOURS)
    assert opening.astimezone(UTC) == datetime(2026, 3, 31, 7, 30, tzinfo=UTC)
    assert (opening.hour, opening.minute) == (9, 30)


def test_next_opening_across_fall_back_keeps_the_wall_clock() -> None:
    # Saturday 24 October 15:00 CEST → Tuesday 27 October 09:30 CET (08:30 UTC).
    opening = next_opening(berlin(10, 24, 15, 0), HOURS)
    assert opening.astimezone(UTC) == datetime(2026, 10, 27, 8, 30, tzinfo=UTC)


def test_an_open_range_on_the_fall_back_night_lasts_one_hour_longer() -> None:
    night = shop(weekly={"sat": ["22:00-04:00"]}, holidays=None, special={}, closed=[]).hours()
    # 22:00 CEST to 04:00 CET is seven hours: 20:00 to 03:00 UTC.
    assert is_open(datetime(2026, 10, 25, 2, 59, tzinfo=UTC), night)
    assert not is_open(datetime(2026, 10, 25, 3, 0, tzinfo=UTC), night)
    assert not is_open(datetime(2026, 10, 24, 19, 59, tzinfo=UTC), night)


def test_an_overnight_range_belongs_to_the_day_it_starts_on() -> None:
    bar = shop(weekly={"fri-sat": ["18:00-02:00"]}, holidays=None, special={}, closed=[])
    hours = bar.hours()
    assert is_open(berlin(12, 12, 1, 30), hours)  # Saturday night, from Friday's range
    assert not is_open(berlin(12, 13, 2, 0), hours)
    assert is_open(berlin(12, 13, 1, 59), hours)  # Sunday night, from Saturday's range
    assert next_opening(berlin(12, 12, 3, 0), hours) == berlin(12, 12, 18, 0)
    assert not is_open(berlin(12, 14, 1, 0), hours)  # no Sunday range
    assert bar.warnings() == [
        "fri: 18:00-02:00 ends before it starts; it is read as open overnight until 02:00 "
        "the next day",
        "sat: 18:00-02:00 ends before it starts; it is read as open overnight until 02:00 "
        "the next day",
    ]


def test_same_day_promise_stops_two_hours_before_the_last_closing() -> None:
    assert is_business_hours(berlin(12, 8, 16, 29), HOURS, same_day_followup=True)
    assert not is_business_hours(berlin(12, 8, 16, 30), HOURS, same_day_followup=True)
    assert is_business_hours(berlin(12, 8, 16, 30), HOURS)
    cutoff = shop(same_day_cutoff="12:00").hours()
    assert not is_business_hours(berlin(12, 8, 12, 0), cutoff, same_day_followup=True)


def test_overlapping_ranges_are_read_as_one_and_warned_about() -> None:
    config = shop(weekly={"mon": ["09:00-13:00", "12:00-15:00"]})
    assert config.hours().weekly[0] == (OpeningRange(9 * 60, 15 * 60),)
    assert config.warnings() == [
        "mon: 09:00-13:00 and 12:00-15:00 overlap; they are read as one range"
    ]


def test_the_simple_form_keeps_its_meaning() -> None:
    old = BusinessHoursConfig.model_validate(
        {"timezone": "Europe/Berlin", "start": "09:00", "end": "18:00", "days": ["tue", "sat"]}
    ).hours()
    assert weekly_summary(old) == [
        ("mon", "closed"),
        ("tue", "09:00-18:00"),
        ("wed-fri", "closed"),
        ("sat", "09:00-18:00"),
        ("sun", "closed"),
    ]
    assert old.same_day_cutoff == time(16, 0) and old.public_holidays is None
    assert next_opening(berlin(12, 8, 18, 0), old) == berlin(12, 12, 9, 0)
    default = BusinessHoursConfig.model_validate({"timezone": "Europe/Berlin"}).hours()
    assert default.weekdays == frozenset(range(5))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("09:30-13:00", OpeningRange(570, 780)),
        (" 9:30 - 13:00 ", OpeningRange(570, 780)),
        ("00:00-24:00", OpeningRange(0, 1440)),
        ("22:00-02:00", OpeningRange(1320, 1560)),
    ],
)
def test_parse_range(text: str, expected: OpeningRange) -> None:
    assert parse_range(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9-13", "write it as HH:MM-HH:MM"),
        ("09:30-13:61", "13:61 is not a time"),
        ("25:00-26:00", "25:00 is not a time"),
        ("10:00-10:00", "ends when it starts"),
        ("24:00-02:00", "cannot start at 24:00"),
    ],
)
def test_parse_range_names_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_range(text)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"weekly": {"tue-fry": ["09:00-12:00"]}},
            "weekly",
            "unknown day key 'tue-fry': use a day",
        ),
        ({"weekly": {"tuesday": ["09:00-12:00"]}}, "weekly", "mon, tue, wed"),
        ({"weekly": {"mon": ["9-12"]}}, "weekly", "weekly.mon: '9-12' is not a time range"),
        ({"weekly": {"mon": []}}, "weekly", "weekly.mon: give a list of time ranges"),
        (
            {"weekly": {"mon-fri": ["09:00-12:00"], "fri": ["10:00-12:00"]}},
            "weekly",
            "fri is named by both 'mon-fri' and 'fri'",
        ),
        ({"holidays": "DE-XX"}, "holidays", "allowed are BB, BE"),
        ({"holidays": "XX"}, "holidays", "unknown country 'XX'"),
        ({"closed": ["2026-02-30"]}, "closed", ""),
        ({"special": {"2026-12-23": []}}, "special", "list the date under closed"),
        ({"special": {"2026-12-24": ["10:00-12:00"]}}, "", "both closed and in special"),
        ({"start": "09:00"}, "", "start: simple-form keys cannot be mixed with weekly"),
        ({"weekly": {}}, "", "weekly opens on no day"),
        ({"timezone": "Europe/Saxony"}, "timezone", "unknown IANA timezone"),
    ],
)
def test_bad_hours_name_the_key_and_what_is_allowed(
    changes: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ValidationError) as error:
        shop(**changes)
    (problem,) = error.value.errors()
    assert ".".join(str(part) for part in problem["loc"]).startswith(field)
    assert message in problem["msg"]


def test_days_ahead_say_why_a_day_is_closed() -> None:
    kinds = [(d.day.day, d.kind, d.note) for d in days_ahead(date(2026, 12, 23), 4, HOURS)]
    assert kinds == [
        (23, "special", ""),
        (24, "closed", ""),
        (25, "holiday", "Christmas Day"),
        (26, "holiday", "Second Day of Christmas"),
    ]
