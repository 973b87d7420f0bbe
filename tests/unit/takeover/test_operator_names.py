"""Operator display names that would pass for the assistant or the site are refused,
whatever the spelling; people's own names in any alphabet pass."""

from __future__ import annotations

import unicodedata

import pytest

from frontdesk.takeover.names import (
    ImpersonatingName,
    assistant_words,
    check_display_name,
    safe_display_name,
)

pytestmark = pytest.mark.unit

SITE = "Tessellate"


def test_the_assistant_words_are_the_widgets_own_labels() -> None:
    # Read from widget.js (its `bot` label per language), not a list kept here.
    assert {"assistant", "ассистент", "asistente"} <= assistant_words()


@pytest.mark.parametrize(
    "name",
    [
        "Tessellate Assistant",
        "assistant",
        "Assi\u200bstant",  # zero-width space
        "Ａｓｓｉｓｔａｎｔ",  # full-width letters
        "A.s.s.i.s.t.a.n.t",
        "ÁSSISTANT",  # a combining accent
        "Ассистент",  # the Russian label
        "Tessellate Аssistant",  # Cyrillic А among Latin letters
        "Аnna",  # the same trick without the word
        "Tessellate",  # the site's own name
        "  tessellate ",
    ],
)
def test_names_that_pass_for_the_assistant_or_the_site_are_refused(name: str) -> None:
    with pytest.raises(ImpersonatingName, match="Choose another name"):
        check_display_name(name, SITE)
    assert safe_display_name(name, SITE) == ""


@pytest.mark.parametrize(
    "name", ["Anna", "José Müller", "Zoë O'Neill", "Анна Петрова", "山田 太郎", "Anna (Tessellate)"]
)
def test_peoples_own_names_pass(name: str) -> None:
    assert check_display_name(name, SITE) == name


@pytest.mark.parametrize(("name", "site"), [("АСМЕ", "Acme"), ("Тесо", "Teco"), ("ВОХ", "Box")])
def test_the_site_name_typed_in_look_alike_cyrillic_is_refused(name: str, site: str) -> None:
    # Every letter Cyrillic, so no word mixes alphabets; it still reads as the site's name.
    assert all(unicodedata.name(char).startswith("CYRILLIC") for char in name)
    with pytest.raises(ImpersonatingName, match="site's own name"):
        check_display_name(name, site)


@pytest.mark.parametrize("name", ["Вера", "Анна Петрова", "Сергей", "асме"])
def test_cyrillic_names_that_merely_share_letters_with_latin_pass(name: str) -> None:
    # "асме" in lower case: Cyrillic "м" does not look like "m".
    assert check_display_name(name, "Acme") == name
