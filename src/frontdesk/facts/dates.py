"""Days and dates a message names, read by CLDR through Babel: days relative to today
("heute", "tomorrow"), month names and the dates they make ("el 24 de diciembre")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from babel import Locale
from babel.dates import get_month_names

from frontdesk.facts.calendar import LANGUAGES, NAME_CONTEXTS, WORD, folded, name_key


def _date_fields(language: str) -> Any:
    """CLDR's date fields of `language` (its aliases between widths resolved)."""
    from babel.localedata import LocaleDataDict, load

    data: Any = load(language)
    return LocaleDataDict(data)["date_fields"]


@lru_cache(maxsize=16)
def relative_day_words(language: str) -> dict[str, int]:
    """CLDR's words for days relative to today ("heute" 0, "morgen" 1, "übermorgen" 2,
    "aujourd'hui", "demain", "сегодня") → the offset in days; today and later only."""
    words: dict[str, int] = {}
    for lang in (language, *LANGUAGES):
        if lang not in LANGUAGES:
            continue
        fields = _date_fields(lang)
        for width in ("day", "day-short", "day-narrow"):
            for offset, word in dict(fields[width]["relative"]).items():
                if int(offset) >= 0:
                    words.setdefault(folded(str(word)), int(offset))
    return words


@lru_cache(maxsize=16)
def _period_lead_words(language: str) -> frozenset[tuple[str, str]]:
    """(word before, relative word) pairs of the language's CLDR day periods: Spanish
    "de la mañana" is the morning, so "por la mañana" is no tomorrow."""
    pairs: set[tuple[str, str]] = set()
    relative = relative_day_words(language)
    for context in Locale.parse(language).day_periods.values():
        for names in context.values():
            for name in names.values():
                tokens = folded(str(name)).split()
                for before, word in pairwise(tokens):
                    if word in relative:
                        pairs.add((before, word))
    return frozenset(pairs)


def relative_days_named(text: str, language: str) -> tuple[int, ...]:
    """The days relative to today a message names ("Habt ihr heute offen?" → (0,),
    "¿Abren pasado mañana?" → (2,)), longest phrase first."""
    words = relative_day_words(language)
    flat = folded(text)
    pattern = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    periods = _period_lead_words(language) if language in LANGUAGES else frozenset()
    offsets: list[int] = []
    for match in re.finditer(rf"(?<!\w)(?:{pattern})(?!\w)", flat):
        before = flat[: match.start()].split()
        if before and (before[-1], match.group()) in periods:
            continue
        offsets.append(words[match.group()])
    return tuple(dict.fromkeys(offsets))


def relative_day_word(offset: int, language: str) -> str:
    """CLDR's word for the day `offset` days from today in `language`, capitalised."""
    fields = _date_fields(language if language in LANGUAGES else "en")
    word = str(dict(fields["day"]["relative"]).get(offset, ""))
    return word[:1].upper() + word[1:]


@lru_cache(maxsize=16)
def month_names(language: str) -> dict[str, int]:
    """CLDR's names of the twelve months in `language` (wide and abbreviated, both
    contexts) → month (1 = January)."""
    names: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for context in NAME_CONTEXTS:
            for month, name in get_month_names(width, context, locale=language).items():
                names.setdefault(name_key(name), month)
    return names


@dataclass(frozen=True)
class DateMention:
    """A month named in text, with the day of the month when one is written beside it."""

    month: int
    day: int | None
    start: int
    end: int


def dates_named(text: str, languages: Sequence[str]) -> list[DateMention]:
    """Months and dates a text names ("24 de diciembre", "du 4 au 25 août", "December 24",
    "en agosto"), by CLDR's month names in `languages`. A short name ("mai", "may") counts
    only beside a day number: on its own it is also a word."""
    lookup: dict[str, int] = {}
    for language in languages:
        if language in LANGUAGES:
            for name, month in month_names(language).items():
                lookup.setdefault(name, month)
    found: list[DateMention] = []
    for match in WORD.finditer(text):
        word = name_key(match.group())
        found_month = lookup.get(word)
        if found_month is None:
            continue
        before = re.search(r"(\d{1,2})\.?(?:\s+(?:de|of))?\s*$", text[: match.start()])
        after = re.match(r"\s*(\d{1,2})(?!\d)", text[match.end() :])
        number = before or after
        day = int(number.group(1)) if number and 1 <= int(number.group(1)) <= 31 else None
        if day is None and len(word) < 4:
            continue
        found.append(DateMention(found_month, day, match.start(), match.end()))
    return found
