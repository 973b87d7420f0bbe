"""Opening hours in the team's IANA timezone: a weekly schedule with minutes and several
ranges a day, public holidays by country and region, dated closures and special hours.

The check is always made on the team's wall clock, never the visitor's: a visitor in
New York at 15:00 talks to a team in Berlin at 21:00. The caller passes `now`, so every
function here is pure; public holidays come from the `holidays` package, which computes
them from rules (no I/O). Instants are compared in UTC: two datetimes sharing one
`ZoneInfo` compare by wall time, which is wrong across a DST change.

A day's ranges come from, in this order: `special` (dated hours), `closed` (dated
closures), the public holidays of `public_holidays`, then `weekly`. A range may run past
midnight (`22:00-02:00`); its hours after midnight belong to the day it started on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import holidays as holiday_rules
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

MINUTES_PER_DAY = 24 * 60
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# Without an explicit cutoff, "today" is not promised in the last two hours before closing.
DEFAULT_SAME_DAY_MARGIN = timedelta(hours=2)
# How far ahead the next opening is looked for: past a year of closures nothing opens.
SEARCH_DAYS = 400

_RANGE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


class NeverOpensError(ValueError):
    """The schedule has no opening within a year of the reference time."""


class OpeningRange(NamedTuple):
    """Open from `start` (inclusive) to `end` (exclusive), in minutes after the day's
    midnight; `end` passes 1440 for a range that runs overnight."""

    start: int
    end: int

    @property
    def overnight(self) -> bool:
        return self.end > MINUTES_PER_DAY

    def __str__(self) -> str:
        return f"{clock_text(self.start)}-{clock_text(self.end % MINUTES_PER_DAY or self.end)}"


def clock_text(minutes: int) -> str:
    """Minutes after midnight as `HH:MM` (1440 is `24:00`)."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_range(text: str) -> OpeningRange:
    """`"09:30-13:00"` → an `OpeningRange`; an end before the start runs overnight.

    Raises ValueError saying what is wrong and what is allowed.
    """
    match = _RANGE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not a time range: write it as HH:MM-HH:MM, e.g. 09:30-13:00")
    start_h, start_m, end_h, end_m = (int(part) for part in match.groups())
    for hour, minute in ((start_h, start_m), (end_h, end_m)):
        if hour > 24 or minute > 59 or (hour == 24 and minute):
            raise ValueError(f"{text!r}: {hour:02d}:{minute:02d} is not a time (00:00-24:00)")
    start, end = start_h * 60 + start_m, end_h * 60 + end_m
    if start == MINUTES_PER_DAY:
        raise ValueError(f"{text!r}: a range cannot start at 24:00; start it at 00:00")
    if start == end:
        raise ValueError(f"{text!r} is empty: it ends when it starts")
    return OpeningRange(start, end if end > start else end + MINUTES_PER_DAY)


def merged(ranges: Iterable[OpeningRange]) -> tuple[OpeningRange, ...]:
    """Ranges sorted, with overlapping or touching ones joined (`09-13` + `12-14` → `09-14`)."""
    result: list[OpeningRange] = []
    for current in sorted(ranges):
        if result and current.start <= result[-1].end:
            result[-1] = OpeningRange(result[-1].start, max(result[-1].end, current.end))
        else:
            result.append(current)
    return tuple(result)


@lru_cache(maxsize=64)
def holiday_region(spec: str) -> tuple[str, str | None]:
    """`"DE-SN"` → `("DE", "SN")`, `"FR"` → `("FR", None)`, checked against the
    countries and subdivisions the `holidays` package knows (ValueError otherwise)."""
    country, _, region = spec.strip().partition("-")
    country = country.upper()
    supported: Mapping[str, list[str]] = holiday_rules.list_supported_countries()
    if country not in supported:
        raise ValueError(
            f"unknown country {country!r} in holidays {spec!r}: use an ISO 3166 code such "
            "as DE, FR or US, optionally with a region (DE-SN)"
        )
    if not region:
        return country, None
    by_upper = {code.upper(): code for code in supported[country]}
    if region.upper() not in by_upper:
        allowed = ", ".join(supported[country]) or "none"
        raise ValueError(
            f"unknown region {region!r} of {country} in holidays {spec!r}: allowed are {allowed}"
        )
    return country, by_upper[region.upper()]


@lru_cache(maxsize=256)
def _holidays_of(country: str, region: str | None, year: int) -> Mapping[date, str]:
    rules = holiday_rules.country_holidays(country, subdiv=region, years=year, language="en_US")
    return dict(rules)


def public_holiday(day: date, spec: str) -> str | None:
    """The public holiday on `day` in the region `spec` (e.g. `DE-SN`), by name; None if none."""
    country, region = holiday_region(spec)
    return _holidays_of(country, region, day.year).get(day)


@lru_cache(maxsize=256)
def _named_holidays(country: str, region: str | None, year: int, language: str) -> dict[date, str]:
    localized: Mapping[str, list[str]] = holiday_rules.list_localized_countries()
    offered = localized.get(country, [])
    chosen = next((lang for lang in offered if lang.split("_")[0] == language), None)
    rules = holiday_rules.country_holidays(
        country, subdiv=region, years=year, language=chosen or "en_US"
    )
    return dict(rules)


def public_holiday_named(day: date, spec: str, language: str) -> str | None:
    """The public holiday on `day` in the region `spec`, named in `language` where the
    `holidays` package has that translation (else in English); None if none."""
    if public_holiday(day, spec) is None:
        return None
    country, region = holiday_region(spec)
    return _named_holidays(country, region, day.year, language).get(day) or public_holiday(
        day, spec
    )


DayKind = Literal["weekly", "special", "closed", "holiday"]


class DayHours(NamedTuple):
    """One date's opening ranges and why they are what they are (`note`: holiday name)."""

    day: date
    ranges: tuple[OpeningRange, ...]
    kind: DayKind
    note: str = ""


class _WholeHours(BaseModel):
    """The older whole-hour configuration: one range on the working days."""

    start_hour: int = Field(default=9, ge=0, le=23)
    end_hour: int = Field(default=18, ge=1, le=24)
    same_day_cutoff_hour: int = Field(default=16, ge=0, le=24)
    weekdays: frozenset[int] = frozenset(range(5))

    @field_validator("weekdays")
    @classmethod
    def _real_weekdays(cls, value: frozenset[int]) -> frozenset[int]:
        if not value or not value <= frozenset(range(7)):
            raise ValueError("weekdays must be a non-empty set of 0 (Monday) … 6 (Sunday)")
        return value

    @model_validator(mode="after")
    def _ordered_hours(self) -> _WholeHours:
        if self.start_hour >= self.end_hour:
            raise ValueError(
                f"start_hour ({self.start_hour}) must be before end_hour ({self.end_hour})"
            )
        if not self.start_hour <= self.same_day_cutoff_hour <= self.end_hour:
            raise ValueError(
                f"same_day_cutoff_hour ({self.same_day_cutoff_hour}) must be between "
                f"start_hour ({self.start_hour}) and end_hour ({self.end_hour})"
            )
        return self


def known_timezone(value: str) -> str:
    """`value` if it is an IANA timezone key, else a ValueError that says what is wrong."""
    # A missing or fixed-offset guess is wrong for half the year, so fail at startup.
    if not value.strip():
        raise ValueError("timezone is required: an IANA key such as Europe/Berlin")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"unknown IANA timezone {value!r}") from error
    return value


IanaTimezone = Annotated[str, AfterValidator(known_timezone)]
"""A timezone field: an IANA key, checked when the model is read."""


class BusinessHours(BaseModel):
    """When the team is there, as the pure functions of this module read it.

    `weekly` has seven entries, Monday first. `same_day_cutoff` is the latest wall time
    a same-day follow-up is promised; None means two hours before the day's last closing.
    The older whole-hour keywords (`start_hour`, `end_hour`, `same_day_cutoff_hour`,
    `weekdays` with Monday=0) still build a value: one range on those days.
    """

    model_config = ConfigDict(frozen=True)

    timezone: IanaTimezone = Field(description="IANA timezone of the team, e.g. Europe/Berlin")
    weekly: tuple[tuple[OpeningRange, ...], ...] = Field(min_length=7, max_length=7)
    public_holidays: str | None = None
    closed: frozenset[date] = frozenset()
    special: Mapping[date, tuple[OpeningRange, ...]] = Field(default_factory=dict)
    same_day_cutoff: time | None = None

    @model_validator(mode="before")
    @classmethod
    def _whole_hour_form(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "weekly" in data:
            return data
        data = dict(data)
        keys = ("start_hour", "end_hour", "same_day_cutoff_hour", "weekdays")
        whole = _WholeHours.model_validate({k: data.pop(k) for k in keys if k in data})
        start, end, cutoff = whole.start_hour, whole.end_hour, whole.same_day_cutoff_hour
        days = whole.weekdays
        opening = (OpeningRange(start * 60, end * 60),)
        data["weekly"] = tuple(opening if day in days else () for day in range(7))
        data["same_day_cutoff"] = time(cutoff % 24) if cutoff < 24 else time(23, 59)
        return data

    @field_validator("weekly")
    @classmethod
    def _merged_weekly(
        cls, value: tuple[tuple[OpeningRange, ...], ...]
    ) -> tuple[tuple[OpeningRange, ...], ...]:
        if not any(value):
            raise ValueError("the weekly schedule must open on at least one day")
        return tuple(merged(day) for day in value)

    @field_validator("special")
    @classmethod
    def _merged_special(
        cls, value: Mapping[date, tuple[OpeningRange, ...]]
    ) -> Mapping[date, tuple[OpeningRange, ...]]:
        return {day: merged(ranges) for day, ranges in value.items()}

    @field_validator("public_holidays")
    @classmethod
    def _known_region(cls, value: str | None) -> str | None:
        if value is not None:
            holiday_region(value)
        return value

    @property
    def zone(self) -> ZoneInfo:
        """The team's timezone (ZoneInfo caches instances per key)."""
        return ZoneInfo(self.timezone)

    @property
    def weekdays(self) -> frozenset[int]:
        """The days of the week with opening hours (Monday=0)."""
        return frozenset(index for index, ranges in enumerate(self.weekly) if ranges)


def hours_on(day: date, hours: BusinessHours) -> DayHours:
    """The opening ranges of one date: special hours, else closed, else holiday, else weekly."""
    if day in hours.special:
        return DayHours(day, hours.special[day], "special")
    if day in hours.closed:
        return DayHours(day, (), "closed")
    if hours.public_holidays:
        name = public_holiday(day, hours.public_holidays)
        if name:
            return DayHours(day, (), "holiday", name)
    return DayHours(day, hours.weekly[day.weekday()], "weekly")


def days_ahead(start: date, count: int, hours: BusinessHours) -> list[DayHours]:
    """The hours of `count` dates from `start`, as they will be applied."""
    return [hours_on(start + timedelta(days=offset), hours) for offset in range(count)]


def wall_instant(day: date, minutes: int, zone: ZoneInfo) -> datetime:
    """`minutes` after midnight of `day` on the team's wall clock, as a UTC instant.

    A wall time skipped by a DST change (02:30 on the spring-forward night) is read
    with the offset before the change, i.e. one hour later in the new time.
    """
    wall = datetime.combine(day, time()) + timedelta(minutes=minutes)
    return wall.replace(tzinfo=zone).astimezone(UTC)


def _team_clock(moment: datetime, hours: BusinessHours) -> datetime:
    # A naive datetime has no instant; guessing its zone is the bug this module exists to avoid.
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware; naive datetimes are rejected")
    return moment.astimezone(hours.zone)


def open_range_at(now: datetime, hours: BusinessHours) -> tuple[date, OpeningRange] | None:
    """The date and range the team is open in at `now`, or None when it is closed."""
    today = _team_clock(now, hours).date()
    instant = now.astimezone(UTC)
    for day in (today - timedelta(days=1), today):  # yesterday for an overnight range
        for opening in hours_on(day, hours).ranges:
            start = wall_instant(day, opening.start, hours.zone)
            if start <= instant < wall_instant(day, opening.end, hours.zone):
                return day, opening
    return None


def is_open(now: datetime, hours: BusinessHours) -> bool:
    """True when `now` falls inside an opening range."""
    return open_range_at(now, hours) is not None


def same_day_cutoff(day: date, hours: BusinessHours) -> datetime | None:
    """The last instant of `day` at which "today" is promised (None when closed that day)."""
    ranges = hours_on(day, hours).ranges
    if not ranges:
        return None
    if hours.same_day_cutoff is not None:
        cutoff = hours.same_day_cutoff
        return wall_instant(day, cutoff.hour * 60 + cutoff.minute, hours.zone)
    return wall_instant(day, ranges[-1].end, hours.zone) - DEFAULT_SAME_DAY_MARGIN


def is_business_hours(now: datetime, hours: BusinessHours, same_day_followup: bool = False) -> bool:
    """True when the team is open at `now`.

    With `same_day_followup=True` (hot lead or explicit request, where "we'll call you
    today" would be promised) the day's same-day cutoff applies as well.
    """
    found = open_range_at(now, hours)
    if found is None:
        return False
    if not same_day_followup:
        return True
    cutoff = same_day_cutoff(found[0], hours)
    return cutoff is not None and now.astimezone(UTC) < cutoff


def next_opening(reference: datetime, hours: BusinessHours) -> datetime:
    """The first opening strictly after `reference`, in the team's timezone.

    A lunch break reopens the same day; a holiday or closure is skipped. Raises
    `NeverOpensError` when nothing opens within a year.
    """
    today = _team_clock(reference, hours).date()
    instant = reference.astimezone(UTC)
    for offset in range(-1, SEARCH_DAYS):
        day = today + timedelta(days=offset)
        for opening in hours_on(day, hours).ranges:
            start = wall_instant(day, opening.start, hours.zone)
            if start > instant:
                return start.astimezone(hours.zone)
    raise NeverOpensError(f"no opening within {SEARCH_DAYS} days of {reference.isoformat()}")


def weekly_summary(hours: BusinessHours) -> list[tuple[str, str]]:
    """The weekly schedule for people: consecutive days with the same ranges grouped,
    e.g. `[("mon", "closed"), ("tue-fri", "09:30-13:00, 14:00-18:30"), …]`."""
    groups: list[tuple[int, int, tuple[OpeningRange, ...]]] = []
    for index, ranges in enumerate(hours.weekly):
        if groups and groups[-1][2] == ranges:
            groups[-1] = (groups[-1][0], index, ranges)
        else:
            groups.append((index, index, ranges))
    return [
        (
            DAY_NAMES[first] if first == last else f"{DAY_NAMES[first]}-{DAY_NAMES[last]}",
            ", ".join(str(r) for r in ranges) if ranges else "closed",
        )
        for first, last, ranges in groups
    ]


def schedule_lines(hours: BusinessHours) -> list[tuple[str, str]]:
    """The whole schedule for people, one (label, value) per line: the weekly days, then
    public holidays, closures and special hours when there are any."""
    lines = weekly_summary(hours)
    if hours.public_holidays:
        lines.append(("holidays", f"closed on public holidays in {hours.public_holidays}"))
    if hours.closed:
        lines.append(("closed", ", ".join(day.isoformat() for day in sorted(hours.closed))))
    lines += [
        (day.isoformat(), ", ".join(str(r) for r in ranges) + " (special hours)")
        for day, ranges in sorted(hours.special.items())
    ]
    return lines
