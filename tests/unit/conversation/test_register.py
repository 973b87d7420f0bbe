"""One register per site: every text the assistant and the widget say has a formal and an
informal form in the languages that have two (Sie/du, vous/tu, usted/tú, Lei/tu, вы/ты,
u/je, o senhor/você), and neither form slips into the other. The reply catalog
(conversation/texts.yaml), the widget's strings (widget/texts.yaml) and the local
writer's framing are read as shipped; a malformed catalog is refused at load."""

from __future__ import annotations

import pytest

from frontdesk.conversation.register import TWO_REGISTERS, Tone, address_forms
from frontdesk.conversation.texts import (
    CATALOG,
    TEXTS,
    CatalogError,
    parse_catalog,
    say,
    template_for,
)
from frontdesk.engines.local.answering import phrases
from frontdesk.widget import widget_texts

pytestmark = pytest.mark.unit

OTHER: dict[Tone, Tone] = {"formal": "informal", "informal": "formal"}


@pytest.mark.parametrize(
    ("language", "formal", "informal"),
    [
        ("de", "Können Sie genauer sagen, wonach Sie suchen?", "Kannst du genauer sagen?"),
        ("fr", "Pouvez-vous préciser votre demande ?", "Peux-tu préciser ta demande ?"),
        ("es", "¿Quiere que le ponga con usted?", "¿Quieres que te ponga en contacto?"),
        ("it", "Posso metterLa in contatto con un collega.", "Posso metterti in contatto."),
        ("ru", "Я могу связать вас с коллегой.", "Я могу связать тебя с коллегой."),
        (
            "pt",
            "Vou passar a sua pergunta a quem lhe responderá.",
            "Posso colocar você em contato.",
        ),
        ("nl", "Kunt u het anders formuleren?", "Kun je het anders formuleren?"),
    ],
)
def test_the_address_is_read_in_every_language(language: str, formal: str, informal: str) -> None:
    assert address_forms(formal, language) == {"formal"}
    assert address_forms(informal, language) == {"informal"}


def test_a_text_that_does_not_address_the_visitor_has_no_register() -> None:
    assert address_forms("Unser Team meldet sich noch heute bei uns; sie sind da.", "de") == set()
    assert address_forms("Opening hours: {day}", "en") == set()
    assert address_forms("Desculpe, neste momento não consigo responder.", "pt") == set()
    assert address_forms("Ce rendez-vous n'existe plus.", "fr") == set()
    assert address_forms("Ton rendez-vous est annulé.", "fr") == {"informal"}
    assert address_forms("Pouvez-vous déplacer le rendez-vous ?", "fr") == {"formal"}


def _check_catalog(formal: dict[str, dict[str, str]], informal: dict[str, dict[str, str]]) -> None:
    """Each entry read in each register, the way a site with that tone reads it."""
    for key, variants in formal.items():
        for language in sorted(TWO_REGISTERS & set(variants)):
            texts: dict[Tone, str] = {
                "formal": variants[language],
                "informal": informal[key].get(language, variants[language]),
            }
            for tone, text in texts.items():
                assert OTHER[tone] not in address_forms(text, language), (key, language, tone)
            if "formal" in address_forms(texts["formal"], language):
                assert "informal" in address_forms(texts["informal"], language) or (
                    texts["informal"] != texts["formal"]
                ), (key, language)


def test_every_reply_has_a_correct_text_for_each_register() -> None:
    _check_catalog(CATALOG.formal, CATALOG.informal)
    for key in TEXTS:
        for language in TWO_REGISTERS:
            for tone in ("formal", "informal"):
                text = template_for(key, language, tone)
                assert OTHER[tone] not in address_forms(text, language), (key, language, tone)


def test_every_widget_string_has_a_correct_text_for_each_register() -> None:
    catalog = widget_texts()
    _check_catalog(catalog.formal, catalog.informal)
    assert catalog.formal["heading"]["de"] == "Schreiben Sie uns"
    assert catalog.informal["heading"]["de"] == "Schreib uns"


def test_the_writers_framing_and_chips_follow_the_register() -> None:
    tables = [v for v in vars(phrases).values() if isinstance(v, phrases.Phrases)]
    assert phrases.WEAK_LEAD_IN in tables and phrases.SUGGEST_ABOUT in tables
    _check_catalog(
        {str(i): dict(t) for i, t in enumerate(tables)},
        {str(i): t.informal for i, t in enumerate(tables)},
    )
    # A table that is not a `Phrases` never addresses the visitor.
    plain = [v for v in vars(phrases).values() if type(v) is dict and "de" in v]
    for table in plain:
        for language in TWO_REGISTERS & set(table):
            assert address_forms(table[language], language) == set(), table[language]


def test_say_picks_the_sites_register_and_the_sites_own_words_first() -> None:
    assert "Sie" in say("offer.human", "de")
    assert say("offer.human", "de", tone="informal") == "Ich kann dich mit unserem Team verbinden."
    assert say("offer.human", "en", tone="informal") == say("offer.human", "en")
    own = {"offer.human": {"de": "Wir helfen gern."}}
    assert say("offer.human", "de", tone="informal", overrides=own) == "Wir helfen gern."


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"en": "Hi.", "de": "Kannst du das?"}, "addresses the visitor informally"),
        ({"en": "Hi.", "de": "Können Sie das?"}, "add its informal text"),
        (
            {"en": "Hi.", "de": "Können Sie das?", "informal": {"de": "Können Sie das bitte?"}},
            "informal de text addresses the visitor formally",
        ),
        ({"en": "Hi.", "informal": {"en": "Hey."}}, "en has one register"),
        ({"de": "Hallo."}, "no English text"),
        (
            {"en": "{x}", "de": "Sie {x}", "informal": {"de": "du {y}"}},
            "fills other placeholders",
        ),
    ],
)
def test_a_catalog_with_a_register_mix_up_is_refused(
    entry: dict[str, object], problem: str
) -> None:
    with pytest.raises(CatalogError, match=problem):
        parse_catalog({"greeting": entry})
