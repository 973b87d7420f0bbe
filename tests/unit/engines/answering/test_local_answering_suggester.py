from __future__ import annotations

import re

import pytest
from local_answering_kb import ALL, FAQ, RATE_LIMIT, RU_ERROR, SALESFORCE, SSO, passage

from frontdesk.engines.local.answering import LocalSuggester
from frontdesk.engines.local.answering.phrases import normalise
from frontdesk.engines.local.answering.suggester import to_question

pytestmark = pytest.mark.unit

ANSWER = "According to our documentation: Sandbox orgs can be connected alongside production [1]."


async def test_three_suggestions_from_unused_headings() -> None:
    suggestions = await LocalSuggester().follow_ups(
        "Can I connect Salesforce sandbox orgs?", ANSWER, ALL, "en"
    )
    assert len(suggestions) == 3
    assert "How do I set up SAML single sign-on?" in suggestions
    assert all(s.endswith("?") for s in suggestions)


async def test_never_repeats_the_question() -> None:
    question = "Can Tessellate Flow connect to a database behind our firewall?"
    suggestions = await LocalSuggester().follow_ups(question, "", [FAQ, SSO], "en")
    assert suggestions
    assert normalise(question) not in {normalise(s) for s in suggestions}
    same_topic = await LocalSuggester().follow_ups(
        "How do I set up SAML single sign-on?", "", [SSO], "en"
    )
    assert all("SAML" not in s for s in same_topic)


@pytest.mark.parametrize(
    ("language", "marker"),
    [
        ("ru", r"[а-яё]"),
        ("de", r"\b(?:Wie|Was|Können|Sie)\b"),
        ("fr", r"\b(?:Comment|Que|Pouvez)\b"),
        ("es", r"¿"),
    ],
)
async def test_suggestions_are_in_the_requested_language(language: str, marker: str) -> None:
    suggestions = await LocalSuggester().follow_ups(
        "Frage", ANSWER, [SALESFORCE, SSO, RATE_LIMIT], language
    )
    assert suggestions
    assert all(re.search(marker, s) for s in suggestions), suggestions


async def test_headings_in_another_script_are_never_offered() -> None:
    suggestions = await LocalSuggester().follow_ups("Hello?", "", [RU_ERROR, SSO], "en")
    assert suggestions
    assert not any(re.search(r"[а-яё]", s, re.IGNORECASE) for s in suggestions), suggestions


def test_heading_templates() -> None:
    assert to_question("SAML single sign-on", "en") == "How do I set up SAML single sign-on?"
    assert to_question("TF-1004: Connected app rate limit reached", "en") == (
        "What does error TF-1004 mean?"
    )
    assert to_question("TF-1004: Connected app rate limit reached", "ru") == (
        "Что означает ошибка TF-1004?"
    )
    assert to_question("How to claim a credit", "en") == "How do I claim a credit?"
    assert to_question("Do you offer a free trial?", "en") == "Do you offer a free trial?"
    assert to_question("Do you offer a free trial?", "fr") is None
    assert to_question("Overview", "en") is None
    assert to_question("Data retention", "en", "we keep data retention short") == (
        "Can you tell me more about data retention?"
    )


async def test_no_passages_no_suggestions() -> None:
    assert await LocalSuggester().follow_ups("Anything?", "", [], "en") == []


async def test_used_heading_is_skipped() -> None:
    only = passage(9, ("Integrations", "Salesforce sandbox orgs"), "Sandbox orgs are supported.")
    suggestions = await LocalSuggester().follow_ups("Sandbox?", ANSWER, [only], "en")
    assert all("sandbox" not in s.lower() for s in suggestions)


def test_a_chip_is_worded_in_the_sites_register() -> None:
    formal = to_question("Schlauch wechseln", "de", tone="formal")
    informal = to_question("Schlauch wechseln", "de", tone="informal")
    assert formal == "Können Sie mir mehr zu Schlauch wechseln sagen?"
    assert informal == "Kannst du mir mehr zu Schlauch wechseln sagen?"
    assert to_question("Tarifs", "fr", tone="informal") == "Peux-tu m'en dire plus sur Tarifs ?"


# A small shop's pages, each one passage: the page's own top heading names the page.
SHOP = [
    passage(
        20,
        ("Häufige Fragen – Radwerk",),
        "# Häufige Fragen (FAQ)\n\n## Wie lange dauert eine Reparatur?\n\nMeist am selben Tag."
        "\n\n## Verkauft ihr auch Fahrräder?\n\nNein, nur Ersatzteile.",
    ),
    passage(21, ("Leistungen – Radwerk",), "# Unsere Leistungen\n\nWir reparieren alle Räder."),
    passage(22, ("Kontakt – Radwerk",), "# Kontakt\n\nRuf uns an: 030 1234567."),
    passage(
        23,
        ("Preise – Radwerk", "Preise", "Schlauch wechseln"),
        "Ein Schlauchwechsel kostet 12 €.",
    ),
]


@pytest.mark.parametrize("tone", ["formal", "informal"])
async def test_chips_are_questions_never_a_page_name(tone: str) -> None:
    chips = await LocalSuggester().follow_ups("Was kostet das?", "", SHOP, "de", tone)  # type: ignore[arg-type]
    assert "Verkauft ihr auch Fahrräder?" in chips, chips
    assert all(chip.endswith("?") for chip in chips)
    names = ("FAQ", "Häufige Fragen", "Unsere Leistungen", "Kontakt", "Radwerk")
    assert not any(name in chip for chip in chips for name in names), chips


@pytest.mark.parametrize(
    ("heading", "language"),
    [
        ("Sonntag und Montag | geschlossen", "de"),  # a crawled table row
        ("Sonntag und Montag geschlossen", "en"),  # a German heading, an English visitor
        ("Horaires et accès", "en"),
    ],
)
def test_no_follow_up_from_a_table_row_or_a_heading_in_another_language(
    heading: str, language: str
) -> None:
    assert to_question(heading, language) is None
