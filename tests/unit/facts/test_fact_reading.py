"""Opening hours, exceptions, prices and addresses read as small sites write them."""

from __future__ import annotations

from frontdesk.facts.answer import best_service, exceptions_on, hours_reply, price_reply
from frontdesk.facts.calendar import hours_lines, time_ranges
from frontdesk.facts.dates import dates_named
from frontdesk.facts.extract import facts_from_html
from frontdesk.facts.lines import facts_from_line
from frontdesk.facts.model import SiteFacts


def say(key: str, language: str, **values: str) -> str:
    return {"facts.closed": "closed", "facts.hours": "Hours:", "facts.price": "Price:"}.get(
        key, key
    )


def days(text: str, language: str) -> list[tuple[int, ...]]:
    return [line.days for line in hours_lines(text, language)]


def test_a_range_is_any_short_connector_between_two_days() -> None:
    assert days("Di t/m za: 08:00 – 16:00", "nl") == [(1, 2, 3, 4, 5)]
    assert days("Monday through Thursday 8:00 – 15:00", "en") == [(0, 1, 2, 3)]
    assert days("dal martedì al venerdì 9:00 – 13:00", "it") == [(1, 2, 3, 4)]
    assert days("со вторника по пятницу 10:00 – 18:00", "ru") == []  # inflected: not CLDR's
    assert days("Sa und So 10–14", "de") == [(5, 6)]  # CLDR's "and" lists
    assert days("lun., mer. 9h-12h", "fr") == [(0, 2)]


def test_hours_stated_for_every_day_without_a_weekday() -> None:
    every = (0, 1, 2, 3, 4, 5, 6)
    (line,) = hours_lines("Работаем ежедневно с 9:00 до 20:00", "ru")
    assert (line.days, line.ranges) == (every, (("09:00", "20:00"),))
    (line,) = hours_lines("Täglich 9–12 und 14–18 Uhr", "de")
    assert (line.days, line.ranges) == (every, (("09:00", "12:00"), ("14:00", "18:00")))
    assert days("Tous les jours de 7h à 19h30", "fr") == [every]
    assert days("Open daily 10am – 6pm", "en") == [every]
    # A daily word without a time, or with a duration instead, states no hours.
    assert hours_lines("Wir liefern täglich aus.", "de") == []
    assert hours_lines("We deliver daily within 2 days", "en") == []


def test_times_with_cldr_day_periods() -> None:
    assert [r[2] for r in time_ranges("brunch 10am – 1.30pm, supper 6pm – 11pm")] == [
        ("10:00", "13:30"),
        ("18:00", "23:00"),
    ]
    assert [r[2] for r in time_ranges("de 9 a. m. a 2 p. m.")] == [("09:00", "14:00")]
    assert time_ranges("cerrado el 1 y 6 de enero") == []  # two dates, not hours


def test_a_day_closed_in_a_sentence_is_quoted() -> None:
    (line,) = hours_lines("Le salon est fermé les mardis.", "fr")
    assert line.days == (1,) and line.note == "Le salon est fermé les mardis."
    assert days("Tu barbería de confianza en el centro", "es") == []  # "Tu" is a word here
    assert days("Zo: gesloten", "nl") == [(6,)]


def test_months_and_dates_from_cldr() -> None:
    named = dates_named("Chiuso dal 10 al 24 agosto e il 26 dicembre", ["it"])
    assert [(d.month, d.day) for d in named] == [(8, 24), (12, 26)]
    assert dates_named("you may book online", ["en"]) == []
    assert [(d.month, d.day) for d in dates_named("¿Abren en julio?", ["es"])] == [(7, None)]


HTML = """<html><body><main>
<dl><dt>Thursday through Saturday</dt><dd>Lunch 12pm – 3pm, dinner 6pm – 9.30pm</dd></dl>
<p>We are open on Sundays from 10am to 4pm. We do
not open on Mondays.</p>
<p>Between 22 December and 2 January the shop is closed. In July we open from 8am to 5pm.</p>
<p>A flat white is £3.10 and a slice of banana bread £2.90.</p>
</main><footer><p>Sea Glass Café · 3 Harbour Row, Mousehole TR19 6QE</p>
<p>© 2024 Sea Glass Café, all rights reserved</p></footer></body></html>"""


def page() -> SiteFacts:
    facts = facts_from_html(HTML, "https://cafe.example/visit", "en")
    return SiteFacts(tuple(fact.__class__(**{**fact.__dict__, "doc_id": "d1"}) for fact in facts))


def test_definition_lists_sentences_and_source_line_breaks() -> None:
    facts = page()
    weekly = {f.weekday: f for f in facts.of_kind("hours") if f.weekday is not None}
    assert weekly[3].ranges == (("12:00", "15:00"), ("18:00", "21:30"))
    assert weekly[5].ranges == (("12:00", "15:00"), ("18:00", "21:30"))
    assert weekly[6].ranges == (("10:00", "16:00"),)
    assert weekly[0].note == "We do not open on Mondays."
    _lead, lines = hours_reply(facts, (0,), "en", say)
    assert [line.text for line in lines] == ["Monday: We do not open on Mondays."]


def test_dated_lines_are_exceptions_answered_for_their_dates() -> None:
    facts = page()
    christmas = exceptions_on(facts, [(12, 25)])
    assert [f.label for f in christmas] == ["Between 22 December and 2 January the shop is closed."]
    assert exceptions_on(facts, [(12, 20)]) == ()
    assert [f.label for f in exceptions_on(facts, [(7, None)])] == [
        "In July we open from 8am to 5pm."
    ]
    _lead, lines = hours_reply(facts, (), "en", say)  # the whole week lists them
    assert any("22 December" in line.text for line in lines)


def test_several_prices_in_a_sentence_and_the_item_named() -> None:
    prices = page().of_kind("price")
    assert [(f.label, f.amount) for f in prices] == [
        ("A flat white is", "3.10"),
        ("and a slice of banana bread", "2.90"),
    ]
    chosen = best_service(prices, [0.9, 0.95], question="How much is a flat white?")
    assert chosen is prices[0]
    assert price_reply(prices[0], "en", say)[1][0].text == "A flat white is £3.10"


def test_an_address_written_in_the_footer() -> None:
    addresses = [f.value for f in page().of_kind("address")]
    assert addresses == ["3 Harbour Row, Mousehole TR19 6QE"]
    assert facts_from_line("Since 1987, family-run", "en", 0, "text", "footer") == []


def test_a_line_break_in_the_source_is_no_line_break() -> None:
    html = "<main><p>Geöffnet Dienstag bis\nFreitag 9–18 Uhr</p></main>"
    facts = facts_from_html(html, "", "de")
    assert sorted(f.weekday for f in facts if f.kind == "hours") == [1, 2, 3, 4]
