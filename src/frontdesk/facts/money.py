"""Amounts with a currency, read with CLDR data (Babel): the currency symbols and codes
of every supported language, numbers parsed in the page's locale. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import NumberFormatError, parse_decimal

from frontdesk.facts.calendar import LANGUAGES

_NUMBER = r"\d{1,3}(?:[ .,  ’']\d{3})*(?:[.,]\d{1,2})?(?:[.,][-–]{1,2})?|\d+(?:[.,]\d{1,2})?"


@lru_cache(maxsize=16)
def currency_symbols(language: str) -> dict[str, str]:
    """Symbol or ISO code → currency code; the page's language wins a clash ("$")."""
    order = (language, *(lang for lang in LANGUAGES if lang != language))
    symbols: dict[str, str] = {}
    for lang in order:
        if lang not in LANGUAGES:
            continue
        for code, symbol in Locale.parse(lang).currency_symbols.items():
            if len(code) == 3 and code.isupper():
                symbols.setdefault(code, code)
            # Letters-only symbols other than codes ("Kč", "zł") read as words: skipped.
            if symbol and not symbol.isalpha():
                symbols.setdefault(symbol, code)
    return symbols


@lru_cache(maxsize=16)
def _amount_pattern(language: str) -> re.Pattern[str]:
    symbols = sorted(currency_symbols(language), key=len, reverse=True)
    alternatives = "|".join(re.escape(symbol) for symbol in symbols)
    return re.compile(
        rf"(?:(?P<before>{alternatives})\s?(?P<n1>{_NUMBER})|(?P<n2>{_NUMBER})\s?(?P<after>{alternatives}))(?![\w])"
    )


@dataclass(frozen=True)
class Amount:
    start: int
    end: int
    text: str
    value: Decimal
    currency: str


def amounts(text: str, language: str) -> list[Amount]:
    """Every amount with a currency in `text` ("12 €", "€12.50", "1.200,00 EUR", "500 ₽")."""
    symbols = currency_symbols(language)
    found = []
    for match in _amount_pattern(language).finditer(text):
        number = (match.group("n1") or match.group("n2") or "").rstrip(".,-–")
        symbol = match.group("before") or match.group("after") or ""
        value = _parse(number, language)
        if value is None:
            continue
        found.append(
            Amount(match.start(), match.end(), match.group().strip(), value, symbols[symbol])
        )
    return found


def _parse(number: str, language: str) -> Decimal | None:
    compact = number.replace(" ", " ").replace(" ", " ")
    for locale in (language if language in LANGUAGES else "en", "en"):
        try:
            return parse_decimal(compact, locale=locale, strict=True)
        except NumberFormatError:
            continue
    try:
        return parse_decimal(compact, locale=language if language in LANGUAGES else "en")
    except NumberFormatError:
        return None
