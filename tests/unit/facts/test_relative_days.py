"""Days relative to today in all eight languages, from CLDR's relative-day fields, read on
the site's wall clock with the site file's public holidays and closures: pure."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from frontdesk.conversation.nodes.facts import dates_asked
from frontdesk.conversation.texts import say
from frontdesk.facts.answer import KIND_MARGINS, DateAsked, FactQuestion, dated_reply, fact_question
from frontdesk.facts.dates import relative_day_word, relative_days_named
from frontdesk.facts.model import SiteFact, SiteFacts
from frontdesk.sites.hours import BusinessHoursConfig

pytestmark = pytest.mark.unit

E5 = KIND_MARGINS["local:multilingual-e5-small"]
ALL = frozenset({"hours", "phone"})


@pytest.mark.parametrize(
    ("language", "today", "tomorrow"),
    [
        ("de", "Habt ihr heute geöffnet?", "Und morgen?"),
        ("en", "Are you open today?", "And tomorrow?"),
        ("fr", "Vous êtes ouverts aujourd’hui ?", "Et demain ?"),
        ("es", "¿Abren hoy?", "¿Y mañana?"),
        ("it", "Siete aperti oggi?", "E domani?"),
        ("pt", "Vocês abrem hoje?", "E amanhã?"),
        ("nl", "Zijn jullie vandaag open?", "En morgen?"),
        ("ru", "Вы сегодня работаете?", "А завтра?"),
    ],
)
def test_today_and_tomorrow_in_every_language(language: str, today: str, tomorrow: str) -> None:
    assert relative_days_named(today, language) == (0,)
    assert relative_days_named(tomorrow, language) == (1,)


def test_phrases_are_read_whole_and_a_morning_is_no_tomorrow() -> None:
    assert relative_days_named("¿Abren pasado mañana?", "es") == (2,)
    assert relative_days_named("Vocês abrem depois de amanhã?", "pt") == (2,)
    assert relative_days_named("aujourd'hui", "fr") == (0,)  # a plain apostrophe too
    # CLDR's Spanish day period "de la mañana": "la mañana" is the morning.
    assert relative_days_named("¿Abren mañana por la mañana?", "es") == (1,)
    assert relative_days_named("¿Abren por la mañana?", "es") == ()
    assert relative_days_named("Wie ist eure Telefonnummer?", "de") == ()
    assert relative_day_word(0, "de") == "Heute" and relative_day_word(1, "fr") == "Demain"


def scores(**values: float) -> dict[str, float]:
    return {"hours": 0.84, "phone": 0.8, "_chat": 0.83, "_other": 0.82} | values


def test_a_relative_day_asks_for_hours_only_when_hours_are_nearest() -> None:
    asked = fact_question(scores(hours=0.854, _other=0.846), (), ALL, E5, offsets=(1,))
    assert asked == FactQuestion("hours", (), (1,))  # "Und morgen?"
    # "Wie geht's dir heute?": small talk is nearest.
    assert fact_question(scores(_chat=0.878, hours=0.845), (), ALL, E5, offsets=(0,)) is None


def week() -> SiteFacts:
    def day(weekday: int, *ranges: tuple[str, str]) -> SiteFact:
        return SiteFact("hours", "", "table", weekday=weekday, ranges=ranges, doc_id="kontakt")

    closure = SiteFact("hours", "", "json-ld", label="2026-12-28 – 2026-12-30", doc_id="kontakt")
    return SiteFacts((day(0), day(1, ("09:30", "18:30")), day(3, ("09:30", "18:30")), closure))


def test_dated_reply_holiday_closure_exception_and_weekday() -> None:
    def reply(item: DateAsked, language: str = "de") -> str:
        lead, lines = dated_reply(week(), [item], language, say)
        return " ".join([lead, *(line.text for line in lines)]).strip()

    christmas = DateAsked(0, date(2026, 12, 25), holiday="Erster Weihnachtstag")
    assert (
        reply(christmas)
        == "Heute (Freitag, 25.12.2026): geschlossen (Feiertag: Erster Weihnachtstag)"
    )
    assert reply(DateAsked(1, date(2026, 12, 8))) == "Morgen (Dienstag, 08.12.2026): 09:30–18:30"
    # The page's dated exception (no ranges: closed) wins over its Tuesday.
    assert reply(DateAsked(1, date(2026, 12, 29))) == "Morgen (Dienstag, 29.12.2026): geschlossen"
    # A dated closure in the site file.
    assert reply(DateAsked(0, date(2026, 12, 9), closed=True), "fr").startswith(
        "Aujourd’hui (mercredi, 9 déc. 2026): fermé"
    )
    # No hours published for Friday.
    assert (
        reply(DateAsked(0, date(2026, 12, 11)))
        == "Für Freitag sind keine Öffnungszeiten angegeben."
    )


def test_today_is_the_sites_day_with_its_regions_holidays() -> None:
    config = BusinessHoursConfig.model_validate(
        {
            "timezone": "Europe/Berlin",
            "weekly": {"tue-fri": ["09:30-18:30"]},
            "holidays": "DE-SN",
            "closed": ["2026-12-31"],
        }
    )
    late = datetime(2026, 12, 24, 23, 30, tzinfo=UTC)  # 00:30 on the 25th in Berlin
    today, tomorrow = dates_asked((0, 1), config, late, "de")
    assert today == DateAsked(0, date(2026, 12, 25), "Erster Weihnachtstag", False)
    assert tomorrow.day == date(2026, 12, 26) and tomorrow.holiday == "Zweiter Weihnachtstag"
    english = dates_asked((0,), config, late, "en")[0]
    assert english.holiday == "Christmas Day"
    # Reformation Day is a holiday in Saxony, not in Berlin.
    reformation = dates_asked((0,), config, datetime(2026, 10, 31, 9, tzinfo=UTC), "de")[0]
    assert reformation.holiday == "Reformationstag"
    new_years_eve = dates_asked((0,), config, datetime(2026, 12, 31, 9, tzinfo=UTC), "de")[0]
    assert new_years_eve.closed and not new_years_eve.holiday
