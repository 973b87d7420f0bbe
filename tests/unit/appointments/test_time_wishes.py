"""The visitor's wording of a time, in the eight languages (dateparser + CLDR day periods)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from frontdesk.appointments.wishes import TimeWish, mentions_time, names_any, time_wish

pytestmark = pytest.mark.unit

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 12, 9, 11, 7, tzinfo=BERLIN)  # a Wednesday
SATURDAY = date(2026, 12, 12)
NEXT_WEEK = (date(2026, 12, 14), date(2026, 12, 20))


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Saturday morning"),
        ("de", "Samstag vormittag"),
        ("fr", "samedi matin"),
        ("es", "el sábado por la mañana"),
        ("it", "sabato mattina"),
        ("pt", "no sábado de manhã"),
        ("nl", "zaterdagochtend"),
        ("ru", "в субботу утром"),
    ],
)
def test_saturday_morning_in_every_language(language: str, text: str) -> None:
    wish = time_wish(text, language, NOW, BERLIN)
    assert (wish.first, wish.last) == (SATURDAY, SATURDAY)
    assert wish.end == 12 * 60 and wish.start < 11 * 60  # a morning, ending at noon
    assert wish.admits(datetime(2026, 12, 12, 10, 0, tzinfo=BERLIN), BERLIN)
    assert not wish.admits(datetime(2026, 12, 12, 13, 0, tzinfo=BERLIN), BERLIN)
    assert not wish.admits(datetime(2026, 12, 15, 10, 0, tzinfo=BERLIN), BERLIN)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "next week after 5"),
        ("de", "nächste Woche nach 17 Uhr"),
        ("fr", "la semaine prochaine après 17h"),
        ("nl", "volgende week na 17 uur"),
    ],
)
def test_next_week_after_five(language: str, text: str) -> None:
    assert time_wish(text, language, NOW, BERLIN) == TimeWish(*NEXT_WEEK, 17 * 60, 24 * 60)


def test_a_slot_label_and_a_sentence_without_a_time() -> None:
    label = time_wish("Sa 12.12. 10:00", "de", NOW, BERLIN)
    assert (label.first, label.start) == (SATURDAY, 10 * 60)
    wish = time_wish("Ich möchte einen Termin für eine Inspektion am Samstag", "de", NOW, BERLIN)
    assert (wish.first, wish.start, wish.end) == (SATURDAY, 0, 24 * 60)
    assert not mentions_time("Ada Lovelace, ada@example.org", "en", NOW, BERLIN)
    assert not mentions_time("How much does an inspection cost?", "en", NOW, BERLIN)


def test_names_any_matches_by_word_start_without_case_or_accents() -> None:
    names = ["Inspektion", "Revisão", "Fitting"]
    assert names_any("eine INSPEKTION am Samstag", names) == "Inspektion"
    assert names_any("marcar uma revisao no sábado", names) == "Revisão"
    assert names_any("a refitting", names) is None
