"""The business hours section of a site file: the weekly hours, dated exceptions and
public holidays."""

from __future__ import annotations

import itertools
from datetime import date, time

from pydantic import (
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from frontdesk.leads.hours import (
    MINUTES_PER_DAY,
    BusinessHours,
    IanaTimezone,
    OpeningRange,
    clock_text,
    holiday_region,
)
from frontdesk.sites.common import WEEKDAYS, Strict, Weekday, day_ranges, week_of


def _overlaps(ranges: tuple[OpeningRange, ...]) -> list[tuple[OpeningRange, OpeningRange]]:
    ordered = sorted(ranges)
    return [(a, b) for a, b in itertools.pairwise(ordered) if b.start < a.end]


class BusinessHoursConfig(Strict):
    """When the team is there. Either the weekly form (`weekly`, `holidays`, `closed`,
    `special`: several ranges a day, with minutes) or the simple form (`start`, `end`,
    `days`: one range on the working days), never both."""

    timezone: IanaTimezone = Field(description="IANA timezone, e.g. Europe/Berlin.")
    weekly: dict[str, list[str]] | None = Field(
        default=None,
        description='Opening ranges per day key: {"tue-fri": ["09:30-13:00", "14:00-18:30"], '
        '"sat": ["10:00-14:00"]}. A day not named is closed; 22:00-02:00 runs overnight.',
    )
    holidays: str | None = Field(
        default=None,
        description="Closed on the public holidays of a country or region: DE, DE-SN, US-CA.",
    )
    closed: list[date] = Field(default_factory=list, description="Dates closed: [2026-12-24].")
    special: dict[date, list[str]] = Field(
        default_factory=dict,
        description='Dated hours that replace the weekly ones: {2026-12-23: ["10:00-16:00"]}.',
    )
    start: time | None = Field(default=None, description="Simple form: opening time (09:00).")
    end: time | None = Field(default=None, description="Simple form: closing time (18:00).")
    days: list[Weekday] | None = Field(
        default=None,
        min_length=1,
        description="Simple form: the days the team works, e.g. [mon, tue, wed, thu, fri, sat].",
    )
    same_day_cutoff: time | None = Field(
        default=None,
        description="Latest time a same-day follow-up is promised (simple form default 16:00; "
        "weekly form default two hours before the day's last closing).",
    )
    # The pure value every reader uses, built once when the file is validated.
    _hours: BusinessHours = PrivateAttr()

    @property
    def simple_form(self) -> bool:
        return self.weekly is None

    def hours(self) -> BusinessHours:
        """These hours as the pure module's value (`leads.hours`)."""
        return self._hours

    def weekly_ranges(self) -> tuple[tuple[OpeningRange, ...], ...]:
        """Monday-first opening ranges as written (not merged)."""
        if self.weekly is None:
            start, end = self.start or time(9, 0), self.end or time(18, 0)
            opening = OpeningRange(
                start.hour * 60 + start.minute, (end.hour * 60 + end.minute) or MINUTES_PER_DAY
            )
            days = {WEEKDAYS.index(day) for day in self.days or WEEKDAYS[:5]}
            return tuple((opening,) if index in days else () for index in range(7))
        return week_of(self.weekly, "weekly")

    def warnings(self) -> list[str]:
        """Hours that load but look wrong: overnight ranges and overlapping ranges."""
        found: list[str] = []
        days: list[tuple[str, tuple[OpeningRange, ...]]] = [
            (WEEKDAYS[i], r) for i, r in enumerate(self.weekly_ranges())
        ]
        days += [(d.isoformat(), day_ranges(f"special.{d}", v)) for d, v in self.special.items()]
        for name, ranges in days:
            found += [
                f"{name}: {r} ends before it starts; it is read as open overnight until "
                f"{clock_text(r.end - MINUTES_PER_DAY)} the next day"
                for r in ranges
                if r.overnight
            ]
            found += [
                f"{name}: {a} and {b} overlap; they are read as one range"
                for a, b in _overlaps(ranges)
            ]
        return found

    @field_validator("weekly")
    @classmethod
    def _day_keys(cls, value: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        if value is None:
            return None
        week_of(value, "weekly")
        return value

    @field_validator("holidays")
    @classmethod
    def _known_region(cls, value: str | None) -> str | None:
        if value is not None:
            holiday_region(value)
        return value

    @field_validator("special")
    @classmethod
    def _special_ranges(cls, value: dict[date, list[str]]) -> dict[date, list[str]]:
        for day, values in value.items():
            if not values:
                raise ValueError(f"special.{day}: no ranges; list the date under closed instead")
            day_ranges(f"special.{day}", values)
        return value

    @model_validator(mode="after")
    def _one_form(self) -> BusinessHoursConfig:
        simple = [name for name in ("start", "end", "days") if getattr(self, name) is not None]
        if self.weekly is not None and simple:
            raise ValueError(
                f"{', '.join(simple)}: simple-form keys cannot be mixed with weekly; "
                "write every day's ranges under weekly"
            )
        if self.weekly is None:
            start, end = self.start or time(9, 0), self.end or time(18, 0)
            cutoff = self.same_day_cutoff or time(16, 0)
            if start >= end and end != time(0, 0):
                raise ValueError(f"start ({start}) must be before end ({end})")
            if not start <= cutoff <= end:
                raise ValueError("same_day_cutoff must lie between start and end")
        elif not any(self.weekly.values()):
            raise ValueError("weekly opens on no day: name at least one day with its ranges")
        both = sorted(set(self.closed) & set(self.special))
        if both:
            raise ValueError(
                f"{', '.join(d.isoformat() for d in both)} is both closed and in special: "
                "keep it in one of them"
            )
        hours = BusinessHours(
            timezone=self.timezone,
            weekly=self.weekly_ranges(),
            public_holidays=self.holidays,
            closed=frozenset(self.closed),
            special={d: day_ranges(f"special.{d}", v) for d, v in self.special.items()},
            same_day_cutoff=self.same_day_cutoff or (time(16, 0) if self.weekly is None else None),
        )
        self._hours = hours
        return self
