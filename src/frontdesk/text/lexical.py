"""Language-aware terms for the lexical index: lower-case words, stemmed with PyStemmer.

Each word is stemmed by the language of its script: Cyrillic words with the Russian
stemmer, Latin words with the text's language (English when that language is not
written in Latin script). A document is stemmed in its own language
(`text_language`, detected, the site's language when unsure) and a question in its own,
so on a site with English, German and Russian pages "prices" finds "pricing",
"Rechnungen" finds "Rechnung" and "запросы" finds "запрос".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

STEMMER_LANGUAGES: dict[str, str] = {
    "en": "english",
    "ru": "russian",
    "fr": "french",
    "de": "german",
    "es": "spanish",
    "it": "italian",
    "pt": "portuguese",
    "nl": "dutch",
}
_CYRILLIC_LANGUAGES = frozenset({"ru"})
_WORD = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
MAX_TERM_LENGTH = 40
_DETECT_CHARS = 2_000  # enough for a confident guess; detection cost grows with length


@lru_cache(maxsize=16)
def _stemmer(language: str) -> Any:
    import Stemmer

    return Stemmer.Stemmer(STEMMER_LANGUAGES[language])


def _latin_language(language: str) -> str:
    if language not in STEMMER_LANGUAGES:
        raise ValueError(
            f"unsupported language {language!r} (supported: {', '.join(STEMMER_LANGUAGES)})"
        )
    return "en" if language in _CYRILLIC_LANGUAGES else language


def _words(text: str) -> list[str]:
    """The words `terms` stems: lower case, `_` a separator, none longer than the limit."""
    return [
        word
        for word in _WORD.findall(text.lower().replace("_", " "))
        if len(word) <= MAX_TERM_LENGTH
    ]


def terms(text: str, language: str = "en") -> list[str]:
    """Stemmed terms of `text` in order (duplicates kept, `_` treated as a separator)."""
    latin = _latin_language(language)
    words = _words(text)
    cyrillic = [word for word in words if _CYRILLIC.search(word)]
    stems: dict[str, str] = {}
    if cyrillic:
        stems.update(zip(cyrillic, _stemmer("ru").stemWords(cyrillic), strict=True))
    latin_words = [word for word in words if word not in stems]
    if latin_words:
        stems.update(zip(latin_words, _stemmer(latin).stemWords(latin_words), strict=True))
    return [stems[word] for word in words]


def lexical_text(text: str, language: str = "en") -> str:
    """The space-separated stemmed form of `text` stored in the lexical index."""
    return " ".join(terms(text, language))


def heading_terms(body: str, heading_path: Sequence[str]) -> str:
    """The heading field of a chunk: the terms of its heading path (title and headings).

    `body` is the chunk's lexical text, `lexical_text(chunk.indexed_text, language)`,
    which begins with the heading path; its first terms are therefore the path's terms,
    stemmed in the document's language. Taking them from the body needs no language (the
    migration that adds the field to existing chunks has none) and cannot disagree with
    it: a word is one term whatever the stemmer."""
    path = " > ".join(part for part in heading_path if part)
    count = len(_words(path)) if path else 0
    return " ".join(body.split()[:count])


def query_terms(text: str, language: str = "en", max_terms: int = 32) -> list[str]:
    """Distinct stemmed terms of a query, in order, at most `max_terms`."""
    return list(dict.fromkeys(terms(text, language)))[:max_terms]


# A passage's language is read from its first characters: a few sentences are enough for
# a confident guess, and detection costs grow with length.
PASSAGE_LANGUAGE_CHARS = 400


def passage_language(content: str, default: str = "en") -> str:
    """The language of one passage (a chunk), `default` when it can't tell."""
    return text_language(content[:PASSAGE_LANGUAGE_CHARS], default)


def text_language(text: str, default: str = "en") -> str:
    """The stemming language of a document or a question: detected among the stemmer
    languages (lingua, see `language.py`), `default` when it can't tell."""
    from frontdesk.text.language import detect_language

    fallback = default if default in STEMMER_LANGUAGES else "en"
    detected = detect_language(text[:_DETECT_CHARS], fallback)
    return detected if detected in STEMMER_LANGUAGES else fallback
