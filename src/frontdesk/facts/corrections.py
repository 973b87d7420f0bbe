"""The team's corrections of a site's facts: a fact set, removed or added in the console
wins over what the crawl read, keeps its author and date, and survives re-crawls (it is
kept apart from the pages' facts, by the key of the fact it stands for). Pure: facts and
corrections in, the facts the answers use out."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Literal

from frontdesk.facts.calendar import weekday_lookup
from frontdesk.facts.lines import EMAIL
from frontdesk.facts.model import FACT_KINDS, FactKind, SiteFact, SiteFacts
from frontdesk.facts.money import amounts

CorrectionAction = Literal["set", "remove", "revert"]
MAX_VALUE = 300
MAX_ABOUT = 80
_RANGE = re.compile(r"^(\d{1,2}):(\d{2})\s*[-–—]\s*(\d{1,2}):(\d{2})$")
_PHONE = re.compile(r"\+?[\d\s()/.-]+")


@dataclass(frozen=True)
class Correction:
    """One correction, as kept: the newest revision of a key is the one that applies
    ("revert" hands the fact back to the crawl)."""

    key: str
    revision: int
    action: CorrectionAction
    fact: SiteFact | None
    author: str
    at: datetime


class CorrectionError(ValueError):
    """Bad input for a correction: `field` names the form field, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def fact_key(fact: SiteFact) -> str:
    """What a fact is, whatever its page: a weekday's or a date's hours, a service's price,
    a phone number by its digits, any other fact by its words."""
    if fact.corrects:
        return fact.corrects
    if fact.kind == "hours":
        return f"hours:date:{fact.label}" if fact.label else f"hours:day:{fact.weekday}"
    if fact.kind == "price":
        return f"price:{_plain(fact.label)}"
    if fact.kind == "phone":
        return "phone:" + "".join(ch for ch in fact.value if ch.isdigit() or ch == "+")
    if fact.kind == "email":
        return f"email:{fact.value.strip().casefold()}"
    return f"{fact.kind}:{_plain(fact.value)}"


def latest(corrections: Iterable[Correction]) -> dict[str, Correction]:
    """The correction that applies per key (reverted ones left out)."""
    newest: dict[str, Correction] = {}
    for correction in sorted(corrections, key=lambda c: c.revision):
        newest[correction.key] = correction
    return {key: c for key, c in newest.items() if c.action != "revert"}


def apply_corrections(facts: SiteFacts, corrections: Iterable[Correction]) -> SiteFacts:
    """The crawl's facts with the team's corrections winning: a corrected or removed fact
    is gone from whatever page states it, and the team's version stands in its place."""
    active = latest(corrections)
    if not active:
        return facts
    kept = [fact for fact in facts.facts if fact_key(fact) not in active]
    team = [c.fact for c in active.values() if c.action == "set" and c.fact is not None]
    return SiteFacts(tuple(kept + team))


def hours_ranges(value: str, closed_words: Collection[str]) -> tuple[tuple[str, str], ...]:
    """ "09:30-13:00, 14:00-18:30" → ranges; a word for closed → no ranges."""
    text = value.strip()
    if text.casefold() in {word.casefold() for word in closed_words}:
        return ()
    if not text:
        raise CorrectionError("Value", "write the hours as 09:30-18:30 or 'closed'")
    ranges: list[tuple[str, str]] = []
    for part in (p.strip() for p in text.split(",")):
        match = _RANGE.match(part)
        if match is None:
            raise CorrectionError(
                "Value", f"{part!r} is not a time range: write it as 09:30-18:30 or 'closed'"
            )
        opens_h, opens_m, closes_h, closes_m = (int(group) for group in match.groups())
        if max(opens_h, closes_h) > 24 or max(opens_m, closes_m) > 59:
            raise CorrectionError("Value", f"{part!r} is not a time of day (00:00-24:00)")
        opens, closes = f"{opens_h:02d}:{opens_m:02d}", f"{closes_h:02d}:{closes_m:02d}"
        if opens == closes:
            raise CorrectionError("Value", f"{part!r} is empty: it closes when it opens")
        ranges.append((opens, closes))
    return tuple(sorted(ranges))


def hours_about(about: str, language: str) -> tuple[int | None, str]:
    """A weekday named in any supported language (CLDR), or a date YYYY-MM-DD."""
    text = about.strip()
    day = weekday_lookup(language).get(text.casefold().rstrip("."))
    if day is not None:
        return day, ""
    if text.isdigit() and 0 <= int(text) <= 6:  # the form's weekday choice
        return int(text), ""
    try:
        return None, date.fromisoformat(text).isoformat()
    except ValueError:
        raise CorrectionError(
            "About", f"{text!r} is neither a weekday (Tuesday) nor a date (2026-12-24)"
        ) from None


def corrected_fact(
    kind: str,
    about: str,
    value: str,
    *,
    language: str,
    author: str,
    at: datetime,
    closed_words: Collection[str] = ("closed",),
) -> SiteFact:
    """The team's fact from the form's fields, or CorrectionError naming the bad field."""
    if kind not in FACT_KINDS:
        raise CorrectionError("Kind", f"{kind!r} is not one of {', '.join(FACT_KINDS)}")
    fact_kind: FactKind = kind  # type: ignore[assignment]
    value, about = " ".join(value.split()), " ".join(about.split())
    if len(value) > MAX_VALUE:
        raise CorrectionError("Value", f"at most {MAX_VALUE} characters")
    if len(about) > MAX_ABOUT:
        raise CorrectionError("About", f"at most {MAX_ABOUT} characters")
    base = SiteFact(
        fact_kind, value, "team", author=author, corrected_at=at.isoformat(timespec="seconds")
    )
    if fact_kind == "hours":
        weekday, label = hours_about(about, language)
        ranges = hours_ranges(value, closed_words)
        shown = ", ".join(f"{a}–{b}" for a, b in ranges)
        return replace(base, value=shown, weekday=weekday, label=label, ranges=ranges)
    if not value:
        raise CorrectionError("Value", "is empty")
    if fact_kind == "price":
        if not re.search(r"[^\W\d_]{2,}", about):
            raise CorrectionError("About", "name the service the price is for")
        found = amounts(value, language)
        if len(found) != 1:
            raise CorrectionError(
                "Value", f"{value!r} needs one amount with its currency, such as 12 € or ab 49 €"
            )
        amount = found[0]
        return replace(base, label=about, amount=str(amount.value), currency=amount.currency)
    if fact_kind == "phone":
        digits = sum(ch.isdigit() for ch in value)
        if not _PHONE.fullmatch(value) or not 5 <= digits <= 17:
            raise CorrectionError(
                "Value", f"{value!r} is not a phone number such as +49 30 1234567"
            )
    if fact_kind == "email" and not EMAIL.fullmatch(value):
        raise CorrectionError(
            "Value", f"{value!r} is not an e-mail address such as info@example.com"
        )
    return base


def with_key(fact: SiteFact, key: str) -> SiteFact:
    return replace(fact, corrects=key)
