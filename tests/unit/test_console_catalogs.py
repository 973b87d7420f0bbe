"""The console's catalogs: every string `pybabel extract` finds in the console's templates
and Python code (with the project's own babel.cfg) is translated in every one of the
widget's languages, and no template shows words that bypass gettext.

When this fails after adding or changing a string: `make catalogs`, then translate the
entries it lists (docs/console.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from frontdesk.console.i18n import CONSOLE_LOCALES, SOURCE_LOCALE, catalog_path, translations
from frontdesk.console.templating import TEMPLATES

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
TRANSLATED = [locale for locale in CONSOLE_LOCALES if locale != SOURCE_LOCALE]
MessageId = str | tuple[str, ...]


@cache
def extracted() -> dict[MessageId, str]:
    """Every message the extraction finds → where it was found first."""
    with (REPO / "babel.cfg").open(encoding="utf-8") as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: dict[MessageId, str] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(REPO), method_map, options_map
    ):
        key = message if isinstance(message, str) else tuple(m for m in message if m)
        found.setdefault(key, f"{filename}:{lineno}")
    return found


@cache
def catalog(locale: str) -> Catalog:
    with catalog_path(locale).open("rb") as po:
        return read_po(po, locale=locale)


def test_the_extraction_finds_the_console_strings() -> None:
    messages = extracted()
    # One from a template, a plural from a template, one from Python, one marked with N_.
    assert "Inbox" in messages
    assert ("%(count)s turn", "%(count)s turns") in messages
    assert "Wrong e-mail or password." in messages
    assert "no contact: visitor declined" in messages
    assert len(messages) > 100


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_console_string_is_translated(locale: str) -> None:
    translated = catalog(locale)
    problems: list[str] = []
    for message_id, where in sorted(extracted().items(), key=lambda item: str(item[0])):
        entry = translated.get(message_id)
        if entry is None:
            problems.append(f"missing: {message_id!r} ({where})")
            continue
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if entry.fuzzy:
            problems.append(f"fuzzy: {message_id!r} ({where})")
        elif not all(forms):
            problems.append(f"untranslated: {message_id!r} ({where})")
        elif isinstance(message_id, tuple) and len(forms) != translated.num_plurals:
            problems.append(
                f"{len(forms)} of {translated.num_plurals} plural forms: {message_id!r}"
            )
        for error in entry.check(translated):
            problems.append(f"placeholders: {message_id!r}: {error}")
    assert not problems, f"{locale}: run `make catalogs`, then translate:\n" + "\n".join(problems)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_console_reads_the_catalog_as_written(locale: str) -> None:
    """What the running console loads (the `.po` file read at startup) is the catalog."""
    loaded = translations(locale)
    entry = catalog(locale).get("Sign in")
    assert entry is not None and loaded.gettext("Sign in") == entry.string != "Sign in"


# -- words that bypass gettext ---------------------------------------------------------

# A `{% trans %}` block is one message; then every expression, tag and comment.
JINJA = re.compile(
    r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}|\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL
)
SHOWN_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "label"}
# Not words of a language: format and unit names, brand names, code.
NOT_WORDS = {"JSON", "Markdown", "ms", "Frontdesk", "CSV", "URL", "ID", "YAML", "IANA"}


class _ShownText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.shown: list[str] = []
        self._hidden = 0  # inside <code>, <script>, <style>, <pre>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("code", "script", "style", "pre"):
            self._hidden += 1
        self.shown.extend(value or "" for name, value in attrs if name in SHOWN_ATTRIBUTES)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "script", "style", "pre") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.shown.append(data)


def untranslated_words(template: str) -> Iterator[str]:
    """Words a template would show that do not pass through gettext: the text between its
    Jinja expressions and tags, and the attributes people read (title, placeholder...)."""
    parser = _ShownText()
    parser.feed(JINJA.sub(" ", template))
    for text in parser.shown:
        for word in re.findall(r"[^\W\d_]{2,}", text):
            if word not in NOT_WORDS:
                yield word


def test_the_guard_sees_words_outside_gettext() -> None:
    assert list(untranslated_words('<p title="Saved">{{ _("Done") }} and more</p>')) == [
        "Saved",
        "and",
        "more",
    ]
    assert not list(untranslated_words('<p>{{ _("Done") }} <code>frontdesk kb</code></p>'))


@pytest.mark.parametrize("name", sorted(p.name for p in TEMPLATES.glob("*.html")))
def test_templates_show_no_words_outside_gettext(name: str) -> None:
    words = sorted(set(untranslated_words((TEMPLATES / name).read_text(encoding="utf-8"))))
    assert not words, f"{name} shows words no catalog can translate: {words}"


# -- words that come from other packages -----------------------------------------------


def test_the_console_has_its_own_words_for_every_label_other_packages_define() -> None:
    """Labels defined outside the console (gap reasons, withheld-passage reasons, contact
    tags) are shown through the console's own catalog entries; a new one added there
    without its console entry would show untranslated."""
    from frontdesk.console.improvement_pages import GAP_REASONS
    from frontdesk.console.knowledge_pages import WITHHELD_REASONS
    from frontdesk.console.templating import CONTACT_TAG_TEXT
    from frontdesk.handoff.packets import CONTACT_TAGS
    from frontdesk.improvement.clusters import REASON_LABELS as GAP_LABELS
    from frontdesk.knowledge.injection.instructions import REASON_LABELS as WITHHELD_LABELS

    assert GAP_REASONS == GAP_LABELS
    assert WITHHELD_REASONS == WITHHELD_LABELS
    assert dict(CONTACT_TAGS) == CONTACT_TAG_TEXT


def test_a_refusal_raised_deep_down_is_told_in_the_readers_language() -> None:
    """Sign-in and invitation refusals keep their English text (logs, `str`) and carry
    the catalog message, so the page shows them in the reader's language."""
    from frontdesk.console.i18n import Messages
    from frontdesk.console.invite_pages import InviteRejected
    from frontdesk.console.oidc import OidcRefused

    refused = OidcRefused("The identity provider has not verified %(email)s.", email="a@b.test")
    assert str(refused) == "The identity provider has not verified a@b.test."
    assert refused.told(Messages("de")) == "Der Identitätsanbieter hat a@b.test nicht bestätigt."
    rejected = InviteRejected("This invitation is for %(email)s.", email="a@b.test")
    assert rejected.told(Messages("fr")) == "Cette invitation est destinée à a@b.test."
