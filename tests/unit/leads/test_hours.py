"""Business hours, DST included.

Dates: winter rows use January 2025 (CET, UTC+1); summer rows use July 2025 (CEST,
UTC+2). In 2025 Europe/Madrid springs forward on Sunday 30 March at 02:00 local
(01:00 UTC), and falls back on Sunday 26 October.
"""

from datetime import UTC, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from frontdesk.leads.hours import BusinessHours, OpeningRange, is_business_hours, next_opening

pytestmark = pytest.mark.unit

MADRID = ZoneInfo("Europe/Madrid")
HOURS = BusinessHours(timezone="Europe/Madrid")
UTC_PLUS_1 = timezone(timedelta(hours=1))
UTC_PLUS_2 = timezone(timedelta(hours=2))


def cet(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    """A January 2025 wall-clock time in Madrid (6 Jan 2025 is a Monday)."""
    return datetime(2025, 1, day, hour, minute, second, tzinfo=MADRID)


# The business-hours test table, one row per case.
BUSINESS_HOURS_TABLE = [
    pytest.param(
        datetime(2025, 1, 13, 10, 0, tzinfo=UTC_PLUS_1), False, True, id="monday-10-cet-winter"
    ),
    pytest.param(
        datetime(2025, 7, 14, 10, 0, tzinfo=UTC_PLUS_2), False, True, id="monday-10-cest-summer"
    ),
    pytest.param(cet(13, 8, 45), False, False, id="before-opening-monday-0845"),
    pytest.param(cet(17, 18, 1), False, False, id="after-closing-friday-1801"),
    pytest.param(cet(17, 18, 0, 0), False, False, id="exactly-closing-friday-1800-exclusive"),
    pytest.param(cet(18, 11), False, False, id="saturday-11"),
    pytest.param(cet(19, 14), False, False, id="sunday-14"),
    pytest.param(cet(15, 16, 30), True, False, id="after-4pm-cutoff-wednesday-1630"),
    pytest.param(cet(15, 15, 59), True, True, id="before-4pm-cutoff-wednesday-1559"),
    # 01:00 UTC is the instant Madrid's clocks jump from 02:00 to 03:00.
    pytest.param(datetime(2025, 3, 30, 1, 0, tzinfo=UTC), False, False, id="dst-spring-sunday"),
    pytest.param(
        datetime(2025, 3, 31, 7, 30, tzinfo=UTC), False, True, id="dst-next-monday-0930-cest"
    ),
]


@pytest.mark.parametrize(("now", "same_day_followup", "expected"), BUSINESS_HOURS_TABLE)
def test_business_hours_table(now: datetime, same_day_followup: bool, expected: bool) -> None:
    assert is_business_hours(now, HOURS, same_day_followup=same_day_followup) is expected


# In practice: the plain call and the same-day-cutoff call at each time.
PRACTICE_TABLE = [
    pytest.param(cet(13, 10), True, True, id="monday-1000"),
    pytest.param(cet(15, 16, 30), True, False, id="wednesday-1630"),
    pytest.param(cet(16, 17, 45), True, False, id="thursday-1745"),
    pytest.param(cet(17, 8, 30), False, False, id="friday-0830"),
    pytest.param(cet(18, 14), False, False, id="saturday-1400"),
]


@pytest.mark.parametrize(("now", "plain", "same_day"), PRACTICE_TABLE)
def test_same_day_cutoff_table(now: datetime, plain: bool, same_day: bool) -> None:
    assert is_business_hours(now, HOURS) is plain
    assert is_business_hours(now, HOURS, same_day_followup=True) is same_day


def test_dst_monday_would_be_wrong_with_a_fixed_utc_offset() -> None:
    # Etc/GMT-1 is a fixed UTC+1: the "CET forever" mistake.
    fixed_offset = BusinessHours(timezone="Etc/GMT-1")
    monday_0930_cest = datetime(2025, 3, 31, 7, 30, tzinfo=UTC)

    assert is_business_hours(monday_0930_cest, HOURS) is True
    assert is_business_hours(monday_0930_cest, fixed_offset) is False


def test_visitor_timezone_does_not_matter() -> None:
    # 15:00 in New York is 21:00 in Madrid: outside the team's hours.
    new_york_afternoon = datetime(2025, 1, 15, 15, 0, tzinfo=ZoneInfo("America/New_York"))

    assert is_business_hours(new_york_afternoon, HOURS) is False


def test_naive_datetime_is_rejected() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        is_business_hours(datetime(2025, 1, 13, 10, 0), HOURS)
    with pytest.raises(ValueError, match="timezone-aware"):
        next_opening(datetime(2025, 1, 13, 10, 0), HOURS)


def test_custom_weekdays() -> None:
    sunday_to_thursday = BusinessHours(timezone="Asia/Dubai", weekdays=frozenset({6, 0, 1, 2, 3}))
    dubai = ZoneInfo("Asia/Dubai")

    assert is_business_hours(datetime(2025, 1, 19, 10, tzinfo=dubai), sunday_to_thursday)
    assert not is_business_hours(datetime(2025, 1, 17, 10, tzinfo=dubai), sunday_to_thursday)


# --- next_opening ------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        pytest.param(cet(13, 8, 0), cet(13, 9), id="weekday-before-opening-is-today"),
        pytest.param(cet(13, 9, 0), cet(14, 9), id="weekday-at-opening-is-tomorrow"),
        pytest.param(cet(13, 10, 0), cet(14, 9), id="weekday-in-hours-is-tomorrow"),
        pytest.param(cet(16, 20, 0), cet(17, 9), id="thursday-evening-is-friday"),
        pytest.param(cet(17, 18, 30), cet(20, 9), id="friday-evening-is-monday"),
        pytest.param(cet(18, 8, 0), cet(20, 9), id="saturday-morning-is-monday"),
        pytest.param(cet(19, 23, 0), cet(20, 9), id="sunday-night-is-monday"),
        pytest.param(
            datetime(2025, 1, 17, 23, 30, tzinfo=UTC), cet(20, 9), id="utc-input-uses-team-clock"
        ),
    ],
)
def test_next_opening(reference: datetime, expected: datetime) -> None:
    opening = next_opening(reference, HOURS)

    assert opening == expected
    assert opening.tzinfo == MADRID


def test_next_opening_across_spring_forward_keeps_local_opening_hour() -> None:
    friday_evening_cet = datetime(2025, 3, 28, 19, 0, tzinfo=MADRID)

    opening = next_opening(friday_evening_cet, HOURS)

    assert opening == datetime(2025, 3, 31, 7, 0, tzinfo=UTC)  # 09:00 CEST
    assert opening.utcoffset() == timedelta(hours=2)


def test_next_opening_across_fall_back_keeps_local_opening_hour() -> None:
    friday_evening_cest = datetime(2025, 10, 24, 19, 0, tzinfo=MADRID)

    opening = next_opening(friday_evening_cest, HOURS)

    assert opening == datetime(2025, 10, 27, 8, 0, tzinfo=UTC)  # 09:00 CET
    assert opening.utcoffset() == timedelta(hours=1)


# --- configuration ------------------------------------------------------------------------


def test_defaults_follow_the_specified_hours() -> None:
    assert HOURS.weekly[0] == (OpeningRange(9 * 60, 18 * 60),)
    assert HOURS.same_day_cutoff == time(16, 0)
    assert HOURS.weekdays == frozenset({0, 1, 2, 3, 4})
    assert HOURS.zone == MADRID


def test_missing_timezone_is_a_configuration_error() -> None:
    with pytest.raises(ValidationError, match="timezone"):
        BusinessHours()  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"timezone": ""}, "timezone is required"),
        ({"timezone": "   "}, "timezone is required"),
        ({"timezone": "Europe/Atlantis"}, "unknown IANA timezone 'Europe/Atlantis'"),
        ({"timezone": "../../etc/passwd"}, "unknown IANA timezone"),
        ({"timezone": "Europe/Madrid", "start_hour": 18, "end_hour": 9}, "must be before"),
        ({"timezone": "Europe/Madrid", "start_hour": 9, "end_hour": 9}, "must be before"),
        ({"timezone": "Europe/Madrid", "same_day_cutoff_hour": 19}, "same_day_cutoff_hour"),
        ({"timezone": "Europe/Madrid", "same_day_cutoff_hour": 8}, "same_day_cutoff_hour"),
        ({"timezone": "Europe/Madrid", "start_hour": 24}, "start_hour"),
        ({"timezone": "Europe/Madrid", "end_hour": 25}, "end_hour"),
        ({"timezone": "Europe/Madrid", "start_hour": "9.5"}, "start_hour"),
        ({"timezone": "Europe/Madrid", "weekdays": frozenset()}, "weekdays"),
        ({"timezone": "Europe/Madrid", "weekdays": frozenset({7})}, "weekdays"),
    ],
)
def test_invalid_configuration_is_rejected_with_a_clear_message(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        BusinessHours(**fields)


def test_hours_are_parsed_from_environment_strings() -> None:
    hours = BusinessHours.model_validate(
        {"timezone": "Europe/Madrid", "start_hour": "8", "end_hour": "17"}
    )

    assert hours.weekly[0] == (OpeningRange(8 * 60, 17 * 60),)
