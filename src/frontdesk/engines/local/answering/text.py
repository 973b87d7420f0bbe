"""Text helpers shared by the local answering jobs: content terms, languages, citations.

Content terms are the stemmed words of a text minus function words (articles, pronouns,
auxiliaries, question words and a few verbs every help-centre question carries), so
that "How do I connect Salesforce?" and "Connecting Salesforce takes minutes" share
`connect` and `salesforc`. Stemming is `frontdesk.text.lexical.terms`, the same
function the lexical index uses. Term sets of passages are cached: every job of a turn
reads the same few chunks.
"""

from __future__ import annotations

import re
from functools import lru_cache

from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.text.lexical import STEMMER_LANGUAGES, terms
from frontdesk.text.stopwords import ALL_STOPWORDS, STOPWORDS

LANGUAGES = ("en", "ru", "fr", "de", "es", "it", "pt", "nl")


_WORD = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
CODE = re.compile(r"\b[A-Za-z]{1,6}-?\d{2,6}\b")
_CITATION = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_CITATION_STRIP = re.compile(r"\s*\[\d{1,3}(?:\s*,\s*\d{1,3})*\]")
_MARKUP = re.compile(r"[*`_]{1,3}")
_SENTENCE_END = re.compile(
    r"(?<=[.!?…])[\"'»”)\]]*\s+(?=[*_`]*[\"'«“(\[]?[*_`]*[A-ZА-ЯЁÀ-ÖØ-Þ0-9¿¡])"
)


def split_sentences(line: str) -> list[str]:
    """Sentences of one line of text (a sentence starts with a capital or a digit)."""
    return [part.strip() for part in _SENTENCE_END.split(line) if part.strip()]


def words(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower().replace("_", " ")) if len(word) <= 40]


def guess_language(text: str, default: str = "en") -> str:
    """The language whose function words `text` uses most (Cyrillic text: Russian)."""
    tokens = words(text)
    if not tokens:
        return default
    if sum(1 for word in tokens if _CYRILLIC.search(word)) * 2 > len(tokens):
        return "ru"
    votes = {lang: sum(word in STOPWORDS[lang] for word in tokens) for lang in LANGUAGES}
    best = max(votes.values())
    winners = [lang for lang in LANGUAGES if votes[lang] == best]
    if best == 0 or default in winners:
        return default if default in STEMMER_LANGUAGES else "en"
    return winners[0]


_QUESTION_START = re.compile(
    # "whats", "hows": visitors who type fast drop the apostrophe
    r"^\W*(?:what|how|why|when|where|which|who|whom|whose|whats|hows|wheres|whos|"
    r"can|could|do|does|did|is|are|was|will|would|should|shall|may|have|has|"
    r"как|что|почему|где|когда|какие|какой|какая|каков\w*|можно|сколько|зачем|ли|есть ли|"
    r"подскажите|"
    r"comment|pourquoi|quand|où|quel|quelle|quels|quelles|est-ce|combien|puis-je|peut-on|"
    r"wie|was|warum|wann|wo|welche|welcher|welches|kann|können|gibt|ist|sind|"
    r"cómo|qué|por qué|cuándo|dónde|cuál|cuáles|puedo|cuánto|hay|"
    r"come|perché|quando|dove|quale|quali|posso|quanto|"
    r"como|porque|onde|qual|quais|quanto|"
    r"hoe|waarom|wanneer|waar|welke|kan|kunnen|is|zijn)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """A question mark, or an opening question word ("how do I cancel" without one)."""
    stripped = text.strip()
    return stripped.endswith(("?", "？", "¿")) or _QUESTION_START.match(stripped) is not None


def stem_language(language: str) -> str:
    return language if language in STEMMER_LANGUAGES else "en"


@lru_cache(maxsize=1024)
def passage_language(text: str, default: str) -> str:
    """The language a passage is written in (`default` when its words do not tell). Read
    by the language detector, not by function words: a price table has almost none, and
    the "E" of "E-Bike" is an Italian one."""
    return _passage_language(text[:1500], default)


@lru_cache(maxsize=4096)
def _passage_language(text: str, default: str) -> str:
    from frontdesk.text.language import detect_language

    return detect_language(text, default)


def in_other_script(text: str, language: str) -> bool:
    """A Cyrillic sentence for a visitor who writes in a Latin-script language, or a Latin
    sentence (function words, not just product names) for a Russian-speaking one: never
    quoted beside the visitor's own language."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    cyrillic = sum(1 for ch in letters if _CYRILLIC.match(ch))
    if language != "ru":
        return cyrillic * 2 > len(letters)
    latin_function_words = sum(
        1 for word in words(text) if word in ALL_STOPWORDS and not _CYRILLIC.search(word)
    )
    return cyrillic == 0 and latin_function_words >= 2


@lru_cache(maxsize=4096)
def _content_terms(text: str, language: str) -> tuple[str, ...]:
    kept = [word for word in words(text) if word not in ALL_STOPWORDS]
    return tuple(terms(" ".join(kept), stem_language(language))) if kept else ()


def content_terms(text: str, language: str = "en") -> tuple[str, ...]:
    """Stemmed content terms of `text`, in order, duplicates kept."""
    return _content_terms(text, language)


def term_set(text: str, language: str = "en") -> frozenset[str]:
    return frozenset(_content_terms(text, language))


def content_words(text: str) -> list[str]:
    """Surface words of `text` that are not function words (original case kept)."""
    return [
        word
        for word in re.findall(r"[\w][\w.+-]*[\w]|\w", text)
        if word.lower() not in ALL_STOPWORDS
    ]


_SUPPORT_VERB = re.compile(
    r"(\b(?:do|does|did|can|will|would)\b(?:\s+[\w-]+){1,3}?\s+)supports?\b|\bsupported\b",
    re.IGNORECASE,
)


def question_terms(question: str, language: str = "en") -> frozenset[str]:
    """Content terms of a question; "does it support X" asks about X, not about support."""
    return term_set(_SUPPORT_VERB.sub(lambda m: m.group(1) or "", question), language)


def chunk_terms(chunk: RetrievedChunk, language: str = "en") -> frozenset[str]:
    """Content terms of a passage with its title and heading path."""
    heading = " ".join((chunk.title, *chunk.heading_path))
    return term_set(heading, language) | term_set(chunk.content, language)


def heading_terms(chunk: RetrievedChunk, language: str = "en") -> frozenset[str]:
    return term_set(" ".join((chunk.title, *chunk.heading_path)), language)


def coverage(needed: frozenset[str], present: frozenset[str]) -> float:
    """Share of `needed` found in `present` (1.0 when nothing is needed)."""
    return len(needed & present) / len(needed) if needed else 1.0


def codes(text: str) -> frozenset[str]:
    """Product codes such as `ERR-1004` or `E20`, upper-cased, without the hyphen."""
    return frozenset(code.upper().replace("-", "") for code in CODE.findall(text))


def cited_indices(answer: str) -> set[int]:
    """The 1-based passage numbers cited as `[n]` (or `[n, m]`) in `answer`."""
    found: set[int] = set()
    for group in _CITATION.findall(answer):
        found.update(int(part) for part in group.split(","))
    return found


def strip_citations(text: str) -> str:
    return _CITATION_STRIP.sub("", text).strip()


def plain(text: str) -> str:
    """`text` without Markdown emphasis and code marks."""
    return _MARKUP.sub("", text)


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z0-9]{2,}|[A-Z]{2,}[a-z]*)\b")


# Languages that capitalise every noun: a capital there marks a noun ("Motor",
# "Schlauchwechsel"), not a name; only capitals inside a word (SAML, HubSpot) or digits do.
NOUN_CAPITALS = frozenset({"de"})


def proper_names(question: str, language: str = "") -> set[str]:
    """Names the visitor asks about (capitalised mid-sentence: "Kubernetes", "HIPAA").

    A name that no retrieved passage mentions means the passages are about something
    else, however many ordinary words they share with the question. In `NOUN_CAPITALS`
    languages only words shaped like names count.
    """
    # Every line starts a sentence: a subject line above the message ("Noonan syndrome\n
    # What are...") must not make "What" a name.
    names: set[str] = set()
    lines = [line.strip() for line in question.splitlines() if line.strip()]
    if len(lines) > 1 and _is_subject_line(lines[0]):
        lines = lines[1:]  # an e-mail's subject ("Ear Ache"): the body says what is asked
    for line in lines:
        line = _PLACEHOLDER.sub(" ", line)
        if _shouted(line):
            continue
        names.update(m.group(1) for m in _NAME.finditer(line))
    if language in NOUN_CAPITALS:
        return {name for name in names if any(c.isupper() or c.isdigit() for c in name[1:])}
    return names


# Placeholders of redacted text ("treated on [DATE]", "{NAME}") name nothing.
_PLACEHOLDER = re.compile(r"\[[A-Z_ ]+\]|\{[A-Z_ ]+\}|<[A-Z_ ]+>")
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
SHOUTED_LINE = 0.7  # share of a line's words in capitals: the visitor shouts


def _is_subject_line(line: str) -> bool:
    """A short first line with no sentence end above a message body."""
    return len(_LETTER_WORD.findall(line)) <= SUBJECT_WORDS and not line.rstrip().endswith(
        (".", "?", "!", "？", ":")
    )


SUBJECT_WORDS = 8


def _shouted(line: str) -> bool:
    """A line in capitals ("CAUSE OF A COLD? WHY ARE SOME PEOPLE..."): its capitals are
    the visitor's style, not names. Title Case is not enough ("Are you SOC 2 Type II
    certified?" names three things)."""
    found = _LETTER_WORD.findall(line)
    if len(found) < 4:
        return False  # "CVID", "Okta SSO?": too short to tell a style from names
    return sum(1 for word in found if word.isupper()) >= SHOUTED_LINE * len(found)
