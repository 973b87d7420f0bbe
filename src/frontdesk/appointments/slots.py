"""Free appointment slots: opening hours minus busy times minus buffers (pure, no I/O).

Everything is computed on instants (UTC) built from the team's wall clock with
`leads.hours.wall_instant`, so a slot at 10:00 stays at 10:00 across a daylight-saving
change and a 60-minute slot lasts 60 real minutes. Public holidays, closures and special
hours come from `leads.hours.hours_on`; an appointment type may narrow the hours further
(`allowed`, Monday-first like `BusinessHours.weekly`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import NamedTuple

from frontdesk.leads.hours import BusinessHours, OpeningRange, hours_on, wall_instant


class Interval(NamedTuple):
    """A busy or free span of time, `start` inclusive, `end` exclusive (aware datetimes)."""

    start: datetime
    end: datetime


@dataclass(frozen=True)
class SlotRules:
    """How one appointment type may be placed (the site file's appointment type)."""

    duration: timedelta
    buffer: timedelta = timedelta(0)
    min_notice: timedelta = timedelta(hours=2)
    max_ahead: timedelta = timedelta(days=30)
    step: timedelta = timedelta(minutes=30)
    # Monday-first ranges the type may use within the opening hours; None: all of them.
    allowed: tuple[tuple[OpeningRange, ...], ...] | None = None
    # Busy times that are not in the calendar yet (e.g. a hold) can be added by callers.
    extra_busy: tuple[Interval, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.duration <= timedelta(0) or self.step <= timedelta(0):
            raise ValueError("duration and step must be positive")
        if self.allowed is not None and len(self.allowed) != 7:
            raise ValueError("allowed needs seven entries, Monday first")


def _aware(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware; naive datetimes are rejected")
    return moment.astimezone(UTC)


def _intersect(
    opening: tuple[OpeningRange, ...], allowed: tuple[OpeningRange, ...]
) -> list[OpeningRange]:
    found = []
    for a in opening:
        for b in allowed:
            start, end = max(a.start, b.start), min(a.end, b.end)
            if start < end:
                found.append(OpeningRange(start, end))
    return found


def bookable_ranges(day: date, hours: BusinessHours, rules: SlotRules) -> list[Interval]:
    """The instants of `day` an appointment of this type may lie in (opening hours, the
    type's own hours, holidays and closures applied)."""
    opening = hours_on(day, hours).ranges
    ranges = (
        list(opening)
        if rules.allowed is None
        else _intersect(opening, rules.allowed[day.weekday()])
    )
    return [
        Interval(wall_instant(day, r.start, hours.zone), wall_instant(day, r.end, hours.zone))
        for r in ranges
    ]


def _collides(slot: Interval, busy: Sequence[Interval], buffer: timedelta) -> bool:
    start, end = slot.start - buffer, slot.end + buffer
    return any(b.start < end and start < b.end for b in busy)


def free_slots(
    hours: BusinessHours,
    rules: SlotRules,
    busy: Iterable[Interval],
    now: datetime,
    *,
    window: Interval | None = None,
    limit: int | None = None,
) -> list[Interval]:
    """Free slots from `now + min_notice` up to `now + max_ahead`, earliest first.

    Slots start on the team's wall clock every `step` from the start of each bookable
    range, end within it, and keep `buffer` free before and after every busy time.
    `window` narrows the search (a visitor's "Saturday morning"); `limit` stops early.
    """
    now = _aware(now)
    earliest, latest = now + rules.min_notice, now + rules.max_ahead
    if window is not None:
        earliest = max(earliest, _aware(window.start))
        latest = min(latest, _aware(window.end))
    blocked = sorted(
        [Interval(_aware(b.start), _aware(b.end)) for b in busy]
        + [Interval(_aware(b.start), _aware(b.end)) for b in rules.extra_busy]
    )
    found: list[Interval] = []
    seen: set[datetime] = set()
    day = now.astimezone(hours.zone).date() - timedelta(days=1)  # an overnight range
    last_day = latest.astimezone(hours.zone).date()
    step_minutes = int(rules.step.total_seconds() // 60)
    while day <= last_day:
        for bookable in bookable_ranges(day, hours, rules):
            wall_start = bookable.start.astimezone(hours.zone)
            minutes = wall_start.hour * 60 + wall_start.minute
            offset = 0
            while True:
                start = wall_instant(day, minutes + offset, hours.zone)
                offset += step_minutes
                end = start + rules.duration
                if end > bookable.end:
                    break
                if start < bookable.start or start in seen:
                    continue  # a wall time skipped by a DST change repeats the next one
                seen.add(start)
                if start < earliest or end > latest or start >= latest:
                    continue
                slot = Interval(start, end)
                if not _collides(slot, blocked, rules.buffer):
                    found.append(slot)
                    if limit is not None and len(found) >= limit:
                        return found
        day += timedelta(days=1)
    return found


def is_free(
    slot: Interval, hours: BusinessHours, rules: SlotRules, busy: Iterable[Interval], now: datetime
) -> bool:
    """True when `slot` is one `free_slots` would offer (checked again right before booking)."""
    window = Interval(slot.start, slot.end)
    return _aware(slot.start) in {
        s.start for s in free_slots(hours, rules, busy, now, window=window)
    }


def spread(slots: Sequence[Interval], count: int, zone_hours: BusinessHours) -> list[Interval]:
    """Up to `count` slots to offer: the earliest first, then at most two a day, at least
    an hour apart, so a short list still shows a choice of days and times."""
    chosen: list[Interval] = []
    per_day: dict[date, list[Interval]] = {}
    for slot in slots:
        day = slot.start.astimezone(zone_hours.zone).date()
        taken = per_day.setdefault(day, [])
        if len(taken) >= 2 or any(abs(slot.start - t.start) < timedelta(hours=1) for t in taken):
            continue
        taken.append(slot)
        chosen.append(slot)
        if len(chosen) >= count:
            return chosen
    for slot in slots:  # fewer days than wanted: fill with the remaining slots in order
        if len(chosen) >= count:
            break
        if slot not in chosen:
            chosen.append(slot)
    return sorted(chosen)
