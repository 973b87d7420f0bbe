"""Follow-up suggestions for the local engine: questions the knowledge base can answer.

Candidates are headings of the retrieved passages, those the answer did not use first:
headings written inside a passage (merged FAQ entries keep their questions inline),
then each passage's own section heading, then document titles. A heading that is
already a question in the visitor's language is offered as it is; an error-code
heading ("ERR-1004: …") becomes "What does error ERR-1004 mean?"; a heading about
something to configure ("SAML single sign-on") becomes "How do I set up …?"; any other
section heading becomes "Can you tell me more about …?", in the site's register.
Templates exist for all eight languages. A candidate too close to the current question
is never offered.

A suggestion is a question a visitor would ask, so names of pages are never wrapped in
a template: a document's title is offered only when it is itself a question, and so is
a heading that names a page of the site (a navigation label such as the FAQ or contact
page) or that only gathers questions (the section holding an FAQ's questions offers
those questions instead).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from frontdesk.conversation.register import Tone
from frontdesk.engines.local.answering.phrases import (
    SETUP_HINTS,
    SUGGEST_ABOUT,
    SUGGEST_CODE,
    SUGGEST_SETUP,
    normalise,
    phrase,
)
from frontdesk.engines.local.answering.text import (
    CODE,
    cited_indices,
    guess_language,
    in_other_script,
    plain,
    term_set,
    words,
)
from frontdesk.engines.local.answering.units import passage_units
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.text.stopwords import ALL_STOPWORDS

MAX_HEADING_WORDS = 10
SIMILAR = 0.6
_GENERIC = frozenset(
    normalise(text)
    for text in (
        "overview", "introduction", "summary", "details", "notes", "general", "faq",
        "contents", "steps", "examples", "frequently asked questions",
        "часто задаваемые вопросы", "обзор", "введение", "questions fréquentes", "aperçu",
        "häufige fragen", "überblick", "preguntas frecuentes", "resumen",
        "domande frequenti", "panoramica", "perguntas frequentes", "visão geral",
        "veelgestelde vragen", "overzicht", "the challenge", "the solution", "the results",
        "challenge", "solution", "results", "background",
        "learn more", "read more", "more", "see more", "find out more", "click here", "here",
        "details", "more info", "more information", "next steps", "see also", "related",
        "подробнее", "узнать больше", "читать далее", "en savoir plus", "lire la suite",
        "mehr erfahren", "weiterlesen", "más información", "leer más", "scopri di più",
        "leggi di più", "saiba mais", "leia mais", "meer informatie", "lees meer",
    )
)  # fmt: skip
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


_QUESTION_START = re.compile(
    r"^(?:what|how|why|when|where|which|who|can|do|does|is|are|will|should|"
    r"как|что|почему|где|когда|какие|какой|какая|можно|сколько|зачем|"
    r"comment|pourquoi|quand|où|quel|quelle|quels|quelles|est-ce|"
    r"wie|was|warum|wann|wo|welche|welcher|kann|können|gibt|"
    r"cómo|qué|por qué|cuándo|dónde|cuál|puedo|"
    r"come|perché|quando|dove|quale|posso|"
    r"como|porque|quando|onde|qual|"
    r"hoe|waarom|wanneer|waar|welke|kan)\b",
    re.IGNORECASE,
)
_HOW_TO = re.compile(r"^how to\s+", re.IGNORECASE)
_GERUND = re.compile(r"^\w+ing\b", re.IGNORECASE)


def _same_script(text: str, language: str) -> bool:
    return bool(_CYRILLIC.search(text)) == (language == "ru")


def _inline(text: str, content: str) -> str:
    """`text` to be written mid-sentence: a common first word of a sentence-case heading
    loses its capital ("Data retention" → "data retention"; "Salesforce" stays)."""
    first, _, rest = text.partition(" ")
    sentence_case = bool(rest) and not any(w[:1].isupper() for w in rest.split()[:1])
    common = first.lower() in ALL_STOPWORDS or re.search(
        rf"\b{re.escape(first.lower())}\b", content
    )
    if sentence_case and first[:1].isupper() and first[1:].islower() and common:
        return f"{first.lower()} {rest}"
    return text


def as_question(heading: str, language: str) -> str | None:
    """`heading` when it is already a question in `language`, else None (a page's name,
    "FAQ" or "Contact", is not a question anyone asks)."""
    heading = _LINK.sub(r"\1", plain(heading))
    heading = re.sub(r"^#{1,6}\s*", "", heading.strip()).rstrip(":").strip()
    if not heading or len(heading.split()) > 2 * MAX_HEADING_WORDS:
        return None
    if language == "en" and _HOW_TO.match(heading):
        return f"How do I {_HOW_TO.sub('', heading).rstrip('?')}?"
    if not heading.endswith("?"):
        return None
    if not _same_script(heading, language) or guess_language(heading, language) != language:
        return None  # a question in another language than the visitor's
    return heading


def to_question(
    heading: str, language: str, content: str = "", tone: Tone = "formal"
) -> str | None:
    """A follow-up question made from a section heading, or None for an unusable one."""
    heading = _LINK.sub(r"\1", plain(heading))
    heading = re.sub(r"^#{1,6}\s*", "", heading.strip()).rstrip(":").strip()
    if not heading or len(heading.split()) > MAX_HEADING_WORDS:
        return None
    if normalise(heading) in _GENERIC or "|" in heading:
        return None  # a table row is no heading ("Sonntag und Montag | geschlossen")
    if language == "en" and _HOW_TO.match(heading):
        return f"How do I {_HOW_TO.sub('', heading).rstrip('?')}?"
    if heading.endswith("?") or _QUESTION_START.match(heading):
        if not _same_script(heading, language) or guess_language(heading, language) != language:
            return None  # a question in another language than the visitor's
        return heading if heading.endswith("?") else f"{heading}?"
    code = CODE.match(heading)
    if code:
        return phrase(SUGGEST_CODE, language).format(x=code.group(0).upper())
    if guess_language(heading, language) != language:
        # Another language's words in the visitor's sentence ("Can you tell me more about
        # Sonntag und Montag?"); a name or a term without them ("SAML single sign-on")
        # reads in any language.
        return None
    first = heading.split()[0].lower()
    setup = (
        SETUP_HINTS.search(heading) is not None
        and len(heading.split()) <= 5
        and first not in ALL_STOPWORDS
        and not _GERUND.match(first)
    )
    template = SUGGEST_SETUP if setup else SUGGEST_ABOUT
    return phrase(template, language, tone).format(x=_inline(heading, content))


def _headings(chunk: RetrievedChunk, inline_only: bool) -> Iterator[str]:
    for unit in passage_units(chunk.content):
        if unit.kind == "heading":
            yield unit.text
    if not inline_only and len(chunk.heading_path) > 1:
        yield chunk.heading_path[-1]


def _names_its_page(heading: str, chunk: RetrievedChunk, language: str) -> bool:
    """Whether `heading` is its page's own top heading ("Unsere Leistungen" on the page
    titled "Leistungen – …"): right below the title and sharing a word with it."""
    path = chunk.heading_path
    if len(path) >= 2:
        top = path[1]
    else:  # a passage from the top of its page: its first heading is the page's
        top = next((u.text for u in passage_units(chunk.content) if u.kind == "heading"), "")
    if heading != top:
        return False
    return bool(term_set(heading, language) & term_set(chunk.title, language))


def _gathers_questions(chunk: RetrievedChunk) -> bool:
    """Whether the passage's section holds questions (an FAQ): its own heading then names
    a list, not a subject."""
    return any(
        unit.kind == "heading" and unit.text.rstrip().endswith("?")
        for unit in passage_units(chunk.content)
    )


class LocalSuggester:
    """`SuggesterJob` from the headings of the retrieved passages."""

    def __init__(self, count: int = 3) -> None:
        self.count = count

    async def follow_ups(
        self,
        question: str,
        answer: str,
        chunks: Sequence[RetrievedChunk],
        language: str,
        tone: Tone = "formal",
    ) -> list[str]:
        cited = {n - 1 for n in cited_indices(answer) if 1 <= n <= len(chunks)}
        asked = term_set(question, language)
        answered = term_set(answer, language)
        seen = {normalise(question)}
        pages = {normalise(chunk.title) for chunk in chunks if chunk.title}
        suggestions: list[str] = []
        for heading, content, page_name in self._candidates(chunks, cited, pages, language):
            found = term_set(heading, language)
            if not words(heading) or (found and found <= answered):
                continue  # the answer already says this
            if found and asked and len(found & asked) / len(found | asked) >= SIMILAR:
                continue  # the question the visitor just asked, in other words
            text = (
                as_question(heading, language)
                if page_name
                else to_question(heading, language, content, tone)
            )
            if text is None or normalise(text) in seen:
                continue
            if term_set(text, language) == asked:
                continue
            seen.add(normalise(text))
            if in_other_script(heading, language):
                continue  # a chip is in the visitor's language, like the answer
            suggestions.append(text)
            if len(suggestions) >= self.count:
                break
        return suggestions[: self.count]

    @staticmethod
    def _candidates(
        chunks: Sequence[RetrievedChunk], cited: set[int], pages: set[str], language: str
    ) -> Iterator[tuple[str, str, bool]]:
        """(heading, its passage, whether it may only be offered as the question it is)."""
        unused = [c for i, c in enumerate(chunks) if i not in cited]
        used = [c for i, c in enumerate(chunks) if i in cited]
        for group, inline_only in ((unused, False), (used, True)):
            for chunk in group:
                gathers = _gathers_questions(chunk)
                for heading in _headings(chunk, inline_only):
                    name = normalise(heading) in pages or _names_its_page(heading, chunk, language)
                    yield heading, chunk.content, gathers or name
        for chunk in chunks:
            yield chunk.title.strip(), chunk.content, True
