"""Which fact a question asks about (from similarity scores) and the reply composed from
the facts: pure, no model."""

from __future__ import annotations

import pytest

from frontdesk.conversation.texts import say
from frontdesk.facts.answer import (
    KIND_MARGINS,
    FactQuestion,
    best_service,
    fact_question,
    hours_reply,
    kinds_found,
)
from frontdesk.facts.model import SiteFact, SiteFacts

pytestmark = pytest.mark.unit

ALL = frozenset({"hours", "phone", "email", "address", "price", "payment"})
E5 = KIND_MARGINS["local:multilingual-e5-small"]


def scores(**values: float) -> dict[str, float]:
    base = {"hours": 0.78, "phone": 0.78, "email": 0.78, "address": 0.78, "price": 0.78}
    base |= {"payment": 0.78, "_services": 0.78, "_chat": 0.78, "_other": 0.78}
    return base | values


def test_the_nearest_fact_kind_answers_only_with_a_clear_margin() -> None:
    assert fact_question(scores(phone=0.85, email=0.82), (), ALL, E5) == FactQuestion("phone")
    assert fact_question(scores(email=0.770, _other=0.767), (), ALL, E5) is None  # too close
    spanish_sso = scores(hours=0.851, _services=0.836)  # hours 0.015 ahead, the search agrees
    assert fact_question(spanish_sso, (), ALL, E5, found=frozenset({"hours"})) is None
    assert fact_question(scores(_chat=0.82, email=0.81), (), ALL, E5) is None  # small talk


def test_a_kind_the_site_does_not_state_is_left_to_the_pages() -> None:
    assert fact_question(scores(payment=0.85), (), frozenset({"hours"}), E5) is None


def test_a_named_weekday_asks_for_that_days_hours() -> None:
    asked = fact_question(scores(hours=0.813, _chat=0.809), (5,), ALL, E5)
    assert asked == FactQuestion("hours", (5,))
    assert fact_question(scores(hours=0.813, _chat=0.809), (5,), frozenset({"phone"}), E5) is None


def week() -> SiteFacts:
    def day(weekday: int, *ranges: tuple[str, str]) -> SiteFact:
        return SiteFact("hours", "", "table", weekday=weekday, ranges=ranges, doc_id="kontakt")

    holiday = SiteFact("hours", "", "json-ld", label="2026-12-24", doc_id="kontakt")
    return SiteFacts(
        (
            day(0, ("09:00", "12:00"), ("14:00", "18:30")),
            day(5, ("10:00", "14:00")),
            day(6),
            holiday,
        )
    )


def test_the_week_with_split_hours_closed_days_and_exceptions() -> None:
    lead, lines = hours_reply(week(), (), "fr", say)
    assert lead == "Horaires d'ouverture :"
    assert [line.text for line in lines] == [
        "lundi: 09:00–12:00, 14:00–18:30",
        "samedi: 10:00–14:00",
        "dimanche: fermé",
        "2026-12-24: fermé",
    ]


def test_a_day_the_hours_do_not_list_says_so() -> None:
    lead, lines = hours_reply(week(), (2,), "de", say)
    assert (lead, lines) == ("Für Mittwoch sind keine Öffnungszeiten angegeben.", [])


def test_a_price_needs_a_service_the_question_names() -> None:
    prices = (SiteFact("price", "12 €", "table", label="Schlauch wechseln"),)
    assert best_service(prices, [0.895]) == prices[0]
    assert best_service(prices, [0.80]) is None


def test_a_narrow_lead_needs_the_search_to_find_a_page_stating_that_kind() -> None:
    narrow = scores(hours=0.858, _services=0.836)  # 0.022: clear of the rest, not by far
    assert fact_question(narrow, (), ALL, E5) is None
    assert fact_question(narrow, (), ALL, E5, found=frozenset({"phone"})) is None
    assert fact_question(narrow, (), ALL, E5, found=frozenset({"hours"})) == FactQuestion("hours")


def test_the_search_agrees_when_a_found_passage_states_the_fact() -> None:
    facts = SiteFacts(
        (
            SiteFact("hours", "Dienstag bis Freitag | 9:30 – 18:30", "table", weekday=1),
            SiteFact("price", "12 €", "table", label="Schlauch wechseln"),
        )
    )
    table = "| Tag | Zeit |\n|---|---|\n| Dienstag bis Freitag | 9:30 – 18:30 |"
    assert kinds_found(facts, [table]) == {"hours"}
    assert kinds_found(facts, ["Schlauch wechseln kostet 12 € inklusive Arbeit"]) == {"price"}
    assert kinds_found(facts, ["Wir reparieren alle Räder. Preise ab 12 €."]) == frozenset()
