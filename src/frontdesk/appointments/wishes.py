"""The visitor's wording of a time: "Saturday morning", "nächste Woche nach 17 Uhr",
"samedi matin" (pure: no I/O, `now` passed in).

Dates and weeks come from `dateparser` (Scrapinghub's multilingual date parser), the
parts of a day ("morning", "Vormittag", "ochtend") and their hours from CLDR's day
periods via Babel, so every supported language reads the same way without word lists
of our own. A clock time on its own ("after 5", "17 Uhr", "10:00") is read as "from
then on"; an hour 1-7 without a.m. is read as the afternoon.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel import Locale

_CLOCK = re.compile(
    r"(?<![\d.:/])(?:(?P<h>[01]?\d|2[0-3])[:.h](?P<m>[0-5]\d)"
    r"|(?P<h2>[01]?\d|2[0-3])\s*(?P<unit>h\b|uhr\b|uur\b|a\.?m\.?|p\.?m\.?|час\w*)"
    r"|(?P<h3>[01]?\d|2[0-3]))(?![\d.:/]|\s*[./]\s*\d)",
    re.IGNORECASE,
)
_EARLIEST_MORNING_HOUR = 8  # "after 5" at a workshop means 17:00, not 05:00


@dataclass(frozen=True)
class TimeWish:
    """Days `first`..`last` (inclusive) and, on each, wall times `start`..`end` (minutes)."""

    first: date | None = None
    last: date | None = None
    start: int = 0
    end: int = 24 * 60

    @property
    def empty(self) -> bool:
        return self.first is None and self.start == 0 and self.end == 24 * 60

    def admits(self, moment: datetime, zone: ZoneInfo) -> bool:
        """True when `moment` (a slot's start) is one the visitor asked for."""
        wall = moment.astimezone(zone)
        if self.first is not None and wall.date() < self.first:
            return False
        if self.last is not None and wall.date() > self.last:
            return False
        minutes = wall.hour * 60 + wall.minute
        return self.start <= minutes < self.end


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("’", "'"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=16)
def day_periods(language: str) -> tuple[tuple[str, int, int], ...]:
    """CLDR's names of the parts of a day in `language` with their wall-time spans,
    longest name first: (`"vormittag"`, 540, 720), (`"morning"`, 360, 720)…"""
    locale = Locale.parse(language)
    rules = locale.day_period_rules.get(None) or {}
    spans: dict[str, tuple[int, int]] = {}
    for period, parts in rules.items():
        for rule in parts:  # seconds after midnight; a span over midnight has two parts
            start, end = rule.get("from"), rule.get("before")
            if isinstance(start, int) and isinstance(end, int) and start < end:
                spans.setdefault(period, (start // 60, end // 60))
    names: dict[str, tuple[int, int]] = {}
    for context in locale.day_periods.values():
        for width in context.values():
            for period, name in width.items():
                if period in spans and len(name) >= 4:
                    for word in _fold(name).split():
                        if len(word) >= 4 and word not in names:
                            names[word] = spans[period]
    return tuple(sorted(((n, *span) for n, span in names.items()), key=lambda e: -len(e[0])))


def _clock(text: str) -> tuple[int | None, str]:
    for match in _CLOCK.finditer(text):
        hour = int(match.group("h") or match.group("h2") or match.group("h3"))
        minute = int(match.group("m") or 0)
        unit = (match.group("unit") or "").lower().replace(".", "")
        afternoon = unit == "pm" or (unit != "am" and hour >= 1)
        if afternoon and hour < (12 if unit == "pm" else _EARLIEST_MORNING_HOUR):
            hour += 12
        rest = text[: match.start()] + " " + text[match.end() :]
        return hour * 60 + minute, rest
    return None, text


def _dates(text: str, language: str, base: datetime) -> tuple[date, date] | None:
    from dateparser.date import DateDataParser
    from dateparser.search import search_dates

    settings = {"PREFER_DATES_FROM": "future", "RELATIVE_BASE": base}
    period_settings = {**settings, "RETURN_TIME_AS_PERIOD": True}
    parser = DateDataParser(languages=[language], settings=period_settings)
    found = [
        (phrase, moment, parser.get_date_data(phrase).period)
        for phrase, moment in search_dates(text, languages=[language], settings=settings) or []
        # Two letters alone are words more often than weekdays ("we", "do", "di").
        if len(phrase.strip()) > 2
    ]
    if not found:  # "la semaine prochaine" is read whole, not found by the search
        whole = parser.get_date_data(text.strip(" ,.!?"))
        if whole.date_obj is not None:
            found = [(text, whole.date_obj, whole.period)]
    for _, moment, period in found:
        day = moment.date()
        if period == "week":
            monday = day - timedelta(days=day.weekday())
            return max(monday, base.date()), monday + timedelta(days=6)
        if period == "month":
            first = day.replace(day=1)
            following = (first + timedelta(days=32)).replace(day=1)
            return max(first, base.date()), following - timedelta(days=1)
        return day, day
    return None


def time_wish(text: str, language: str, now: datetime, zone: ZoneInfo) -> TimeWish:
    """The days and hours `text` asks for, read in `language` on the team's clock."""
    base = now.astimezone(zone).replace(tzinfo=None)
    # Matched on the text without accents; the date parser reads the rest with them.
    lowered = unicodedata.normalize("NFD", text.casefold().replace("’", "'"))
    start, end = 0, 24 * 60
    for name, period_start, period_end in day_periods(language):
        accented = "".join(re.escape(c) + "[\u0300-\u036f]*" for c in name)
        found = re.search(rf"{accented}\w*", lowered)
        if found:
            start, end = period_start, period_end
            lowered = lowered[: found.start()] + " " + lowered[found.end() :]
            break
    clock, rest = _clock(unicodedata.normalize("NFC", lowered))
    if clock is not None:
        start, end = max(start, clock), max(end, clock + 1)
        if end == clock + 1:
            end = 24 * 60
    days = _dates(rest, language, base)
    return TimeWish(days[0], days[1], start, end) if days else TimeWish(None, None, start, end)


def mentions_time(text: str, language: str, now: datetime, zone: ZoneInfo) -> bool:
    """True when `text` names a day, a week or a part of a day (a booking wish's when)."""
    wish = time_wish(text, language, now, zone)
    return wish.first is not None or (wish.start, wish.end) != (0, 24 * 60)


def names_any(text: str, names: list[str]) -> str | None:
    """The first of `names` (e.g. appointment type names) that `text` mentions, by word
    start, case and accents folded ("Inspektion" in "eine Inspektion am Samstag")."""
    folded = _fold(text)
    for name in names:
        key = _fold(name).strip()
        if key and re.search(rf"(?<!\w){re.escape(key)}", folded):
            return name
    return None
