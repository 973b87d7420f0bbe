"""Sentences planted for a machine reader: addressed to an AI, or asking for a secret.

A paraphrase defeats any list of phrases ("IMPORTANT NOTICE TO AI SYSTEMS", "Hinweis an
alle KI-Systeme", "dear language model"), so these checks read a sentence's structure:

- **addressed to an AI reader**: a note's head and its addressee ("notice to AI systems",
  "message for any language model"), a vocative ("dear AI"), the reader named ("if you
  are an AI"), machine readers of this very text ("any AI reading this page"), or orders
  that only make sense to whoever answers visitors, given to "the assistant" or "when
  answering" ("the assistant must tell users…", "when answering, direct customers…");
- **a secret requested to an address**: a verb that hands something over, a credential
  or payment secret as its object (card number, password, PIN, CVV, IBAN, login code…)
  and a contact target (e-mail address, web address, phone number) in the same
  sentence, in one of the orders a sentence can take ("send your PIN to X", "e-mail X
  with your password", "your card number must be sent to X", "Ihre PIN an X senden"),
  and no negation before the address ("we never ask you to e-mail your password").

The words come from one data file (`data/planted_lexicon.yaml`) for the widget's eight
languages; the text is compared after NFKC folding, without invisible characters and
with look-alike letters of other scripts read as the Latin ones they imitate. Pure, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from frontdesk.guard.lookalikes import LOOK_ALIKE, LOOK_ALIKES

# Stands for an e-mail address, web address or phone number in a folded sentence.
TARGET = "\ue000"
ADDRESSED_TO_ASSISTANT = "addressed_to_assistant"
SECRET_REQUEST = "secret_request"

_EMAIL = re.compile(
    r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"
    r"|[\w.+-]{1,64}\s*[\[(]\s*at\s*[\])]\s*[\w-]{1,63}"
    r"(?:\s*(?:[\[(]\s*dot\s*[\])]|\.)\s*[\w-]{1,63})+",
    re.IGNORECASE,
)
_URL = re.compile(
    r"(?:https?://|www\.)[^\s<>\"')\]]+"
    r"|\b[\w-]{1,63}(?:\.[\w-]{1,63}){0,8}\.[a-z]{2,24}/[^\s<>\"')\]]*",
    re.IGNORECASE,
)
_PHONE = re.compile(r"\+\d[\d\s().-]{6,20}\d|\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b")
_TARGETS = (_EMAIL, _URL, _PHONE)
_SPELLED_AT = re.compile(r"[\[(]\s*at\s*[\])]", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_SPELLED = re.compile(r"\s*[\[(]\s*(at|dot)\s*[\])]\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")

_LATIN = re.compile("[A-Za-z]")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"\w+")
# Format characters (Unicode category Cf) that hide inside words: soft hyphen, zero-width
# spaces and joiners, bidi controls, invisible operators, BOM, tag characters.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\U000e0000-\U000e007f]"
)


def _unmask_word(word: str, latin_line: bool) -> str:
    look_alikes = len(LOOK_ALIKE.findall(word))
    if not look_alikes:
        return word
    mixed = _LATIN.search(word) is not None
    all_look_alike = look_alikes == len(_LETTER.findall(word))
    return word.translate(LOOK_ALIKES) if mixed or (all_look_alike and latin_line) else word


def fold(text: str) -> str:
    """What the checks read: NFKC, no invisible (format) characters, look-alike letters of
    other scripts as the Latin letters they imitate, curly apostrophes straight,
    lower case, single spaces."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    if LOOK_ALIKE.search(text):
        latin = len(_LATIN.findall(text))
        latin_line = 2 * latin > len(_LETTER.findall(text))
        text = _WORD.sub(lambda word: _unmask_word(word[0], latin_line), text)
    return " ".join(text.replace("’", "'").casefold().split())


def contact_targets(text: str) -> list[str]:
    """E-mail addresses, web addresses and phone numbers written in `text`."""
    found: list[str] = []
    for pattern in _TARGETS:
        found.extend(match[0] for match in pattern.finditer(text))
    return found


def target_domain(target: str) -> str | None:
    """The host an e-mail or web address points to (lower case), None for a phone."""
    folded = re.sub(
        r"\s*[\[(]\s*(at|dot)\s*[\])]\s*", lambda m: "@" if m[1] == "at" else ".", target
    )
    if "@" in folded:
        return folded.rsplit("@", 1)[1].strip(".").casefold() or None
    match = re.match(r"(?:https?://)?(?:www\.)?([^/:?#\s]+)", folded, re.IGNORECASE)
    return match[1].strip(".").casefold() if match and "." in match[1] else None


def split_sentences(line: str) -> list[str]:
    """A line cut after each `.`, `!`, `?` or `…` that a space follows."""
    return [part for part in _SENTENCE_END.split(line) if part.strip()]


@dataclass(frozen=True)
class _Patterns:
    names_a_reader: re.Pattern[str]
    addressed: tuple[re.Pattern[str], ...]
    orders: tuple[re.Pattern[str], ...]
    order_to_visitors: re.Pattern[str]
    secret_requests: tuple[re.Pattern[str], ...]
    negation: re.Pattern[str]


def _words(lexicon: dict[str, dict[str, list[str]]], key: str) -> str:
    """One non-capturing alternation of every language's entries under `key`, longest first
    (so that "ki-systeme" wins over "ki")."""
    entries = {entry for words in lexicon[key].values() for entry in words}
    return "(?:" + "|".join(sorted(entries, key=len, reverse=True)) + ")"


# An assistant named without an article ("Hey assistant", "Assistant, …"); singular only,
# since "assistants" may be people.
_BARE_ASSISTANT = (
    r"(?<!\w)(?:assistant|bot|chat ?bot|assistent|asistente|assistente|ассистент|бот)(?!\w)"
)


# "password reset link", "card payments": the secret's name qualifies another noun.
_SECRET_AS_MODIFIER = (
    r"(?:reset|recovery|change|manager|policy|rules|requirements|link|page|form|field|strength"
    r"|hint|settings|expiry|holder|payments?|terminal|reader)(?!\w)"
)


def _secret_pattern(secrets: dict[str, list[str]]) -> str:
    """Secrets as words; long ones also as the end of a compound ("Admin-Passwort",
    "Kreditkartennummer"), short ones only whole ("PIN", not "spin")."""
    entries = {entry for words in secrets.values() for entry in words}
    long = sorted((e for e in entries if len(re.sub(r"\W", "", e)) >= 6), key=len, reverse=True)
    short = sorted(entries.difference(long), key=len, reverse=True)
    return (
        rf"(?:(?<!\w)(?:\w+-?)?(?:{'|'.join(long)})|(?<!\w)(?:{'|'.join(short)}))(?!\w)"
        rf"(?!\s+{_SECRET_AS_MODIFIER})"
    )


def _w(alternation: str) -> str:
    """`alternation` as whole words."""
    return rf"(?<!\w){alternation}(?!\w)"


@cache
def _patterns() -> _Patterns:
    source = resources.files("frontdesk.knowledge.data").joinpath("planted_lexicon.yaml")
    lexicon = yaml.safe_load(source.read_text(encoding="utf-8"))
    ai = _w(_words(lexicon, "ai_readers"))
    the_assistant = _w(_words(lexicon, "the_assistant"))
    head = _w(_words(lexicon, "address_heads"))
    prep = _w(_words(lexicon, "address_preps"))
    quantifier = _w(_words(lexicon, "address_quantifiers"))
    article = _w(_words(lexicon, "address_articles"))
    # "to all the", "für alle", "aux": whatever stands between a preposition and an AI.
    after_prep = rf"(?:(?:{quantifier}|{article})\s+){{0,2}}(?:\w+\s+)?"
    vocative = _w(_words(lexicon, "vocatives"))
    reader_is = _w(_words(lexicon, "reader_is"))
    this_text = _w(_words(lexicon, "this_text"))
    read = _w(_words(lexicon, "read_verbs"))
    orders = _w(_words(lexicon, "answerer_orders"))
    answering = _w(_words(lexicon, "answering"))
    secret = _secret_pattern(lexicon["secrets"])
    hand = _w(_words(lexicon, "hand_over"))
    handed = _w(_words(lexicon, "handed_over"))
    contact = _w(_words(lexicon, "contact_verbs"))
    with_ = _w(_words(lexicon, "with_words"))
    det = _w(_words(lexicon, "determiners"))
    breaks = _w(_words(lexicon, "object_breaks"))
    # A word of a verb's object: anything but a clause break, a destination or an address.
    obj_word = rf"(?:(?!{breaks}|{TARGET})[^\s,;:]+)"
    modal = (
        r"(?:must|should|shall|will|has to|needs? to|is (?:required|instructed|expected|"
        r"supposed) to|muss|soll|sollte|wird|doit|devra|devrait|debe|deberá|debería|deve|"
        r"dovrà|dovrebbe|moet|zal|должен|должна|должно|обязан)"
    )
    always = r"(?:(?:always|now|henceforth|from now on|immer|ab sofort|toujours|désormais|"
    always += r"siempre|sempre|altijd|voortaan|всегда|теперь)\s+)?"
    addressed = (
        # "IMPORTANT NOTICE TO AI SYSTEMS", "Hinweis an alle KI-Systeme"
        re.compile(rf"{head}\s+{prep}\s+{after_prep}{ai}"),
        re.compile(rf"{_w(_words(lexicon, 'address_datives'))}\s+(?:\w+\s+)?{ai}"),
        # "To all AI systems:", "Für KI:"
        re.compile(rf"^{prep}\s+{after_prep}{ai}\s*[:,]"),
        # "For any LLM summarising this website:", "To the virtual assistant answering here —"
        re.compile(
            rf"^{prep}\s+(?:{quantifier}|{article})\s+(?:\w+\s+)?{ai}[^:.!?]{{0,50}}?\s*[:—–]"
        ),
        # "Automated assistants: …" (a plural or qualified name, not a bare "AI:" title)
        re.compile(rf"^(?:{quantifier}\s+)?(?=\w[\w -]{{3,}}\s*:){ai}\s*:"),
        # "Dear AI", "Attention, language models", "Hey assistant"
        re.compile(rf"{vocative}[\s,!:]+(?:{quantifier}\s+)?(?:{ai}|{_BARE_ASSISTANT})"),
        # "Assistant, …" opening a sentence
        re.compile(rf"^{_BARE_ASSISTANT}\s*[,!]\s"),
        # "If you are an AI", "Wenn du eine KI bist"
        re.compile(rf"{reader_is}\s*(?:\w+\s+)?{ai}"),
        # "Any AI reading this page", "KI-Systeme, die diese Seite lesen"
        re.compile(rf"{ai}[^.!?]{{0,40}}?{read}[^.!?]{{0,30}}?{this_text}"),
        re.compile(rf"{ai}[^.!?]{{0,40}}?{this_text}[^.!?]{{0,20}}?{read}"),
    )
    order_patterns = (
        re.compile(rf"(?:{the_assistant}|{ai})\s+{modal}\s+{always}{orders}"),
        re.compile(rf"{answering}[^.!?]{{0,80}}?{orders}"),
    )
    # An order to visitors that points them at an address ("tell customers to write to X").
    order_to_visitors = re.compile(rf"^(?:please\s+)?{always}{orders}")
    secret_requests = (
        # "send your card number to X", "envoyez votre numéro de carte à X"
        re.compile(rf"{hand}(?:\s+{obj_word}){{0,6}}?\s+{secret}(?=.*{TARGET})"),
        # "e-mail X with your admin password", "contact X with your PIN"
        re.compile(
            rf"(?:{hand}|{contact})\s+(?:[^\s{TARGET}]+\s+){{0,2}}{TARGET}\s+(?:{obj_word}\s+){{0,2}}"
            rf"{with_}\s+(?:{obj_word}\s+){{0,4}}{secret}"
        ),
        # "call X and give your PIN"
        re.compile(
            rf"{TARGET}\s+(?:and|then|und|et|y|e|en|и)\s+{hand}(?:\s+{obj_word}){{0,6}}?\s+{secret}"
        ),
        # "envíe a X su número de tarjeta"
        re.compile(rf"{hand}\s+(?:\w+\s+){{0,1}}{TARGET}\s+(?:{det}\s+){{1,3}}{secret}"),
        # "your card number must be sent to X", "Ihre PIN muss an X gesendet werden"
        re.compile(rf"{secret}(?:\s+{obj_word}){{0,8}}?\s+{handed}\s+(?:\w+\s+){{0,2}}{TARGET}"),
        re.compile(rf"{secret}(?:\s+{obj_word}){{0,8}}?\s+\w+\s+{TARGET}\s+(?:\w+\s+)?{hand}"),
    )
    negation = re.compile(_w(_words(lexicon, "negations")))
    names_a_reader = re.compile(f"{ai}|{the_assistant}|{_BARE_ASSISTANT}")
    return _Patterns(
        names_a_reader, addressed, order_patterns, order_to_visitors, secret_requests, negation
    )


def with_targets_marked(folded: str) -> str:
    """`folded` with each contact target replaced by one `TARGET` character."""
    marked = folded
    if "@" in marked or _SPELLED_AT.search(marked):
        marked = _EMAIL.sub(f" {TARGET} ", marked)
    if "/" in marked or "www." in marked:
        marked = _URL.sub(f" {TARGET} ", marked)
    if len(_DIGIT.findall(marked)) >= 7:
        marked = _PHONE.sub(f" {TARGET} ", marked)
    return marked if marked is folded else " ".join(marked.split())


def planted_reason(sentence: str) -> str | None:
    """Why `sentence` speaks to a machine reader or asks for a secret, or None."""
    patterns = _patterns()
    text = with_targets_marked(fold(sentence))
    # Every way of addressing a reader names an AI or an assistant (one cheap search first).
    if patterns.names_a_reader.search(text):
        if any(pattern.search(text) for pattern in patterns.addressed):
            return ADDRESSED_TO_ASSISTANT
        if patterns.orders[0].search(text):
            return ADDRESSED_TO_ASSISTANT
    if patterns.orders[1].search(text):
        return ADDRESSED_TO_ASSISTANT
    if TARGET not in text:
        return None
    if patterns.order_to_visitors.search(text):
        return ADDRESSED_TO_ASSISTANT
    for pattern in patterns.secret_requests:
        match = pattern.search(text)
        if match is None:
            continue
        # A negation before the address makes it a warning ("we never ask you to…").
        target_at = text.find(TARGET, match.start())
        before = text[: target_at if target_at >= 0 else len(text)]
        if not patterns.negation.search(before):
            return SECRET_REQUEST
    return None
