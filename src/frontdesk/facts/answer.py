"""Which fact a question asks about, and the reply composed from the site's facts. Pure:
similarity scores and facts in, a decision or lines of text out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import time

from babel.dates import format_time, get_day_names

from frontdesk.facts.calendar import LANGUAGES
from frontdesk.facts.model import FACT_KINDS, FactKind, SiteFact, SiteFacts

# What each kind of fact answers, read by the site's embedding model (multilingual: one
# description serves every language). Descriptions starting with "_" are the other things
# visitors ask: a fact kind answers only when it is clearly nearer than all of them.
KIND_DESCRIPTIONS: dict[str, str] = {
    "hours": "opening hours: on which days and at what times the business is open or closed",
    "phone": "phone number: how to call the business by telephone",
    "email": "e-mail address: how to write an email to the business",
    "address": "address and location: where the business is and how to get there",
    "price": "price: how much a service or product costs",
    "payment": "payment methods: how customers can pay, cash or card",
    "_services": "services and products: what the business offers, does, repairs, sells, "
    "which brands",
    "_chat": "small talk: greetings, thanks, how are you, goodbye",
    "_other": "other questions: booking an appointment, parking, how long something takes, "
    "availability",
}
# How much nearer the best fact kind must be than every other description. The default
# model's cosines sit in a narrow band: "Wo finde ich euch?" clears the next by 0.010,
# "Repariert ihr E-Bikes mit Bosch-Motor?" (no fact) only by 0.003.
KIND_MARGIN = 0.008
# A price answers only for a service the question names: the service's label at least
# this near the question (the same model's cosines).
SERVICE_BAR = 0.84


@dataclass(frozen=True)
class FactQuestion:
    kind: FactKind
    days: tuple[int, ...] = ()


def fact_question(
    scores: Mapping[str, float], days: tuple[int, ...], available: frozenset[FactKind]
) -> FactQuestion | None:
    """The fact kind a question asks about, when the site has facts of that kind: the
    nearest description by `KIND_MARGIN`, or opening hours when the question names a
    weekday and hours are the nearest kind ("Und am Samstag?")."""
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    best, score = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    kinds = [(kind, value) for kind, value in ranked if kind in FACT_KINDS]
    if days and "hours" in available and kinds and kinds[0][0] == "hours":
        return FactQuestion("hours", days)
    if best not in FACT_KINDS or best not in available or score - runner_up < KIND_MARGIN:
        return None
    return FactQuestion(best, days if best == "hours" else ())  # type: ignore[arg-type]


def weekly_hours(facts: SiteFacts) -> tuple[SiteFact, ...]:
    """The weekly hours from one source: the page and origin stating the most weekdays
    (a site that states its hours in a table and in JSON-LD is read from one of them)."""
    groups: dict[tuple[str, str], dict[int, SiteFact]] = {}
    for fact in facts.of_kind("hours"):
        if fact.weekday is None or fact.label:
            continue
        days = groups.setdefault((fact.doc_id, fact.origin), {})
        if fact.weekday not in days or (fact.ranges and not days[fact.weekday].ranges):
            days[fact.weekday] = fact
    if not groups:
        return ()
    best = max(groups.values(), key=len)
    return tuple(best[day] for day in sorted(best))


def exceptions(facts: SiteFacts) -> tuple[SiteFact, ...]:
    return tuple(fact for fact in facts.of_kind("hours") if fact.label)


Say = Callable[..., str]


def _locale(language: str) -> str:
    return language if language in LANGUAGES else "en"


def day_name(day: int, language: str) -> str:
    return str(get_day_names("wide", "stand-alone", locale=_locale(language))[day])


def _clock(text: str, language: str) -> str:
    hour, minute = (int(part) for part in text.split(":"))
    if hour == 24:
        return "24:00"
    return str(format_time(time(hour, minute), format="short", locale=_locale(language)))


def ranges_text(fact: SiteFact, language: str, say: Say) -> str:
    if not fact.ranges:
        return str(say("facts.closed", language))
    return ", ".join(
        f"{_clock(opens, language)}–{_clock(closes, language)}" for opens, closes in fact.ranges
    )


@dataclass(frozen=True)
class FactLine:
    """One line of a reply and the fact it cites."""

    text: str
    fact: SiteFact


def hours_reply(
    facts: SiteFacts, days: tuple[int, ...], language: str, say: Say
) -> tuple[str, list[FactLine]]:
    """(lead-in, lines) for opening hours: the named days, or the whole week."""
    weekly = {fact.weekday: fact for fact in weekly_hours(facts)}
    lines: list[FactLine] = []
    if days:
        for day in days:
            fact = weekly.get(day)
            if fact is None:
                continue
            lines.append(
                FactLine(f"{day_name(day, language)}: {ranges_text(fact, language, say)}", fact)
            )
        if not lines:
            named = ", ".join(day_name(day, language) for day in days)
            return str(say("facts.day_unlisted", language, day=named)), []
        return "", lines
    for weekday, fact in sorted(weekly.items(), key=lambda item: item[0] or 0):
        name = day_name(weekday or 0, language)
        lines.append(FactLine(f"{name}: {ranges_text(fact, language, say)}", fact))
    for fact in exceptions(facts):
        lines.append(FactLine(f"{fact.label}: {ranges_text(fact, language, say)}", fact))
    return str(say("facts.hours", language)), lines


def simple_reply(
    facts: SiteFacts, kind: FactKind, language: str, say: Say
) -> tuple[str, list[FactLine]]:
    """(lead-in, lines) for a phone number, an e-mail, an address or payment methods."""
    lines = [FactLine(fact.value, fact) for fact in facts.of_kind(kind)]
    if kind != "payment":
        lines = lines[:3]
    return str(say(f"facts.{kind}", language)), lines


def price_reply(fact: SiteFact, language: str, say: Say) -> tuple[str, list[FactLine]]:
    return str(say("facts.price", language)), [FactLine(f"{fact.label}: {fact.value}", fact)]


def best_service(
    prices: tuple[SiteFact, ...], scores: list[float], bar: float = SERVICE_BAR
) -> SiteFact | None:
    """The price whose service the question names: the nearest label, when near enough."""
    if not prices or not scores:
        return None
    index = max(range(len(scores)), key=scores.__getitem__)
    return prices[index] if scores[index] >= bar else None
