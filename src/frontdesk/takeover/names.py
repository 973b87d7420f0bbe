"""The name an operator shows to the visitor during a live takeover must not pass for the
assistant: the visitor has to know whether a person or the assistant is writing.

What counts as "the assistant" is what the widget calls it (its `bot` label in every
language it speaks) and the site itself (its `name`). Names are compared after NFKC,
case folding and removal of invisible characters, combining marks, spaces and
punctuation, so full-width letters, zero-width joiners or "A.s.s.i.s.t.a.n.t" do not slip
through; a word that mixes alphabets (a Cyrillic "А" among Latin letters) is refused too,
and so is a name typed wholly in look-alike letters of another alphabet ("АСМЕ" in
Cyrillic for a site called Acme), compared as the Latin letters it imitates.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from frontdesk.guard.lookalikes import as_latin
from frontdesk.widget import widget_texts

# Scripts that one person's name legitimately mixes (Japanese: kanji with kana).
_EAST_ASIAN = {"CJK", "HIRAGANA", "KATAKANA", "HANGUL"}


class ImpersonatingName(ValueError):
    """A display name that would pass for the assistant or the site itself."""


def skeleton(text: str) -> str:
    """`text` as compared: NFKC, case-folded, only letters and digits, no marks."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(char for char in folded if unicodedata.category(char)[0] in "LN")


@lru_cache(maxsize=1)
def assistant_words() -> frozenset[str]:
    """Skeletons of what the widget calls the assistant, in each of its languages."""
    catalog = widget_texts()
    labels = [*catalog.formal["bot"].values(), *catalog.informal["bot"].values()]
    return frozenset(skeleton(label) for label in labels if skeleton(label))


def _shapes(text: str) -> frozenset[str]:
    """The skeletons `text` can be read as: as typed, and as the Latin letters its
    look-alike letters imitate."""
    return frozenset(shape for shape in (skeleton(text), skeleton(as_latin(text))) if shape)


def _script(char: str) -> str:
    script = unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]
    return "CJK" if script in _EAST_ASIAN else script


def _mixes_alphabets(name: str) -> bool:
    for word in re.split(r"[\W\d_]+", unicodedata.normalize("NFKC", name)):
        letters = [char for char in word if unicodedata.category(char).startswith("L")]
        if len({_script(char) for char in letters}) > 1:
            return True
    return False


def check_display_name(name: str, site_name: str) -> str:
    """`name` trimmed, or `ImpersonatingName` saying what to change."""
    name = " ".join(name.split())
    shapes = _shapes(name)
    words = assistant_words() | {skeleton(as_latin(word)) for word in assistant_words()}
    if any(word in shape for shape in shapes for word in words):
        raise ImpersonatingName(
            "Choose another name: visitors would take it for the assistant. "
            "Use your own name, e.g. your first name."
        )
    if shapes & _shapes(site_name):
        raise ImpersonatingName(
            f"Choose another name: {site_name} is the site's own name. "
            "Visitors already see who you work for; use your own name."
        )
    if _mixes_alphabets(name):
        raise ImpersonatingName(
            "Choose another name: a word mixes alphabets (for example a Cyrillic letter "
            "among Latin ones). Type it in one alphabet."
        )
    return name


def safe_display_name(name: str, site_name: str) -> str:
    """`name` if it passes `check_display_name`, else "" (the widget then says "Team")."""
    try:
        return check_display_name(name, site_name)
    except ImpersonatingName:
        return ""
