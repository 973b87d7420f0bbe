"""Facts read from pages: schema.org data, links, <address>, tables and prose naming
weekdays (CLDR names in the page's language) and services with amounts."""

from __future__ import annotations

import pytest

from frontdesk.facts.extract import facts_from_html, facts_from_text
from frontdesk.facts.model import SiteFact

pytestmark = pytest.mark.unit


def hours(facts: list[SiteFact]) -> dict[int, tuple[tuple[str, str], ...]]:
    return {f.weekday: f.ranges for f in facts if f.kind == "hours" and f.weekday is not None}


def page(body: str, head: str = "") -> str:
    return f"<html><head><title>t</title>{head}</head><body>{body}</body></html>"


def test_json_ld_opening_hours_specification_phone_and_address() -> None:
    head = """<script type="application/ld+json">{"@context": "https://schema.org",
      "@type": "LocalBusiness", "name": "Atelier", "telephone": "+33 1 42 00 00 00",
      "address": {"@type": "PostalAddress", "streetAddress": "12 rue des Lilas",
                  "postalCode": "75011", "addressLocality": "Paris"},
      "paymentAccepted": "Cash, Credit Card",
      "openingHoursSpecification": [
        {"@type": "OpeningHoursSpecification", "dayOfWeek": ["Monday", "Tuesday"],
         "opens": "09:00", "closes": "12:30"},
        {"@type": "OpeningHoursSpecification", "dayOfWeek": "https://schema.org/Saturday",
         "opens": "10:00:00", "closes": "16:00:00"},
        {"@type": "OpeningHoursSpecification", "validFrom": "2026-12-24",
         "validThrough": "2026-12-26", "opens": "00:00", "closes": "00:00"}]}</script>"""
    facts = facts_from_html(page("<main><p>Bienvenue</p></main>", head), "https://a.example/", "fr")
    assert hours(facts) == {
        0: (("09:00", "12:30"),),
        1: (("09:00", "12:30"),),
        5: (("10:00", "16:00"),),
    }
    holiday = [f for f in facts if f.kind == "hours" and f.label]
    assert [(f.label, f.ranges) for f in holiday] == [("2026-12-24 – 2026-12-26", ())]
    assert {f.value for f in facts if f.kind == "phone"} == {"+33 1 42 00 00 00"}
    assert {f.value for f in facts if f.kind == "address"} == {"12 rue des Lilas, 75011 Paris"}
    assert {f.value for f in facts if f.kind == "payment"} == {"Cash", "Credit Card"}
    assert all(f.origin == "json-ld" for f in facts)


def test_a_german_hours_table_with_a_range_of_days_and_a_closed_row() -> None:
    body = """<main><table>
      <tr><td>Dienstag bis Freitag</td><td>9:30 – 18:30</td></tr>
      <tr><td>Samstag</td><td>10:00 – 14:00 Uhr</td></tr>
      <tr><td>Sonntag und Montag</td><td>geschlossen</td></tr></table></main>"""
    facts = facts_from_html(page(body), "https://r.example/kontakt", "de")
    week = hours(facts)
    assert week == {
        1: (("09:30", "18:30"),),
        2: (("09:30", "18:30"),),
        3: (("09:30", "18:30"),),
        4: (("09:30", "18:30"),),
        5: (("10:00", "14:00"),),
        6: (),
        0: (),
    }
    closed = [f for f in facts if f.weekday == 6]
    assert closed[0].note == "geschlossen" and closed[0].origin == "table"


def test_hours_and_phone_only_in_the_footer_are_read_and_marked_as_such() -> None:
    body = """<main><h1>Willkommen</h1><p>Wir reparieren Fahrräder.</p></main>
      <footer><p>Mo–Fr 8–17 Uhr<br>Sa 9–13 Uhr</p>
      <p>Tel. <a href="tel:+4940123456">040 123456</a></p></footer>"""
    facts = facts_from_html(page(body), "https://r.example/", "de")
    assert hours(facts) == {
        **{d: (("08:00", "17:00"),) for d in range(5)},
        5: (("09:00", "13:00"),),
    }
    phones = [f for f in facts if f.kind == "phone"]
    assert [(f.value, f.origin, f.region) for f in phones] == [("+4940123456", "link", "footer")]
    assert all(f.region == "footer" for f in facts)


def test_a_french_price_list_with_a_starting_price() -> None:
    body = """<main><h2>Tarifs</h2><ul>
      <li>Crevaison : 10,50 €</li>
      <li>Révision complète … à partir de 49 €</li>
      <li>Réglage des freins – 15 €</li></ul></main>"""
    facts = facts_from_html(page(body), "https://v.example/tarifs", "fr")
    prices = {f.label: (f.value, f.amount, f.currency) for f in facts if f.kind == "price"}
    assert prices == {
        "Crevaison": ("10,50 €", "10.50", "EUR"),
        "Révision complète": ("à partir de 49 €", "49", "EUR"),
        "Réglage des freins": ("15 €", "15", "EUR"),
    }


def test_russian_prose_hours_with_abbreviated_days() -> None:
    facts = facts_from_text(
        "Мы работаем пн–пт 10:00–19:00, сб 11:00–16:00.\nВоскресенье — выходной", "ru"
    )
    week = hours(facts)
    assert {d: week[d] for d in range(6)} == {
        **{d: (("10:00", "19:00"),) for d in range(5)},
        5: (("11:00", "16:00"),),
    }
    assert week[6] == () and [f.note for f in facts if f.weekday == 6] == ["выходной"]


def test_tel_and_mailto_links_and_an_address_element() -> None:
    body = """<main><address>Via Roma 3<br>00184 Roma</address>
      <a href="tel:+39 06 1234 5678">Chiamaci</a>
      <a href="mailto:ciao@bici.example?subject=Info">Scrivici</a></main>"""
    facts = facts_from_html(page(body), "https://b.example/", "it")
    found = {(f.kind, f.value, f.origin) for f in facts}
    assert found == {
        ("address", "Via Roma 3, 00184 Roma", "address"),
        ("phone", "+39 06 1234 5678", "link"),
        ("email", "ciao@bici.example", "link"),
    }


def test_a_date_or_a_price_range_is_no_opening_hours() -> None:
    facts = facts_from_text("Am Samstag, 12.04.2026, Preise 10 – 20 €", "de")
    assert not [f for f in facts if f.kind == "hours"]


def test_another_language_s_short_day_name_is_a_word_of_this_page() -> None:
    # "Do" is Thursday in German: on an English page it starts a question.
    facts = facts_from_text("## Do you give free estimates?\n\nHow do I pay?", "en")
    assert not [f for f in facts if f.kind == "hours"]
    # The page's own names still make a closed day.
    assert hours(facts_from_text("Sonntag: geschlossen", "de")) == {6: ()}


def test_two_schedules_on_one_line_are_not_read_as_split_hours() -> None:
    line = "Monday to Friday, 08:00–20:00 CET for EU workspaces and 08:00–18:00 US Central for US"
    assert not [f for f in facts_from_text(line, "en") if f.kind == "hours"]
    split = facts_from_text("Montag bis Freitag 9–12 und 14–18 Uhr", "de")
    assert hours(split)[0] == (("09:00", "12:00"), ("14:00", "18:00"))


def test_a_crawled_page_keeps_its_footer_facts_though_its_text_drops_the_footer() -> None:
    from frontdesk.knowledge.web.extract import extract_page

    html = page(
        "<main><h1>Werkstatt</h1><p>Wir reparieren Stadträder, Rennräder und Lastenräder"
        " in Kreuzberg, schnell und zu fairen Preisen. Kleine Reparaturen erledigen wir"
        " meist noch am selben Tag.</p></main>"
        "<footer><p>Di–Fr 9:30–18:30 Uhr</p><a href='tel:+493061207788'>Anrufen</a></footer>"
    )
    document = extract_page("https://r.example/", html.encode(), "text/html").document
    assert document is not None
    assert "9:30" not in document.text and "+49" not in document.text  # main content only
    assert [(f.value, f.region) for f in document.facts if f.kind == "phone"] == [
        ("+493061207788", "footer")
    ]
    assert {f.weekday for f in document.facts if f.kind == "hours"} == {1, 2, 3, 4}


def test_text_a_browser_hides_makes_no_fact() -> None:
    """A page author hides a phone number and a price from visitors: the assistant must not
    quote what the page does not show."""
    from frontdesk.knowledge.web.extract import extract_page

    html = page(
        "<main><h1>Preise</h1><p>Wir reparieren Stadträder, Rennräder und Lastenräder in"
        " Kreuzberg, schnell und zu fairen Preisen, meist noch am selben Tag.</p>"
        "<ul><li>Schlauch wechseln: 12 €</li>"
        "<li style='display:none'>Inspektion: 1 €</li></ul></main>"
        "<footer><div hidden><a href='tel:+4990012345'>Hotline</a></div></footer>"
    )
    document = extract_page("https://r.example/preise", html.encode(), "text/html").document
    assert document is not None
    assert {(f.label, f.value) for f in document.facts if f.kind == "price"} == {
        ("Schlauch wechseln", "12 €")
    }
    assert not [f for f in document.facts if f.kind == "phone"]


def test_an_address_in_prose_is_an_example_not_the_sites_own() -> None:
    text = (
        "To encrypt a message, open Settings and send a test to user@example.com or call"
        " +1 555 0100 to check it arrives.\n"
        "E-Mail: hallo@radwerk.example\n"
        "Telefon: +49 30 61207788"
    )
    found = {(f.kind, f.value) for f in facts_from_text(text, "de")}
    assert found == {("email", "hallo@radwerk.example"), ("phone", "+49 30 61207788")}
