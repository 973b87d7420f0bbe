"""One register per language: the assistant addresses a visitor the same way in every
reply. The conversation catalog says "du" in German, "tú" in Spanish, "tu" in Italian and
"je" in Dutch; the local writer's hedged lead-in said "Ihre Frage", "su pregunta", "sua
domanda" and "uw vraag", so one reply switched to the formal address halfway through, and
the suggestion chips did the same."""

from __future__ import annotations

import re

import pytest

from frontdesk.conversation.texts import TEXTS
from frontdesk.engines.local.answering import phrases

pytestmark = pytest.mark.unit

# The formal address in the languages whose catalog uses the informal one. (French,
# Portuguese and Russian use the formal address throughout.)
FORMAL: dict[str, re.Pattern[str]] = {
    "de": re.compile(r"(?<=\w )\b(?:Sie|Ihnen|Ihre?[mnrs]?)\b"),  # capitalised mid-sentence
    "es": re.compile(r"\b(?:usted(?:es)?|su pregunta|puede contarme)\b", re.IGNORECASE),
    "it": re.compile(r"\b(?:Lei|sua domanda|può dirmi)\b"),
    "nl": re.compile(r"\b(?:u|uw|kunt u)\b", re.IGNORECASE),
}


def _writer_phrases() -> dict[str, list[str]]:
    tables = [
        value
        for value in vars(phrases).values()
        if isinstance(value, dict) and set(value) >= {"en", "de", "es", "it", "nl"}
    ]
    return {lang: [table[lang] for table in tables] for lang in FORMAL}


def test_the_probe_finds_the_formal_address() -> None:
    assert FORMAL["de"].search("ob das Ihre Frage ganz beantwortet")
    assert not FORMAL["de"].search("Kannst du es anders formulieren? Sie antworten heute.")
    assert FORMAL["nl"].search("of dit uw vraag volledig beantwoordt")


@pytest.mark.parametrize("language", sorted(FORMAL))
def test_the_catalog_and_the_writer_use_one_register(language: str) -> None:
    # The appointment texts (booking in a team's calendar, the invitation e-mail) and the
    # conversation acts' replies (`act.*`) are written in the formal register, the base of
    # the site's tone setting.
    texts = [
        table[language]
        for key, table in TEXTS.items()
        if language in table and not key.startswith(("appointment.", "act."))
    ]
    texts += _writer_phrases()[language]
    assert texts
    formal = [text for text in texts if FORMAL[language].search(text)]
    assert formal == []
