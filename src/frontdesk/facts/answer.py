"""Which fact a question asks about, and the reply composed from the site's facts. Pure:
similarity scores and facts in, a decision or lines of text out."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, time

from babel.dates import format_date, format_time, get_day_names

from frontdesk.facts.calendar import LANGUAGES
from frontdesk.facts.dates import dates_named, relative_day_word
from frontdesk.facts.model import FACT_KINDS, FactKind, SiteFact, SiteFacts

# The kind of small talk: no fact, and what a short "how are you" question reads as.
SMALL_TALK_KIND = "_chat"


@dataclass(frozen=True)
class KindMargins:
    """How much nearer than every other kind the best fact kind must be: `clear` answers
    on its own, `least` when the turn's search agrees (`kinds_found`)."""

    least: float
    clear: float


# Measured per embedding model; a model without margins reads no fact questions (its
# facts are still extracted and listed). With e5, questions for a fact clear the next kind
# by 0.018 ("Wo finde ich euch?") to 0.1, questions for none by up to 0.015 ("¿Ofrecen
# inicio de sesión único SAML?" to hours, on a site whose FAQ names its support hours).
KIND_MARGINS: dict[str, KindMargins] = {
    "local:multilingual-e5-small": KindMargins(least=0.017, clear=0.03),
}
# A price answers only for a service the question names: the service's label at least
# this near the question (the same model's cosines).
SERVICE_BAR = 0.84


@dataclass(frozen=True)
class FactQuestion:
    kind: FactKind
    days: tuple[int, ...] = ()
    # Days relative to today the question names ("heute" 0, "tomorrow" 1).
    offsets: tuple[int, ...] = ()


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def kinds_found(facts: SiteFacts, passages: Sequence[str]) -> frozenset[FactKind]:
    """The kinds of the facts that the found passages state word for word (a price by its
    service, any other fact by its value), whatever the formatting."""
    plain = [_plain(passage) for passage in passages]
    kinds: set[FactKind] = set()
    for fact in facts.facts:
        evidence = _plain(fact.label if fact.kind == "price" else fact.value)
        if evidence and any(evidence in passage for passage in plain):
            kinds.add(fact.kind)
    return frozenset(kinds)


def fact_question(
    scores: Mapping[str, float],
    days: tuple[int, ...],
    available: frozenset[FactKind],
    margins: KindMargins,
    found: frozenset[FactKind] = frozenset(),
    offsets: tuple[int, ...] = (),
) -> FactQuestion | None:
    """The fact kind a question asks about, when the site has facts of that kind: the
    nearest description by `margins.clear`, or by `margins.least` when a passage the
    search `found` states that kind; opening hours when the question names a weekday and
    hours are the nearest kind ("Und am Samstag?"), or names a day relative to today and
    hours are nearer than anything else ("Habt ihr heute offen?", but not "Wie geht's dir
    heute?")."""
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    best, score = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    kinds = [kind for kind, _ in ranked if kind in FACT_KINDS]
    if offsets and "hours" in available and best == "hours":
        return FactQuestion("hours", days, offsets)
    if days and "hours" in available and kinds and kinds[0] == "hours":
        return FactQuestion("hours", days)
    if best not in FACT_KINDS or best not in available:
        return None
    margin = score - runner_up
    if margin < margins.least or (margin < margins.clear and best not in found):
        return None
    return FactQuestion(best, days if best == "hours" else ())  # type: ignore[arg-type]


def asked_kind(
    scores: Mapping[str, float], margins: KindMargins, found: frozenset[FactKind] = frozenset()
) -> FactKind | None:
    """The kind of fact a message asks for ("Where are you?", "What's your phone
    number?"): nearer than every other kind by `margins.clear`, or by `margins.least` when
    a passage the search `found` states that kind. A question about the business itself,
    whether or not its pages state that fact."""
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    if len(ranked) < 2 or ranked[0][0] not in FACT_KINDS:
        return None
    margin = ranked[0][1] - ranked[1][1]
    if margin < margins.least or (margin < margins.clear and ranked[0][0] not in found):
        return None
    return ranked[0][0]  # type: ignore[return-value]


def weekly_hours(facts: SiteFacts) -> tuple[SiteFact, ...]:
    """The weekly hours from one source: the page and origin stating the most weekdays
    (a site that states its hours in a table and in JSON-LD is read from one of them), with
    the team's corrected days in place of the page's."""
    groups: dict[tuple[str, str], dict[int, SiteFact]] = {}
    team: dict[int, SiteFact] = {}
    for fact in facts.of_kind("hours"):
        if fact.weekday is None or fact.label:
            continue
        if fact.corrected:
            team[fact.weekday] = fact
            continue
        days = groups.setdefault((fact.doc_id, fact.origin), {})
        if fact.weekday not in days or (fact.ranges and not days[fact.weekday].ranges):
            days[fact.weekday] = fact
    best: dict[int, SiteFact] = {}
    if groups:
        page, origin = max(groups, key=lambda key: len(groups[key]))
        best = dict(groups[(page, origin)])
        # The same page may state the rest in another form: a table of open days and a
        # sentence "closed on Mondays".
        for (other_page, _), days in groups.items():
            if other_page == page:
                for day, fact in days.items():
                    best.setdefault(day, fact)
    week = {**best, **team}
    return tuple(week[day] for day in sorted(week))


def exceptions(facts: SiteFacts) -> tuple[SiteFact, ...]:
    """Dated exceptions to the weekly hours: structured ones wherever they are, a page's
    lines on the page that states the weekly hours (a month named in passing elsewhere,
    "galettes from 2 January", is no exception)."""
    pages = {fact.doc_id for fact in weekly_hours(facts)}
    return tuple(
        fact
        for fact in facts.of_kind("hours")
        if fact.label and (fact.origin in _STRUCTURED or fact.doc_id in pages)
    )


_STRUCTURED = frozenset({"json-ld", "microdata", "rdfa"})


def exceptions_on(
    facts: SiteFacts, dates: Sequence[tuple[int, int | None]]
) -> tuple[SiteFact, ...]:
    """The exceptions that name one of the asked (month, day) dates: the month, and the day
    when the question names one ("¿Abrís el 24 de diciembre?", "en agosto"), written or
    within a range the page states ("from 20 December to 3 January")."""
    chosen: list[SiteFact] = []
    for fact in facts.of_kind("hours"):
        if not fact.label or fact.origin in _STRUCTURED:
            continue
        named = dates_named(fact.label, LANGUAGES)
        spans = [
            ((a.month, a.day or 0), (b.month, b.day or 0))
            for a, b in itertools.pairwise(named)
            if a.day and b.day
        ]
        for month, day in dates:
            if day is None:
                hit = any(mention.month == month for mention in named)
            else:
                written = any(mention.month == month for mention in named) and bool(
                    re.search(rf"(?<!\d){day}(?!\d)", fact.label)
                )
                hit = written or any(_within((month, day), *span) for span in spans)
            if hit:
                chosen.append(fact)
                break
    return tuple(chosen)


def _within(date: tuple[int, int], first: tuple[int, int], last: tuple[int, int]) -> bool:
    """A (month, day) within a range of the year, across New Year when it wraps."""
    if first <= last:
        return first <= date <= last
    return date >= first or date <= last


def exception_text(fact: SiteFact, language: str, say: Say) -> str:
    if fact.origin in _STRUCTURED:
        return f"{fact.label}: {ranges_text(fact, language, say)}"
    return fact.label  # a page's own line, as it wrote it


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


def day_text(fact: SiteFact, language: str, say: Say) -> str:
    """A day's hours; a day a sentence names without times is quoted as the page wrote
    it ("Nous sommes fermés le lundi."), a short word as closed ("Ruhetag")."""
    if not fact.ranges and fact.note and len(fact.note.split()) > 2:
        return fact.note
    return ranges_text(fact, language, say)


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
                FactLine(f"{day_name(day, language)}: {day_text(fact, language, say)}", fact)
            )
        if not lines:
            named = ", ".join(day_name(day, language) for day in days)
            return str(say("facts.day_unlisted", language, day=named)), []
        return "", lines
    for weekday, fact in sorted(weekly.items(), key=lambda item: item[0] or 0):
        name = day_name(weekday or 0, language)
        lines.append(FactLine(f"{name}: {day_text(fact, language, say)}", fact))
    for fact in exceptions(facts):
        lines.append(FactLine(exception_text(fact, language, say), fact))
    return str(say("facts.hours", language)), lines


def exception_reply(
    facts: SiteFacts, dates: Sequence[tuple[int, int | None]], language: str, say: Say
) -> tuple[str, list[FactLine]]:
    """(lead-in, lines) for a question naming a date or a month the site states an
    exception for; the whole week when it states none."""
    chosen = exceptions_on(facts, dates)
    if not chosen:
        return hours_reply(facts, (), language, say)
    lines = [FactLine(exception_text(fact, language, say), fact) for fact in chosen]
    return str(say("facts.exceptions", language)), lines


def simple_reply(
    facts: SiteFacts, kind: FactKind, language: str, say: Say
) -> tuple[str, list[FactLine]]:
    """(lead-in, lines) for a phone number, an e-mail, an address or payment methods."""
    lines = [FactLine(fact.value, fact) for fact in facts.of_kind(kind)]
    if kind != "payment":
        lines = lines[:3]
    return str(say(f"facts.{kind}", language)), lines


def _stems(text: str) -> set[str]:
    """Words of four letters or more, cut to a stem that ignores short endings
    ("chèques" and "chèque" → "chèq")."""
    return {word[: max(4, len(word) - 2)] for word in re.findall(r"[^\W\d_]{4,}", text.casefold())}


def _mentions(stem: str, text: str) -> bool:
    return any(word.startswith(stem) for word in re.findall(r"[^\W\d_]+", text.casefold()))


def names_unlisted_method(
    question: str, listed: Sequence[str], passages: Sequence[str], asked_like: Sequence[str]
) -> bool:
    """Pure: the question names a way to pay ("par chèque", "in cash") that the pages
    mention but the listed payment methods do not: the page's own sentence ("nous
    n'acceptons plus les chèques", "we're cashless") answers it, not the list. Words of
    the usual payment question (`asked_like`: "Can I pay by card?") name no method."""
    usual = set().union(*(_stems(text) for text in asked_like))
    named = _stems(question) - usual
    return any(
        any(_mentions(stem, passage) for passage in passages)
        and not any(_mentions(stem, value) for value in listed)
        for stem in named
    )


def price_reply(fact: SiteFact, language: str, say: Say) -> tuple[str, list[FactLine]]:
    # A price read from a sentence is quoted as the sentence wrote it.
    text = fact.value if fact.value.startswith(fact.label) else f"{fact.label}: {fact.value}"
    return str(say("facts.price", language)), [FactLine(text, fact)]


def best_service(
    prices: tuple[SiteFact, ...],
    scores: list[float],
    bar: float = SERVICE_BAR,
    question: str = "",
) -> SiteFact | None:
    """The price whose service the question names: the nearest label, when near enough.
    Labels that share a word with the question ("croissant") are preferred to labels that
    are only near in meaning ("pain aux céréales")."""
    if not prices or not scores:
        return None
    words = {word for word in re.findall(r"[^\W\d_]{4,}", question.casefold())}
    named = [
        index
        for index, fact in enumerate(prices)
        if words & set(re.findall(r"[^\W\d_]{4,}", fact.label.casefold()))
    ]
    candidates = named or list(range(len(prices)))
    index = max(candidates, key=scores.__getitem__)
    return prices[index] if scores[index] >= bar else None


@dataclass(frozen=True)
class DateAsked:
    """A date the visitor named relative to today, on the site's wall clock, with what the
    site file says of it: a public holiday of its region (by name) or a dated closure."""

    offset: int
    day: date
    holiday: str = ""
    closed: bool = False


def _covers(label: str, day: date) -> bool:
    """Does an exception's label ("2026-12-24", "2026-12-24 – 2026-12-26") cover `day`?"""
    found = re.findall(r"\d{4}-\d{2}-\d{2}", label)
    try:
        dates = [date.fromisoformat(text) for text in found]
    except ValueError:
        return False
    return bool(dates) and dates[0] <= day <= dates[-1]


def dated_reply(
    facts: SiteFacts, asked: Sequence[DateAsked], language: str, say: Say
) -> tuple[str, list[FactLine]]:
    """(lead-in, lines) for "today", "tomorrow": each date's hours as published (a dated
    exception first, then its weekday), closed on a holiday or closure of the site file."""
    weekly = {fact.weekday: fact for fact in weekly_hours(facts)}
    lines: list[FactLine] = []
    for item in asked:
        when = (
            f"{relative_day_word(item.offset, language)} "
            f"({day_name(item.day.weekday(), language)}, "
            f"{format_date(item.day, format='medium', locale=_locale(language))})"
        )
        if item.holiday or item.closed:
            text = (
                say("facts.holiday", language, holiday=item.holiday)
                if item.holiday
                else say("facts.closed", language)
            )
            # The site file says so, not a page: the line is the team's, without a citation.
            lines.append(FactLine(f"{when}: {text}", SiteFact("hours", str(text), "team")))
            continue
        exception = next((f for f in exceptions(facts) if _covers(f.label, item.day)), None)
        fact = exception or weekly.get(item.day.weekday())
        if fact is None:
            named = day_name(item.day.weekday(), language)
            return str(say("facts.day_unlisted", language, day=named)), []
        lines.append(FactLine(f"{when}: {ranges_text(fact, language, say)}", fact))
    return "", lines
