"""Lines and lists that name short items, read by structure (commas, CLDR's "and" and
"or" of the page's language): candidates for payment methods, which the line's meaning
confirms at ingest."""

from __future__ import annotations

import pytest

from frontdesk.facts.extract import facts_from_html
from frontdesk.facts.lines import LISTED, facts_from_line, list_items
from frontdesk.facts.meaning import confirmed
from frontdesk.knowledge.embedding.embedders import make_embedder

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("line", "language", "items"),
    [
        ("Wir akzeptieren EC-Karte, Visa und Bargeld.", "de", ("EC-Karte", "Visa", "Bargeld")),
        ("Zahlungsarten: Bargeld, EC-Karte, Visa", "de", ("Bargeld", "EC-Karte", "Visa")),
        ("Bezahlen: bar oder mit Karte", "de", ("bar", "mit Karte")),
        ("We accept cash, Visa and Mastercard.", "en", ("cash", "Visa", "Mastercard")),
        (
            "Nous acceptons les espèces, la carte bancaire et les chèques",
            "fr",
            ("les espèces", "la carte bancaire", "les chèques"),
        ),
        ("Оплата: наличные или карта", "ru", ("наличные", "карта")),
        ("Aceptamos efectivo, tarjeta y Bizum", "es", ("efectivo", "tarjeta", "Bizum")),
        ("Betalen kan met pin, contant en creditcard", "nl", ("pin", "contant", "creditcard")),
    ],
)
def test_listed_items_in_every_language(line: str, language: str, items: tuple[str, ...]) -> None:
    found = list_items(line, language)
    assert found is not None and found[1] == items


def test_what_is_no_list_of_names() -> None:
    assert list_items("We accept all kinds of cards", "en") is None  # "of" is Dutch "or"
    assert list_items("Wir reparieren Räder.", "de") is None
    assert list_items("Mo–Fr 9–18 Uhr, Sa 10–14 Uhr", "de") is None  # digits: hours
    long = "Sie können bei uns mit allen gängigen Karten bezahlen, auch kontaktlos und mobil"
    assert list_items(long, "de") is None


def test_a_list_under_a_heading_is_one_line() -> None:
    html = """<html><body><main><h2>Zahlungsarten</h2>
    <ul><li>Bargeld</li><li>EC-Karte</li><li>Visa</li></ul></main></body></html>"""
    listed = [f for f in facts_from_html(html, "https://x.example/", "de") if f.note == LISTED]
    assert [f.value for f in listed] == ["Bargeld", "EC-Karte", "Visa"]
    assert {f.label for f in listed} == {"Zahlungsarten: Bargeld, EC-Karte, Visa"}


def test_candidates_need_a_model_that_reads_their_meaning() -> None:
    candidates = facts_from_line("Wir akzeptieren EC-Karte, Visa und Bargeld.", "de", 0, "text")
    assert [f.kind for f in candidates] == ["payment"] * 3
    # A model without measured margins confirms nothing: no guessing from the words.
    assert confirmed(candidates, make_embedder("hash:256")) == ()


def test_each_sentence_of_a_paragraph_is_read_and_asides_are_dropped() -> None:
    paragraph = (
        "Nous acceptons les espèces, la carte bancaire (sans minimum) et les titres-restaurant. "
        "Le pain tranché est possible sur demande."
    )
    listed = facts_from_line(paragraph, "fr", 0, "text")
    assert [f.value for f in listed] == [
        "les espèces",
        "la carte bancaire",
        "les titres-restaurant",
    ]
    assert {f.label for f in listed} == {
        "Nous acceptons les espèces, la carte bancaire (sans minimum) et les titres-restaurant."
    }
    # A table row's cells are not a listed line.
    assert list_items("Credit or debit card (Visa, Mastercard) | Starter, Growth", "en") is None
