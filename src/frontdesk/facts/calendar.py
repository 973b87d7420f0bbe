"""Weekday names and opening-hours lines in every supported language, from CLDR (Babel):
no hand-written word lists. Pure: text in, weekdays and time ranges out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Literal

from babel import Locale
from babel.dates import get_day_names

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru")
_WIDTHS: tuple[Literal["wide", "abbreviated", "short"], ...] = ("wide", "abbreviated", "short")
NAME_CONTEXTS: tuple[Literal["format", "stand-alone"], ...] = ("format", "stand-alone")
WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?\.?")
_DASH = r"[-‐-―−~]"


@lru_cache(maxsize=1)
def _day_periods() -> dict[str, str]:
    """CLDR's before/after-noon markers of every supported language ("AM", "p.m.",
    "a. m."), compared without dots and spaces → "am" or "pm"."""
    markers: dict[str, str] = {}
    for language in LANGUAGES:
        periods = Locale.parse(language).day_periods["format"]
        for width in ("abbreviated", "wide"):  # narrow "a" is also a word ("9 a 14")
            for period in ("am", "pm"):
                name = periods.get(width, {}).get(period)
                if name:
                    markers.setdefault(_bare(name), period)
    return markers


def _bare(text: str) -> str:
    return re.sub(r"[.\s]", "", text.casefold())


def _period_pattern() -> str:
    words = sorted(_day_periods(), key=len, reverse=True)
    return "|".join(r"\.?\s?".join(re.escape(char) for char in word) + r"\.?" for word in words)


# 9, 9:30, 9.30, 9h30, 09h, 5.30pm: hours, optional minutes, optional CLDR day period.
_TIME = rf"(\d{{1,2}})(?:[:.h](\d{{2}})|h)?(?!\d|[,.]\d)(?:\s?({_period_pattern()})(?![^\W\d_]))?"
# Two times joined by a dash or one short word ("bis", "à", "to", "до"), each optionally
# followed by a short unit ("Uhr", "h").
TIME_RANGE = re.compile(
    rf"(?<![\d.,]){_TIME}\s*(?:[^\W\d_]{{1,3}}\.?\s*)?(?:{_DASH}|\s[^\W\d_]{{1,5}}\s)\s*{_TIME}"
)


def name_key(word: str) -> str:
    return word.casefold().rstrip(".")


@lru_cache(maxsize=16)
def weekday_names(language: str, *, wide_only: bool = False) -> dict[str, int]:
    """Every CLDR name of the seven days in `language` → weekday (0 = Monday)."""
    names: dict[str, int] = {}
    for width in _WIDTHS[:1] if wide_only else _WIDTHS:
        for context in NAME_CONTEXTS:
            for day, name in get_day_names(width, context, locale=language).items():
                names.setdefault(name_key(name), day)
                if width == "wide" and not name_key(name).endswith("s"):
                    # The plural or adverb of a full name: "Mondays", "los sábados",
                    # "montags", "maandags", "les lundis".
                    names.setdefault(name_key(name) + "s", day)
    return names


@lru_cache(maxsize=16)
def weekday_lookup(first: str, *, wide_only: bool = False) -> dict[str, int]:
    """All supported languages' names, `first` (the page's language) winning a clash
    ("ma" is Tuesday in French and Monday in Dutch)."""
    order = (first, *(lang for lang in LANGUAGES if lang != first))
    merged: dict[str, int] = {}
    for language in order:
        if language not in LANGUAGES:
            continue
        for name, day in weekday_names(language, wide_only=wide_only).items():
            merged.setdefault(name, day)
    return merged


@lru_cache(maxsize=16)
def and_words(language: str) -> frozenset[str]:
    """The word CLDR joins two list items with ("und", "et", "и"): between two day names
    it lists them; any other word or a dash spans a range."""
    words: set[str] = set()
    for lang in (language, *LANGUAGES):
        if lang not in LANGUAGES:
            continue
        pattern = Locale.parse(lang).list_patterns["standard"].get("2", "")
        between = pattern.replace("{0}", "").replace("{1}", "").strip()
        if between:
            words.add(between.casefold())
    return frozenset(words)


@lru_cache(maxsize=16)
def list_words(language: str) -> frozenset[str]:
    """The words CLDR joins the last two items of a list with in `language`, in "and" and
    "or" lists ("und", "oder"; "et", "ou"; "и", "или"). The page's language only: Dutch
    "of" (or) is an English preposition."""
    words: set[str] = set()
    for lang in (language,) if language in LANGUAGES else ("en",):
        patterns = Locale.parse(lang).list_patterns
        for style in ("standard", "or"):
            pattern = patterns.get(style, {}).get("2", "") if style in patterns else ""
            between = pattern.replace("{0}", "").replace("{1}", "").strip(" ,")
            if between:
                words.add(between.casefold())
    return frozenset(words)


@dataclass(frozen=True)
class DayMention:
    day: int
    start: int
    end: int


def day_mentions(text: str, language: str, *, wide_only: bool = False) -> list[DayMention]:
    lookup = weekday_lookup(language, wide_only=wide_only)
    found = []
    for match in WORD.finditer(text):
        day = lookup.get(name_key(match.group()))
        if day is not None:
            found.append(DayMention(day, match.start(), match.end()))
    return found


def days_named(text: str, language: str) -> tuple[int, ...]:
    """The weekdays a visitor's message names in full ("am Samstag", "on Sunday")."""
    return tuple(dict.fromkeys(m.day for m in day_mentions(text, language, wide_only=True)))


@dataclass(frozen=True)
class HoursLine:
    """One line's days with their time ranges (empty ranges: named with no times)."""

    days: tuple[int, ...]
    ranges: tuple[tuple[str, str], ...]
    note: str = ""


def _clock(hour: str, minute: str | None, period: str | None = None) -> str | None:
    h, m = int(hour), int(minute or 0)
    if period:
        if h > 12 or h == 0:
            return None
        h = h % 12 + (12 if _day_periods().get(_bare(period)) == "pm" else 0)
    if h > 24 or m > 59 or (h == 24 and m):
        return None
    return f"{h:02d}:{m:02d}"


def time_ranges(text: str) -> list[tuple[int, int, tuple[str, str]]]:
    """(start, end, (opens, closes)) of every time range in `text`."""
    found = []
    listing = and_words("en")  # every supported language's "and"
    for match in TIME_RANGE.finditer(text):
        if any(word in listing for word in WORD.findall(match.group().casefold())):
            continue  # "1 и 2 января", "le 24 et le 31": two dates, not a range
        opens = _clock(match.group(1), match.group(2), match.group(3))
        closes = _clock(match.group(4), match.group(5), match.group(6))
        if opens and closes and opens != closes:
            found.append((match.start(), match.end(), (opens, closes)))
    return found


def time_ranges_besides(
    text: str, amounts: Sequence[tuple[int, int]]
) -> list[tuple[int, int, tuple[str, str]]]:
    """The time ranges of `text` that overlap none of its `amounts` (spans of prices):
    "10 – 20 €" is a price range, not hours."""
    return [
        found
        for found in time_ranges(text)
        if not any(start < found[1] and found[0] < end for start, end in amounts)
    ]


def _span(first: int, last: int) -> tuple[int, ...]:
    return tuple((first + step) % 7 for step in range((last - first) % 7 + 1))


def _days_of(text: str, mentions: list[DayMention], language: str) -> tuple[int, ...]:
    """Day names as written: "Di–Fr" and "Dienstag bis Freitag" span, "Mo, Mi" and
    "Sa und So" list."""
    days: list[int] = []
    listing = and_words(language)
    index = 0
    while index < len(mentions):
        current = mentions[index]
        if index + 1 < len(mentions):
            following = mentions[index + 1]
            between = text[current.end : following.start].strip()
            if between and _spans(between, listing):
                days.extend(_span(current.day, following.day))
                index += 2
                continue
        days.append(current.day)
        index += 1
    return tuple(dict.fromkeys(days))


def _spans(between: str, listing: frozenset[str]) -> bool:
    """Whether the text between two day names makes a range. CLDR writes ranges with a
    dash (its interval formats) and lists with its list patterns (", ", "und", "et"); it has
    no weekday "through" words, so any other short connector spans: "bis", "to", "through",
    "t/m", "au", "al", "по"."""
    if re.fullmatch(_DASH + "+", between):
        return True
    if re.search(r"[\d,;&+]", between) or between.casefold() in listing:
        return False
    words = between.split()
    return 0 < len(words) <= 2 and len(between) <= 12 and bool(re.search(r"[^\W\d_]", between))


def hours_lines(
    text: str, language: str, amounts: Sequence[tuple[int, int]] = ()
) -> list[HoursLine]:
    """The opening hours one line states: groups of day names, each followed by its time
    ranges ("Mo–Fr 9–18, Sa 10–14"). A short line naming days without any time keeps its
    remaining words as the note ("Sonntag: geschlossen")."""
    mentions = day_mentions(text, language)
    if not mentions:
        return _every_day(text, language, amounts)
    named = {(m.start, m.end) for m in mentions}
    other = [
        w
        for w in WORD.finditer(text)
        if (w.start(), w.end()) not in named and w.group().casefold() not in and_words(language)
    ]
    if len(other) > 2 and not time_ranges(text):
        # In a sentence with no times only a full day name counts: "Tu" and "di" are
        # also words ("Tu peluquería", "spalla e ginocchio di …").
        mentions = day_mentions(text, language, wide_only=True)
        if not mentions:
            return []
    ranges = time_ranges_besides(text, amounts)
    if not ranges:
        if re.search(r"\d", text):
            return []
        # Without a time, a day name must be one of the page's own language: another
        # language's short name is a word here ("Do you give free estimates?" is no German
        # Thursday on an English page).
        names = weekday_names(language) if language in LANGUAGES else {}
        if any(name_key(text[m.start : m.end]) not in names for m in mentions):
            return []
        rest = text
        for mention in reversed(mentions):
            rest = rest[: mention.start] + rest[mention.end :]
        words = WORD.findall(rest)
        listing = and_words(language)
        note_words = [w for w in words if w.casefold() not in listing]
        if not note_words or len(note_words) > 12:
            return []
        days = _days_of(text, mentions, language)
        # The page's own word for closed ("geschlossen", "Ruhetag"), or in a sentence the
        # sentence itself ("Nous sommes fermés le lundi.").
        note = " ".join(note_words) if len(note_words) <= 2 else text.strip()
        return [HoursLine(days, (), note)]
    lines: list[HoursLine] = []
    cursor = 0
    while cursor < len(mentions):
        group = [mentions[cursor]]
        cursor += 1
        next_range = next((r for r in ranges if r[0] >= group[-1].end), None)
        while cursor < len(mentions) and (
            next_range is None or mentions[cursor].start < next_range[0]
        ):
            group.append(mentions[cursor])
            cursor += 1
        group_end = mentions[cursor].start if cursor < len(mentions) else len(text)
        spans = [r for r in ranges if group[-1].end <= r[0] < group_end]
        own = tuple(r[2] for r in spans)
        # Split hours are joined by a comma or a word ("9–12 und 14–18"); ranges with a
        # phrase between them are different schedules ("08:00–20:00 CET for the EU and
        # 08:00–18:00 US Central for the US"): not read as one day's hours.
        between = (text[a[1] : b[0]] for a, b in pairwise(spans))
        if own and all(len(WORD.findall(gap)) <= 1 for gap in between):
            lines.append(HoursLine(_days_of(text, group, language), own))
    return lines


# The words for "every day" in each language ("Работаем ежедневно с 9:00 до 20:00"): a
# line that states hours without naming a weekday. CLDR has weekday names but no word for
# all of them, so the few phrases are shipped here, per language.
EVERY_DAY: dict[str, tuple[str, ...]] = {
    "en": ("daily", "every day", "7 days a week", "seven days a week"),
    "de": ("täglich", "jeden tag", "7 tage die woche", "sieben tage die woche"),
    "fr": ("tous les jours", "7j/7", "7 jours sur 7", "sept jours sur sept"),
    "es": ("todos los días", "a diario", "7 días a la semana", "siete días a la semana"),
    "it": ("tutti i giorni", "ogni giorno", "7 giorni su 7", "sette giorni su sette"),
    "pt": ("todos os dias", "diariamente", "7 dias por semana", "sete dias por semana"),
    "nl": ("dagelijks", "elke dag", "iedere dag", "7 dagen per week", "zeven dagen per week"),
    "ru": ("ежедневно", "каждый день", "без выходных", "7 дней в неделю"),
}


def _every_day(text: str, language: str, amounts: Sequence[tuple[int, int]]) -> list[HoursLine]:
    """A line stating one day's hours for every day of the week: an "every day" word of
    its language and one run of time ranges (split hours joined by at most a word)."""
    flat = folded(text)
    phrases = EVERY_DAY.get(language, ())
    if not any(re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", flat) for phrase in phrases):
        return []
    ranges = time_ranges_besides(text, amounts)
    if not ranges:
        return []
    between = (text[a[1] : b[0]] for a, b in pairwise(ranges))
    if not all(len(WORD.findall(gap)) <= 1 for gap in between):
        return []
    return [HoursLine(tuple(range(7)), tuple(r[2] for r in ranges))]


def folded(text: str) -> str:
    return text.casefold().replace("’", "'")
