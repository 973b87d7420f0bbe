"""Reading across languages and word forms, in pure parts: compounds and their parts,
German nouns that are no names, the units of a page in another language chosen by their
cosine, and the lead-in that names the page's language."""

from __future__ import annotations

import pytest

from frontdesk.engines.local.answering.meaning import (
    ACROSS_UNITS,
    choose_across,
    heading_line,
    unit_texts,
)
from frontdesk.engines.local.answering.phrases import (
    FOREIGN_LEAD_IN,
    foreign_lead_in,
    quotes_foreign_page,
    strip_framing,
)
from frontdesk.engines.local.answering.quoting import MIN_MATCH, Pick, ends_with, joins, shares
from frontdesk.engines.local.answering.text import (
    passage_language,
    proper_names,
    question_terms,
    term_set,
)
from frontdesk.engines.local.answering.units import Unit
from frontdesk.engines.local.answering.verifier import extract_claims

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("question", "written"),
    [
        ("Was kostet ein Schlauchwechsel?", "Schlauch wechseln — Preis: 12 €"),
        ("Macht ihr einen Kettenwechsel?", "Kette wechseln: 18 €"),
        ("Bietet ihr eine Bremseneinstellung an?", "Bremsen einstellen: 15 €"),
        ("Macht ihr Laufradzentrierung?", "Laufräder zentrieren und einspeichen"),
        ("Wie lange dauert das Wechseln?", "Der Schlauchwechsel dauert zehn Minuten."),
    ],
)
def test_a_compound_matches_its_parts_written_apart(question: str, written: str) -> None:
    asked = question_terms(question, "de")
    present = term_set(written, "de")
    assert any(shares({term}, present) for term in asked - present), (asked, present)


def test_compound_parts_need_four_letters_each() -> None:
    assert joins("schlauchwechsel", frozenset({"schlauch", "wechseln"}))
    assert joins("kettenwechsel", frozenset({"kett", "wechsel"}))  # the joint "-n-"
    assert not joins("cart", frozenset({"car", "t"}))
    assert not joins("season", frozenset({"sea", "son"}))
    assert ends_with("smartphone", "phone") and not ends_with("support", "port")


def test_german_capitals_mark_nouns_not_names() -> None:
    question = "Repariert ihr E-Bikes mit Bosch-Motor oder HubSpot und SAML über E20?"
    assert proper_names(question, "de") == {"HubSpot", "SAML", "E20"}
    assert {"Bosch", "Motor"} <= proper_names("Do you fix a Bosch Motor?", "en")


def picks_of(*cosines: tuple[int, float]) -> tuple[list[Pick], list[float]]:
    picks = [
        Pick(index, Unit(f"unit {n}", "sentence", n), 0.0, 0.0, own=False)
        for n, (index, _) in enumerate(cosines)
    ]
    return picks, [cosine for _, cosine in cosines]


def test_across_languages_the_closest_units_of_the_best_page_clearing_the_bar() -> None:
    picks, cosines = picks_of((1, 0.868), (1, 0.80), (1, 0.862), (1, 0.861), (2, 0.95))
    chosen = choose_across(picks, cosines, bar=0.815)
    assert [p.unit.text for p in chosen] == ["unit 0", "unit 2"][:ACROSS_UNITS]
    assert all(p.own and p.lexical >= MIN_MATCH for p in chosen)
    assert chosen[0].score == pytest.approx(0.868)


def test_across_languages_nothing_under_the_bar() -> None:
    picks, cosines = picks_of((0, 0.81), (1, 0.95))
    assert choose_across(picks, cosines, bar=0.815) == []  # page 1 is not the best ranked
    assert choose_across([], [], bar=0.0) == []


def test_the_writers_unit_texts_are_what_ingest_embeds() -> None:
    content = (
        "# Preise\n\nAlle Preise inklusive.\n\n| Leistung | Preis |\n|---|---|\n| Kette | 18 € |"
    )
    texts = unit_texts("Preise – Radwerk", ("Preise – Radwerk",), content)
    assert texts[0] == f"{heading_line('Preise – Radwerk', ('Preise – Radwerk',))}\n" + (
        "Alle Preise inklusive."
    )
    assert texts[-1] == "Kette — Preis: 18 €"


def test_the_lead_in_names_the_pages_language_in_the_visitors() -> None:
    assert foreign_lead_in("en", "de") == "Our page on this is in German; it says:"
    assert foreign_lead_in("de", "fr") == "Unsere Seite dazu ist auf Französisch; dort steht:"
    assert "(английский)" in foreign_lead_in("ru", "en")
    assert foreign_lead_in("en", "xx") == FOREIGN_LEAD_IN["en"]  # no name: the plain one
    answer = f"{foreign_lead_in('it', 'de')} Kleine Reparaturen meist am selben Tag [1]."
    assert quotes_foreign_page(answer)
    assert strip_framing(answer).startswith("Kleine Reparaturen")
    assert [claim.text for claim in extract_claims(answer)] == [
        "Kleine Reparaturen meist am selben Tag."
    ]


def test_a_price_table_is_read_in_its_language() -> None:
    table = (
        "Preise\n\nAlle Preise inklusive Arbeitszeit, zuzüglich Material.\n\n"
        "- E-Bike-Inspektion | ab 79 €"
    )
    assert passage_language(table, "de") == "de"
