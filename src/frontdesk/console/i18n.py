"""The console's language: which one an operator reads, and its gettext catalogs.

English is the source language (the msgids in the templates and the page modules); the
other seven of the widget's languages each have a catalog in
`locale/<lang>/LC_MESSAGES/messages.po`. The `.po` files are read at startup with Babel's
own parser instead of shipping compiled `.mo` files: a fresh clone, an editable install
and a wheel all work without a build step, and a catalog can never be stale against its
compiled twin. `make catalogs` re-extracts the strings and updates every catalog
(docs/console.md).

An operator's explicit choice (stored on the operator) wins; otherwise the browser's
Accept-Language decides, negotiated with CLDR's rules; otherwise English.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

# The widget's languages, the first the source language and the default.
CONSOLE_LOCALES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru")
SOURCE_LOCALE = CONSOLE_LOCALES[0]
LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "messages"


def N_(message: str) -> str:
    """Marks a message for extraction where it is defined; it is translated where shown."""
    return message


# The operator roles as the console names them (the stored values stay English).
ROLE_NAMES = {"owner": N_("owner"), "agent": N_("agent"), "viewer": N_("viewer")}


def catalog_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(locale: str) -> NullTranslations:
    """The gettext translations of one console language (English: the msgids as they
    are). Fuzzy entries are not used, like gettext's own tools."""
    if locale == SOURCE_LOCALE or locale not in CONSOLE_LOCALES:
        return NullTranslations()
    with catalog_path(locale).open("rb") as po:
        catalog = read_po(po, locale=locale, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def language_name(locale: str) -> str:
    """A language's name in that language, from CLDR ("Deutsch", "français")."""
    name = Locale.parse(locale).get_display_name(locale) or locale
    return name[:1].upper() + name[1:]


def browser_locale(accept_language: str) -> str:
    """The console language a browser asks for (CLDR's negotiation via Babel), English
    when it asks for none of the console's."""
    preferred = []
    for part in accept_language.split(","):
        tag = part.split(";")[0].strip().replace("-", "_")
        if tag and tag != "*":
            preferred.append(tag)
    chosen = Locale.negotiate(preferred, CONSOLE_LOCALES, sep="_")
    if chosen is None:
        # "de-DE" alone negotiates to nothing against a bare "de": try the language part.
        bare = [tag.split("_")[0] for tag in preferred]
        chosen = Locale.negotiate(bare, CONSOLE_LOCALES, sep="_")
    return str(chosen) if chosen is not None else SOURCE_LOCALE


def supported(locale: str | None) -> str | None:
    """`locale` if the console speaks it, else None (an unknown stored value is ignored)."""
    return locale if locale in CONSOLE_LOCALES else None


def console_locale(accept_language: str, chosen: str | None) -> str:
    """The language of a page: the operator's choice, else the browser's."""
    return supported(chosen) or browser_locale(accept_language)


@dataclass(frozen=True)
class Messages:
    """The console's text in one language, for messages built in Python (errors and
    notices handed to a template). Placeholders are named: `gettext("Try again in
    %(wait)s seconds.", wait=30)`."""

    locale: str

    def gettext(self, message: str, **values: Any) -> str:
        text = translations(self.locale).gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, count: int, **values: Any) -> str:
        text = translations(self.locale).ngettext(singular, plural, count)
        return text % {"count": count, **values}


class ToldError(Exception):
    """A refusal the console shows in the reader's language: a catalog message (marked
    with `N_`) and its values, told with `told(t)`."""

    def __init__(self, message: str, **values: str) -> None:
        super().__init__(message % values if values else message)
        self.message = message
        self.values = values

    def told(self, t: Messages) -> str:
        return t.gettext(self.message, **self.values)


# The words the console's scripts write (live.js, console.js), sent with each page as
# JSON in the operator's language; placeholders are filled in by the script.
SCRIPT_TEXTS = {
    "visitor": N_("Visitor"),
    "assistant": N_("Assistant"),
    "operator": N_("Operator"),
    "you": N_("You"),
    "visitor_said": N_("Visitor: %(text)s"),
    "request_failed": N_("%(action)s failed (%(status)s)"),
    "joined": N_("%(name)s joined"),
    "joined_from": N_("%(name)s from %(company)s joined"),
    "someone_joined": N_("An operator joined"),
    "mine": N_("You own this chat: the assistant is silent until you release it."),
    "taken": N_("%(name)s owns this chat."),
    "taken_by_someone": N_("Another operator owns this chat."),
    "back": N_("Back to the assistant"),
    "back_from": N_("Back to the assistant (%(name)s left)"),
    "answering_again": N_("The assistant is answering this visitor again."),
    "closed_note": N_("Conversation closed"),
    "closed": N_("This conversation is closed."),
    "waiting_note": N_("The visitor is waiting for a person."),
    "async_note": N_("Nobody joined: the visitor got the asynchronous path (%(reason)s)."),
    "released": N_(
        "You released the chat: the assistant answers again, with your exchange in its memory."
    ),
    "text_kept": N_("%(error)s: your text is still in the box."),
    "drafting": N_("Drafting from the knowledge base…"),
    "no_draft": N_("No draft: the knowledge base has nothing on this."),
    "draft_ready": N_("A draft from the knowledge base: edit it before sending."),
    "ringing": N_("A visitor is waiting for a person"),
    "answer_within": N_("Answer within %(minutes)s min or they get the e-mail follow-up."),
    "join": N_("Join"),
    "dismiss": N_("Dismiss"),
    "update_failed": N_("The last update failed (%(status)s). It is retried automatically."),
}


@cache
def script_texts(locale: str) -> dict[str, Any]:
    """The scripts' words in `locale`. A text with a count maps each CLDR plural category
    ("one", "few", "many", "other") to its form: the script picks one with the browser's
    `Intl.PluralRules` for the same language."""
    text = translations(locale)
    words: dict[str, Any] = {key: text.gettext(message) for key, message in SCRIPT_TEXTS.items()}
    category = Locale.parse(locale).plural_form
    presence: dict[str, str] = {}
    for count in range(200):  # every integer category shows up below 200
        presence.setdefault(
            category(count),
            text.ngettext("%(count)s operator available", "%(count)s operators available", count),
        )
    words["presence"] = presence
    return words
