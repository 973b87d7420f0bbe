"""What the parts of a site file share: strict sections, languages and day keys."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from frontdesk.leads.hours import OpeningRange, parse_range

Language = Literal["en", "ru", "fr", "de", "es", "it", "pt", "nl"]


class Strict(BaseModel):
    """Unknown keys are errors: a typo in a YAML file must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def weekday_keys(key: str) -> list[int]:
    """A day key of `weekly` → weekday indexes (Monday=0): `sat` → [5], `tue-fri` →
    [1, 2, 3, 4]; a range may wrap the week (`fri-mon`). ValueError names the key."""
    allowed = "a day (mon, tue, wed, thu, fri, sat, sun) or a range of days such as mon-fri"
    first, dash, last = key.strip().lower().partition("-")
    names = [first] + ([last] if dash else [])
    unknown = [name for name in names if name not in WEEKDAYS]
    if unknown or not first:
        raise ValueError(f"unknown day key {key!r}: use {allowed}")
    start = WEEKDAYS.index(first)  # type: ignore[arg-type]
    stop = WEEKDAYS.index(last) if dash else start  # type: ignore[arg-type]
    return [(start + step) % 7 for step in range((stop - start) % 7 + 1)]


def day_ranges(where: str, values: list[str]) -> tuple[OpeningRange, ...]:
    if not isinstance(values, list) or not values:
        raise ValueError(
            f'{where}: give a list of time ranges such as ["09:30-13:00", "14:00-18:30"]'
        )
    try:
        return tuple(parse_range(value) for value in values)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def week_of(value: dict[str, list[str]], where: str) -> tuple[tuple[OpeningRange, ...], ...]:
    """Monday-first ranges of a week written by day keys (`{"mon-fri": [...], "sat":
    [...]}`); ValueError when a key or its ranges are wrong, or a day is named twice."""
    week: list[tuple[OpeningRange, ...]] = [() for _ in range(7)]
    seen: dict[int, str] = {}
    for key, values in value.items():
        days = weekday_keys(key)
        for index in days:
            if index in seen:
                raise ValueError(
                    f"{WEEKDAYS[index]} is named by both {seen[index]!r} and {key!r}: "
                    "give each day its ranges once"
                )
            seen[index] = key
        ranges = day_ranges(f"{where}.{key}", values)
        for index in days:
            week[index] = ranges
    return tuple(week)
