"""Language of a visitor message, among the eight languages Frontdesk speaks.

lingua is accurate on sentences but guesses on one or two words ("ok", "merci",
"hallo"), which are common in chat. Short messages are therefore first matched
against a small lexicon of distinctive chat words, and a message lingua is unsure
about keeps the caller's default (the site's or the conversation's language).
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

from frontdesk.text.stopwords import STOPWORDS

if TYPE_CHECKING:
    from lingua import LanguageDetector

SUPPORTED = ("en", "ru", "fr", "de", "es", "it", "pt", "nl")


def _words(text: str) -> list[str]:
    return text.split()


# Words that, alone or in a short message, point to one language only.
_SHORT_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        _words(
            "hi hey hello thanks thank you yes please bye goodbye cheers sure yeah nope okay "
            "what how why where when who price pricing demo help cost thx"
        )
    ),
    "ru": frozenset(_words("привет спасибо да нет пока здравствуйте пожалуйста ок хорошо")),
    "fr": frozenset(
        _words(
            "bonjour salut merci oui non bonsoir coucou revoir prix combien pourquoi comment "
            "quoi aide démo d'accord"
        )
    ),
    "de": frozenset(
        _words("guten tag danke bitte nein tschüss servus moin preis viel warum hilfe genau gerne")
    ),
    "es": frozenset(
        _words(
            "hola gracias sí buenos buenas días adiós precio cuánto cuesta ayuda vale claro "
            "qué cómo"
        )
    ),
    "it": frozenset(
        _words(
            "ciao grazie buongiorno buonasera salve prezzo costa quanto aiuto perché certo "
            "arrivederci"
        )
    ),
    "pt": frozenset(
        _words(
            "olá oi obrigado obrigada sim não bom dia tchau preço custa quanto ajuda valeu tudo bem"
        )
    ),
    "nl": frozenset(
        _words(
            "hoi bedankt dankjewel dankuwel doei prijs hoeveel kost hulp waarom graag alsjeblieft"
        )
    ),
}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_MIN_CONFIDENCE = 0.5

_detector: LanguageDetector | None = None
_lock = threading.Lock()


def _get_detector() -> LanguageDetector:
    global _detector
    if _detector is None:
        with _lock:
            if _detector is None:
                from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

                languages = [
                    Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper()))
                    for code in SUPPORTED
                ]
                _detector = LanguageDetectorBuilder.from_languages(*languages).build()
    return _detector


def _short_vote(words: list[str]) -> str | None:
    votes = {lang: sum(w in lexicon for w in words) for lang, lexicon in _SHORT_WORDS.items()}
    best = max(votes.values())
    winners = [lang for lang, count in votes.items() if count == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


# lingua's confidence at which its guess stands whatever the function words say.
CERTAIN = 0.7
# Function words a message needs, more than any other language's, to name its language;
# a message of `CHAT_PHRASE_WORDS` words or fewer is a chat phrase ("Ok, a presto!"), read by
# its chat words instead.
FUNCTION_WORDS = 2
CHAT_PHRASE_WORDS = 3


def function_word_vote(words: list[str]) -> str | None:
    """The one language whose function words the message uses most, with at least
    `FUNCTION_WORDS` of them and more than any other language; None when none does."""
    votes = {lang: sum(word in STOPWORDS[lang] for word in words) for lang in SUPPORTED}
    ranked = sorted(votes.values(), reverse=True)
    if ranked[0] < FUNCTION_WORDS or ranked[0] == ranked[1]:
        return None
    return max(votes, key=votes.__getitem__)


def language_confidences(text: str) -> dict[str, float]:
    """lingua's confidence (0-1, summing to 1) for each SUPPORTED language of `text`."""
    confidences = _get_detector().compute_language_confidence_values(text)
    return {c.language.iso_code_639_1.name.lower(): c.value for c in confidences}


def detect_language(text: str, default: str = "en", *, sure: float = _MIN_CONFIDENCE) -> str:
    """ISO 639-1 code of `text` among SUPPORTED; `default` when the text can't tell
    (lingua's confidence under `sure`, and the default nearly as plausible or the text
    short)."""
    words = [w.lower() for w in _WORD.findall(text)]
    letters = sum(len(w) for w in words)
    if letters == 0:
        return default
    cyrillic = len(_CYRILLIC.findall(text))
    if cyrillic > letters / 2:
        return "ru"
    if len(words) <= CHAT_PHRASE_WORDS and (voted := _short_vote(words)) is not None:
        return voted
    if letters < 4:
        return default
    scores = language_confidences(text)
    best = max(scores, key=lambda lang: scores[lang])
    worded = function_word_vote(words) if len(words) > CHAT_PHRASE_WORDS else None
    if scores[best] < CERTAIN and worded not in (None, best):
        # lingua guesses on a few words ("Y a-t-il un parking ?": English, 0.52); the
        # function words ("y", "il", "un", "pour", "les") name the language outright.
        return worded
    if scores[best] >= sure:
        return best
    # Unsure: the caller's language wins if lingua finds it nearly as plausible.
    if scores.get(default, 0.0) >= 0.6 * scores[best] or len(words) < 4:
        return default
    return best
