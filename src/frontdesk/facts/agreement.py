"""Do the hours in the site file (what handoff promises and the "team is offline" message
follow) agree with the hours the site publishes (its facts, or the team's correction)?
Pure: both in, one line per day that differs, naming the day and both values."""

from __future__ import annotations

from collections.abc import Sequence

from frontdesk.facts.answer import weekly_hours
from frontdesk.facts.model import SiteFact, SiteFacts
from frontdesk.leads.hours import OpeningRange, merged, parse_range

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _text(ranges: Sequence[OpeningRange]) -> str:
    return ", ".join(str(r) for r in merged(ranges)) or "closed"


def _published(fact: SiteFact) -> tuple[OpeningRange, ...] | None:
    try:
        return tuple(parse_range(f"{opens}-{closes}") for opens, closes in fact.ranges)
    except ValueError:
        return None  # not a range the site file could state either: nothing to compare


def _where(fact: SiteFact) -> str:
    if fact.corrected:
        return f"corrected by {fact.author}"
    return fact.url or fact.doc_id


def hours_disagreements(weekly: Sequence[Sequence[OpeningRange]], facts: SiteFacts) -> list[str]:
    """Each weekday the site publishes hours for that differ from the site file's
    (`weekly`, Monday first): "Tuesday: the site file says 09:00-17:00, the site
    publishes 09:30-18:30 (https://…/kontakt)". Days the site does not state are left out."""
    found: list[str] = []
    for fact in weekly_hours(facts):
        if fact.weekday is None:
            continue
        published = _published(fact)
        if published is None:
            continue
        in_file, on_site = _text(weekly[fact.weekday]), _text(published)
        if in_file != on_site:
            found.append(
                f"{DAYS[fact.weekday]}: the site file says {in_file}, the site publishes "
                f"{on_site} ({_where(fact)})"
            )
    return found
