"""What a visitor's message asks: its parts, and whether it asks for examples.

A prospect writes "We're 300 people on Salesforce and HubSpot. Do you support SAML with
Okta, can we keep data in the EU, and is there a 99.9 % SLA?" — one message, four
things to answer. `question_parts` cuts it at sentence ends and at clause starts that
open a new question after a comma or "and" (", can we …", "and is there …"); a list
of names ("Salesforce, HubSpot and Slack") stays one part. A part that is a question
must be answered or named as unknown; a part that only gives context ("we're 300
people") is answered when the knowledge base has something on it, else left alone.

Case studies are customer stories: quoted only when the visitor asks for examples
(or names the customer), never as filler for a question about a feature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from frontdesk.engines.local.answering.text import is_question, proper_names, term_set
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.knowledge.search.query import is_case_study

# Words that open a new question inside a sentence (after a comma, ";" or "and").
_CLAUSE_OPENERS = (
    r"can|could|do|does|did|is|are|will|would|should|what|how|which|where|when|who|"
    r"есть ли|можно|как|какой|какие|где|сколько|"
    r"est-ce|peut-on|pouvez|proposez|quel|quelle|comment|où|"
    r"gibt es|kann|können|unterstützt|wie|welche|wo|"
    r"puedo|pueden|hay|cómo|cuál|dónde|ofrecen|"
    r"posso|possiamo|c'è|come|quale|dove|"
    r"posso|podemos|há|como|qual|onde|"
    r"kan|kunnen|is er|hoe|welke|waar"
)
_AND = r"and|also|plus|и|а также|а|et|und|y|e|en|ook"
_CLAUSE_BREAK = re.compile(
    rf"(?:\s*[,;]\s*(?:(?:{_AND})\s+)?|\s+(?:{_AND})\s+)(?=(?:{_CLAUSE_OPENERS})\b)",
    re.IGNORECASE,
)
_SENTENCE_BREAK = re.compile(r"(?<=[?!;])\s+|(?<=\.)\s+(?=\W*[A-ZА-ЯЁ¿¡])|\n+")

_EXAMPLES = re.compile(
    r"(?<!\w)(?:examples?|for instance|case stud|customer stor|success stor|references?\b|"
    r"testimonial|who (?:uses|is using|else uses)|other customers|companies like|"
    r"пример|кейс|истори\w* клиент|кто (?:уже )?использ|"
    r"exemple|étude de cas|témoignage|référence|"
    r"beispiel|fallstudie|referenz|kundenstor|"
    r"ejemplo|caso de éxito|casos de éxito|testimonio|"
    r"esempi|caso di studio|casi di studio|testimonianz|"
    r"exemplo|caso de estudo|casos de estudo|depoimento|"
    r"voorbeeld|klantverha|referentie)",
    re.IGNORECASE,
)
_STORY_TITLE = re.compile(
    r"^\W*(?:case stud|customer stor|success stor|кейс|истори\w* клиент|étude de cas|"
    r"fallstudie|kundenstor|caso de éxito|caso di studio|caso de estudo|klantverha)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QuestionPart:
    text: str
    asks: bool  # a question to answer or mark unknown; False: context the visitor gives


def question_parts(question: str, language: str) -> list[QuestionPart]:
    """The parts of a message, in the visitor's order (those without content words dropped)."""
    parts: list[QuestionPart] = []
    for sentence in _SENTENCE_BREAK.split(question.strip()):
        sentence = sentence.strip()
        if not sentence:
            continue
        asks = is_question(sentence)
        for clause in _CLAUSE_BREAK.split(sentence):
            clause = clause.strip(" ,;")
            if clause and term_set(clause, language):
                parts.append(QuestionPart(clause, asks or is_question(clause)))
    return parts


_ADDRESS = re.compile(r"\S+@\S+|\w+://\S+|www\.\S+")


def asks_for_examples(question: str) -> bool:
    """ "Any examples?", "customer stories": not the "example" of name@example.org."""
    return _EXAMPLES.search(_ADDRESS.sub(" ", question)) is not None


def is_customer_story(chunk: RetrievedChunk) -> bool:
    """A case study: named so in its file or address, or titled so."""
    return is_case_study(chunk) or _STORY_TITLE.match(chunk.title) is not None


def names_the_story(question: str, chunk: RetrievedChunk) -> bool:
    """The question names the story's customer ("How did Orbitly route its leads?")."""
    title = chunk.title.casefold()
    return any(name.casefold() in title for name in proper_names(question))


def names_missing(question: str, language: str, passages: str) -> bool:
    """The message names something (Odoo, HIPAA) no passage mentions, so the passages are
    about something else. A message with several questions only when every one of them
    does: the others are still answered, and the writer names the one it cannot."""
    text = passages.casefold()

    def lacks(part: str) -> bool:
        return any(name.casefold() not in text for name in proper_names(part, language))

    questions = [part.text for part in question_parts(question, language) if part.asks]
    if len(questions) < 2:
        return lacks(question)
    return all(lacks(part) for part in questions)


# The question words of the eight languages: a question with none of them asks whether
# (“Do you have a kids' menu?”, “Verleiht ihr auch Fahrräder?”), not what, where or how.
# Words that are also conjunctions ("que", "che", "como") are left out.
_ASKS_WHICH = re.compile(
    r"(?<!\w)(?:what|how|why|when|where|which|who|whom|whose|whats|hows|wheres|whos|"
    r"как\w*|что|почему|где|когда|сколько|зачем|куда|откуда|кто|чей|"
    r"comment|pourquoi|quand|où|quel\w*|combien|quoi|"
    r"wie|was|warum|wann|wo|wohin|woher|welche\w*|wer|wieso|weshalb|"
    r"cómo|qué|por qué|cuándo|cuando|dónde|donde|cuál\w*|cuánt\w*|quién\w*|"
    r"perché|quando|dove|qual\w*|quant\w*|chi|cosa|"
    r"porque|onde|quais|quem|"
    r"hoe|waarom|wanneer|waar|welke?|wie|wat|hoeveel)(?!\w)",
    re.IGNORECASE,
)


def asks_whether(question: str) -> bool:
    """Pure: a yes-or-no question ("Do you repair trucks?", "¿Hacéis depilación?"): a
    question with no question word in it."""
    return is_question(question) and _ASKS_WHICH.search(question) is None


# The second person of the eight languages (pronouns and possessives): "Do you have a car
# park?", "Vervangen jullie ook…?" ask the business about itself. Not Spanish "os" (the
# Portuguese article), nor the "U" of "U-Bahn".
_SECOND_PERSON = re.compile(
    r"(?<!\w)(?:you|your|yours|"
    r"вы|вас|вам|вами|ваш\w*|"
    r"vous|votre|vos|"
    r"ihr|euch|euer|eure\w*|sie|ihnen|"
    r"usted|ustedes|vosotr[oa]s|vuestr\w*|"
    r"voi|vostr\w*|"
    r"você|vocês|voc[eê]|voss[oa]s?|"
    r"jullie|jij|jou|jouw|u|uw)(?![\w-])",
    re.IGNORECASE,
)


def addresses_the_business(question: str) -> bool:
    """Pure: a question put to the business in the second person ("Do you have a car
    park?", "Vervangen jullie ook een meterkast?")."""
    return is_question(question) and _SECOND_PERSON.search(question) is not None


def without_second_person(question: str) -> str:
    """The question without its second-person words ("Komen jullie ook in Zeist?" asks
    about Zeist; "jullie" is in no page of the business)."""
    return _SECOND_PERSON.sub(" ", question)
