"""Questions for a site's trust report, made from its own pages (pure: no I/O).

Three kinds, each with what the assistant should do with it:

- `generated` (should be answered, from the page it was made from): a heading becomes a
  question ("Opening hours" → "What can you tell me about opening hours?"; a heading that
  already is a question is asked as it is); a sentence becomes "What is X?" when it
  defines X ("Our refund policy is …" → "What is your refund policy?"), else a question
  about its most distinctive two-to-four-word phrase. In the page's language.
- `unanswerable` (should be abstained): questions that sound like the site — they name its
  own most frequent title words — but ask for a fact the content does not hold: each
  template carries anchor words (a far-away city, a year, an obscure device) and is only
  used when no anchor occurs anywhere in the site's text.
- `off_topic` (should be refused): everyday requests no company site answers. They are
  not `knowledge.topic.PROBES`: those calibrate each site's on-topic bar, so asking them
  again would measure the calibration against itself. A probe whose anchor word occurs
  in the site's text is dropped (a cooking school may well answer "how long to boil an egg").

Selection is deterministic (ordered by hashes), so two runs on the same content ask the
same questions and the trend compares like with like.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from frontdesk.evals.text_scores import content_tokens

QuestionKind = Literal["generated", "unanswerable", "off_topic"]
KINDS: tuple[QuestionKind, ...] = ("generated", "unanswerable", "off_topic")


@dataclass(frozen=True)
class SourcePassage:
    """One stored passage of a page: its headings and text, in the page's language."""

    doc_id: str
    title: str
    content: str
    language: str
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrustQuestion:
    kind: QuestionKind
    text: str
    language: str
    method: str  # heading | sentence | llm | template | probe
    doc_id: str = ""  # the page a generated question came from
    title: str = ""
    source: str = ""  # the heading or sentence it was made from

    def as_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "text": self.text,
            "language": self.language,
            "method": self.method,
            "doc_id": self.doc_id,
            "title": self.title,
            "source": self.source,
        }


@dataclass(frozen=True)
class QuestionCounts:
    generated: int = 30
    unanswerable: int = 12
    off_topic: int = 12


# -- generated: from headings -----------------------------------------------------------
HEADING_TEMPLATES: dict[str, str] = {
    "en": "What can you tell me about {h}?",
    "ru": "Что вы можете рассказать на тему «{h}»?",
    "es": "¿Qué me puede decir sobre {h}?",
    "de": "Was können Sie mir zum Thema „{h}“ sagen?",
    "fr": "Que pouvez-vous me dire sur {h} ?",
    "it": "Cosa mi può dire su {h}?",
    "pt": "O que pode me dizer sobre {h}?",
    "nl": "Wat kunt u me vertellen over {h}?",
}
PHRASE_TEMPLATES: dict[str, str] = {
    "en": "What should I know about {h}?",
    "ru": "Что нужно знать про «{h}»?",
    "es": "¿Qué debo saber sobre {h}?",
    "de": "Was sollte ich über {h} wissen?",
    "fr": "Que dois-je savoir sur {h} ?",
    "it": "Cosa devo sapere su {h}?",
    "pt": "O que devo saber sobre {h}?",
    "nl": "Wat moet ik weten over {h}?",
}
# Headings that name a part of a page, not a subject a visitor asks about.
STRUCTURAL_HEADINGS = frozenset(
    {
        "overview", "introduction", "contents", "table of contents", "summary", "faq",
        "faqs", "more information", "see also", "references", "resources", "related",
        "related links", "contact", "contact us", "home", "menu", "navigation", "footer",
        "содержание", "введение", "обзор", "ссылки", "índice", "introducción", "resumen",
        "inhalt", "einleitung", "übersicht", "sommaire", "introduction générale",
    }
)  # fmt: skip
# First words of a heading that is itself a question.
QUESTION_OPENERS: dict[str, frozenset[str]] = {
    "en": frozenset({"what", "how", "why", "when", "where", "who", "which", "can", "do",
                     "does", "is", "are", "should", "will"}),
    "ru": frozenset({"что", "как", "почему", "когда", "где", "кто", "какой", "какие",
                     "можно", "зачем", "сколько"}),
    "es": frozenset({"qué", "cómo", "por", "cuándo", "dónde", "quién", "cuál", "puedo"}),
    "de": frozenset({"was", "wie", "warum", "wann", "wo", "wer", "welche", "kann"}),
    "fr": frozenset({"que", "comment", "pourquoi", "quand", "où", "qui", "quel", "quelle"}),
}  # fmt: skip
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_LETTER = re.compile(r"[^\W\d_]")
_CAPITALISED_NOUNS = frozenset({"de"})  # keep the heading's first letter as it is


def _clean_heading(heading: str) -> str:
    text = re.sub(r"\s+", " ", heading).strip(" :.-–—")
    return re.sub(r"\s+\?", "?", text)


def _lower_first(text: str, language: str) -> str:
    words = text.split(" ")
    first = words[0]
    named = [w for w in words if len(w) > 2 and w[:1].isalpha()]
    title_case = len(named) > 1 and all(w[:1].isupper() for w in named)
    if (
        language in _CAPITALISED_NOUNS
        or title_case
        or first.isupper()
        or any(c.isupper() for c in first[1:])
    ):
        return text  # an acronym, a name in Title Case, a MixedCase brand, German nouns
    return text[:1].lower() + text[1:]


def heading_question(heading: str, language: str) -> str | None:
    """A visitor's question about a heading; None for headings that are no subject."""
    text = _clean_heading(heading)
    words = text.split()
    if not 1 <= len(words) <= 14 or len(_LETTER.findall(text)) < 3:
        return None
    if text.casefold().rstrip("?") in STRUCTURAL_HEADINGS:
        return None
    if text.endswith("?"):
        return re.sub(r"\?+$", "?", text)
    if words[0].casefold() in QUESTION_OPENERS.get(language, ()):
        return f"{text}?"  # a question whose page left off the mark
    template = HEADING_TEMPLATES.get(language, HEADING_TEMPLATES["en"])
    return template.format(h=_lower_first(text, language))


# -- generated: from sentences ----------------------------------------------------------
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?…])\s+|\n+")
# "X is/are …" in languages whose definitions read that way; X at most five words.
_DEFINITIONS: dict[str, tuple[re.Pattern[str], dict[str, str]]] = {
    "en": (
        re.compile(r"^(?P<x>(?:[\w'’-]+\s){0,4}[\w'’-]+)\s(?P<cop>is|are)\s\S", re.IGNORECASE),
        {"is": "What is {x}?", "are": "What are {x}?"},
    ),
    "es": (
        re.compile(r"^(?P<x>(?:[\w'’-]+\s){0,4}[\w'’-]+)\s(?P<cop>es|son)\s\S", re.IGNORECASE),
        {"es": "¿Qué es {x}?", "son": "¿Qué son {x}?"},
    ),
    "de": (
        re.compile(r"^(?P<x>(?:[\w'’-]+\s){0,4}[\w'’-]+)\s(?P<cop>ist|sind)\s\S", re.IGNORECASE),
        {"ist": "Was ist {x}?", "sind": "Was sind {x}?"},
    ),
    "fr": (
        re.compile(r"^(?P<x>(?:[\w'’-]+\s){0,4}[\w'’-]+)\s(?P<cop>est|sont)\s\S", re.IGNORECASE),
        {"est": "Qu'est-ce que {x} ?", "sont": "Que sont {x} ?"},
    ),
    "ru": (
        re.compile(r"^(?P<x>(?:[\w-]+\s){0,4}[\w-]+)\s(?P<cop>—|–|-|это|является)\s\S"),
        {"—": "Что такое {x}?", "–": "Что такое {x}?", "-": "Что такое {x}?",
         "это": "Что такое {x}?", "является": "Что такое {x}?"},
    ),
}  # fmt: skip
# A definition's subject must be a thing, not a pronoun or a clause ("This is", "It is").
_NOT_SUBJECTS = frozenset(
    {
        "it", "this", "that", "there", "here", "he", "she", "they", "we", "you", "i", "what",
        "which", "who", "where", "when", "how", "why", "these", "those", "one", "each",
        "most", "all", "some", "many", "any", "every", "both", "few", "several", "if",
        "because", "although", "si", "cuando", "porque", "wenn", "weil", "quand", "если",
        "когда", "потому",
        "esto", "eso", "esta", "este", "ello", "hay", "es", "das", "dies", "er", "sie",
        "ce", "cela", "il", "elle", "c'est", "это", "он", "она", "они", "мы", "вы", "что",
        "кто", "где", "как",
    }
)  # fmt: skip
_POSSESSIVES = {"our": "your", "Our": "Your", "nuestro": "su", "nuestra": "su",
                "nuestros": "sus", "nuestras": "sus", "unser": "Ihr", "unsere": "Ihre",
                "notre": "votre", "nos": "vos"}  # fmt: skip


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"[*_`]{1,3}")


def plain(text: str) -> str:
    """Markdown links, emphasis and code marks removed (the words stay)."""
    return _EMPHASIS.sub("", _LINK.sub(r"\1", text))


def _sentences(text: str) -> list[str]:
    lines = [plain(line) for line in text.splitlines() if not _HEADING_LINE.match(line)]
    found = []
    for part in _SENTENCE_SPLIT.split("\n".join(lines)):
        sentence = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", part).strip()
        words = sentence.split()
        if 6 <= len(words) <= 40 and not sentence.endswith("?") and "http" not in sentence:
            found.append(sentence)
    return found


def definition_question(sentence: str, language: str) -> str | None:
    """ "X is …" → "What is X?" when X is a short noun phrase; else None."""
    rule = _DEFINITIONS.get(language)
    if rule is None:
        return None
    pattern, templates = rule
    match = pattern.match(sentence)
    if match is None:
        return None
    after = sentence[match.end("cop") :].split()
    if language == "en" and after and after[0].casefold().endswith("ed"):
        return None  # "are returned": a passive verb, not a definition
    subject = match.group("x")
    words = subject.split()
    if words[0].casefold() in _NOT_SUBJECTS or words[-1].casefold() in _NOT_SUBJECTS:
        return None
    if not content_tokens(subject):
        return None
    words = [_POSSESSIVES.get(word, word) for word in words]
    subject = _lower_first(" ".join(words), language)
    copula = match.group("cop")
    return templates[copula if language == "ru" else copula.casefold()].format(x=subject)


# Word endings that mark a verb far more often than a noun (a phrase about "which arrives"
# or "helps cells respond" is no subject a visitor asks about).
_VERB_ENDINGS: dict[str, tuple[str, ...]] = {
    "en": ("ing", "ed"),
    "ru": ("ть", "ться", "тся", "ет", "ит", "ют", "ят", "ала", "ило", "ились"),
    "es": ("ando", "iendo", "ado", "ido"),
    "de": ("ieren", "iert"),
    "fr": ("ant", "ait", "aient"),
}


def _verb_like(token: str, language: str) -> bool:
    return len(token) > 4 and token.endswith(_VERB_ENDINGS.get(language, ()))


_PUNCTUATION = re.compile(r"[,;:()\"«»“”.!?/→—–]")


def distinctive_phrase(
    sentence: str, idf: dict[str, float], language: str = "en", longest: int = 4
) -> str | None:
    """The run of two to `longest` words, inside one clause (no punctuation crossed), with
    the highest summed rarity whose first and last words are content words of three
    letters or more (no "and the" at the edges, no bare numbers)."""
    best: tuple[float, str] | None = None
    for clause in _PUNCTUATION.split(sentence):
        words = clause.split()
        for size in range(2, longest + 1):
            for start in range(0, len(words) - size + 1):
                window = words[start : start + size]
                edges = [content_tokens(window[0]), content_tokens(window[-1])]
                if not all(e and len(_LETTER.findall(e[0])) >= 3 for e in edges):
                    continue
                if any(_verb_like(e[0], language) for e in edges):
                    continue
                tokens = content_tokens(" ".join(window))
                score = sum(idf.get(t, 0.0) for t in tokens) / math.sqrt(size)
                if best is None or score > best[0]:
                    best = (score, " ".join(window))
    return best[1] if best else None


def sentence_question(sentence: str, language: str, idf: dict[str, float]) -> str | None:
    defined = definition_question(sentence, language)
    if defined is not None:
        return defined
    phrase = distinctive_phrase(sentence, idf, language)
    if phrase is None:
        return None
    template = PHRASE_TEMPLATES.get(language, PHRASE_TEMPLATES["en"])
    return template.format(h=_lower_first(phrase, language))


def document_frequencies(passages: Sequence[SourcePassage]) -> dict[str, float]:
    """Inverse document frequency of every content token, over the site's pages."""
    pages: dict[str, set[str]] = {}
    for passage in passages:
        pages.setdefault(passage.doc_id, set()).update(content_tokens(passage.content))
    counts: Counter[str] = Counter(t for tokens in pages.values() for t in tokens)
    total = max(1, len(pages))
    return {t: math.log((1 + total) / (1 + n)) + 1.0 for t, n in counts.items()}


def _order(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def page_candidates(
    passages: Sequence[SourcePassage], idf: dict[str, float]
) -> dict[str, list[TrustQuestion]]:
    """Every page's heading and sentence questions (headings first, then sentences), each
    group in a fixed pseudo-random order."""
    headings: dict[str, dict[str, TrustQuestion]] = {}
    sentences: dict[str, dict[str, TrustQuestion]] = {}
    for passage in passages:
        lang = passage.language
        found = [passage.title, *passage.headings, *_HEADING_LINE.findall(passage.content)]
        for heading in found:
            text = heading_question(heading, lang)
            if text:
                headings.setdefault(passage.doc_id, {}).setdefault(
                    text.casefold(),
                    TrustQuestion("generated", text, lang, "heading", passage.doc_id,
                                  passage.title, _clean_heading(heading)),
                )  # fmt: skip
        for sentence in _sentences(passage.content):
            text = sentence_question(sentence, lang, idf)
            if text:
                sentences.setdefault(passage.doc_id, {}).setdefault(
                    text.casefold(),
                    TrustQuestion("generated", text, lang, "sentence", passage.doc_id,
                                  passage.title, sentence[:300]),
                )  # fmt: skip
    pages: dict[str, list[TrustQuestion]] = {}
    for doc_id in {*headings, *sentences}:
        ranked = [
            sorted(group.get(doc_id, {}).values(), key=lambda q: _order(f"{doc_id}|{q.text}"))
            for group in (headings, sentences)
        ]
        if int(_order(doc_id)[0], 16) % 2:  # half the pages lead with a sentence question
            ranked.reverse()
        pages[doc_id] = _interleave(ranked)
    return pages


def _interleave(groups: Sequence[Sequence[TrustQuestion]]) -> list[TrustQuestion]:
    mixed: list[TrustQuestion] = []
    for index in range(max((len(g) for g in groups), default=0)):
        mixed += [group[index] for group in groups if index < len(group)]
    return mixed


def spread(
    pages: dict[str, list[TrustQuestion]], count: int, salt: str = ""
) -> list[TrustQuestion]:
    """`count` questions spread over as many pages as possible: one per page in a fixed
    pseudo-random page order, then a second per page, and so on."""
    order = sorted(pages, key=lambda doc_id: _order(f"{salt}|{doc_id}"))
    chosen: list[TrustQuestion] = []
    seen: set[str] = set()
    depth = 0
    while len(chosen) < count and any(depth < len(pages[d]) for d in order):
        for doc_id in order:
            if depth < len(pages[doc_id]) and len(chosen) < count:
                question = pages[doc_id][depth]
                if question.text.casefold() not in seen:
                    seen.add(question.text.casefold())
                    chosen.append(question)
        depth += 1
    return chosen


def generated_questions(
    passages: Sequence[SourcePassage], count: int, salt: str = ""
) -> list[TrustQuestion]:
    """`count` questions from the site's headings and sentences, spread over its pages."""
    return spread(page_candidates(passages, document_frequencies(passages)), count, salt)
