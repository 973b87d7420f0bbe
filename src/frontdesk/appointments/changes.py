"""What a visitor with a booked appointment asks about it: to cancel it, to move it, or
how to do either (pure: no I/O).

The intent model hears a cancellation in its own training world: "cancel the demo" is
STOP_BOOKING, "cancel my dinner reservation" is off-topic, "I need to cancel my
appointment" is support, and "Können wir den Termin verschieben?" (move it) is
STOP_BOOKING. Only the conversation knows a booking stands, so the router reads the
message against it here, the same way in all eight widget languages:

- a verb of cancelling or of moving (inflections by word start: "absagen", "sagen Sie …
  ab", "annulez", "отмените", "verzetten"),
- aimed at the appointment: it names one (a word for an appointment, or one of the
  site's own appointment types, e.g. "Inspektion"), or it names nothing else ("cancel
  it", "please cancel"). A message that names another thing with an article or a
  possessive ("my subscription", "mein Abo", "ma commande", "подписку") is not about the
  appointment, whatever its verb;
- a question how to do it ("How do I cancel my appointment?") is answered with the
  appointment and how to change it, not carried out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from babel import Locale

from frontdesk.appointments.wishes import names_any

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru")

AppointmentChange = Literal["cancel", "move", "ask"]

_I = re.IGNORECASE

_CANCEL = re.compile(
    r"\b(?:"
    r"cancel\w*|call(?:ing)?\s+(?:it\s+|this\s+|that\s+)?off\b|"  # en (es, pt: cancele, cancelar)
    r"absag\w*|sag\w*\b[^.?!,]{0,40}\bab\s*(?:[.!?,]|$)|stornier\w*|streich\w*|lösch\w*|"  # de
    r"annul\w*|supprim\w*|décommand\w*|"  # fr, it (annullare)
    r"anul\w*|"  # es, pt
    r"disdi\w*|disdett\w*|"  # it
    r"desmarc\w*|"  # pt
    r"annuleer\w*|annuler\w*|afzeg\w*|zeg\w*\b[^.?!,]{0,40}\baf\s*(?:[.!?,]|$)|"  # nl
    r"отмен\w*|отказ\w*|удал\w*"  # ru
    r")",
    _I,
)
_MOVE = re.compile(
    r"\b(?:"
    r"mov(?:e|es|ed|ing)\b|reschedul\w*|postpon\w*|push\w*\s+(?:\w+\s+)?back\b|"  # en
    r"bring\w*\s+(?:\w+\s+)?forward\b|rebook\w*|chang\w*|"
    r"verschieb\w*|verschob\w*|verleg\w*|umbuch\w*|änder\w*|"  # de
    r"déplac\w*|décal\w*|report(?:er|ez|ons|é|ée|és)\b|modifi\w*|"  # fr (changer: chang)
    r"cambi\w*|mover\b|muev\w*|aplaz\w*|reprogram\w*|pospon\w*|"  # es (cambiar also it)
    r"spost\w*|rimand\w*|posticip\w*|anticip(?:are|a|i|o|iamo)\b|modific\w*|"  # it
    r"mud(?:ar|e|o|amos|em)\b|remarc\w*|reagend\w*|adi(?:ar|e|o|amos|em)\b|"  # pt
    r"alter(?:ar|e|o|amos|em)?\b|troc\w*|"
    r"verzet\w*|verplaats\w*|verschuiv\w*|omzet\w*|wijzig\w*|verander\w*|"  # nl
    r"перенес\w*|перенос\w*|перенест\w*|измен\w*|помен\w*|сдвин\w*"  # ru
    r")",
    _I,
)
# Words for an appointment, a booking or a visit (the site's own appointment types are
# names of it too).
_APPOINTMENT = re.compile(
    r"\b(?:"
    r"appointments?|bookings?|reservations?|visits?|slots?|"
    r"termin\w*|buchung\w*|reservierung\w*|besuch\w*|"
    r"rendez-vous|rdv|réservation\w*|créneau\w*|visite\w*|"
    r"citas?|reservas?|turnos?|visitas?|"
    r"appuntament\w*|prenotazion\w*|"
    r"marcaç\w*|agendament\w*|consultas?|"
    r"afspra\w*|boeking\w*|reservering\w*|bezoek\w*|"
    r"запис\w*|при[её]м\w*|брон\w*|визит\w*|встреч\w*"
    r")",
    _I,
)
# The when of an appointment: "change the time", "die Uhrzeit ändern", "cambiar la fecha"
# are about it too (as are the names of days and months, `_calendar_words`).
_WHEN = re.compile(
    r"(?:times?|dates?|days?|hours?|one|"
    r"zeit|uhrzeit|datum|tag|"
    r"heure|date|jour|horaire|"
    r"hora|fecha|d[ií]a|horario|"
    r"ora|orario|data|giorno|"
    r"horário|dia|"
    r"tijd|tijdstip|datum|dag|"
    r"время|дат[ау]|день|час)",
    _I,
)
# An article, demonstrative or possessive opens the name of a thing: what follows is what
# the verb is about ("my subscription", "il mio appuntamento", "a minha marcação").
_DETERMINER = (
    r"my|our|the|this|that|"
    r"mein\w*|unser\w*|den|die|das|dem|der|ein\w*|dies\w*|"
    r"mon|ma|mes|notre|nos|le|la|les|l'|ce|cet|cette|un|une|"
    r"mi|mis|nuestr\w*|el|los|las|una|est[ae]s?|"
    r"il|lo|gli|mio|mia|miei|mie|nostr\w*|uno|quest\w*|"
    r"o|os|as|meu|minha|meus|minhas|noss\w*|um|uma|"
    r"mijn|ons|onze|de|het|deze|een|"
    r"мо[йюяеи]\w*|наш\w*|эт[оуиа]\w*"
)
_NAMED = re.compile(
    rf"(?<!\w)(?:{_DETERMINER})(?:\s+|(?<=')\s*)(?:(?:{_DETERMINER})\s+)?([^\W\d_][\w-]*)"
    rf"(?:\s+([^\W\d_][\w-]*))?",
    _I,
)
_DETERMINER_ONLY = re.compile(rf"(?:{_DETERMINER})", _I)
# Russian names a thing without an article: the word right after the verb ("отмените
# подписку"), unless it is one of these.
_RU_AFTER_VERB = re.compile(r"\b(?:отмен|перенес|перенест|измен|помен|удал)\w*\s+([а-яё]+)", _I)
_RU_NOT_A_THING = frozenset(
    {"пожалуйста", "её", "ее", "его", "это", "всё", "все", "тогда", "тоже", "на", "в", "мне"}
)
# A question how to do it: the first word ("How do I…", "Wie kann ich…", "Come posso…"),
# or one of the first three of a question ("Hi, how do I cancel…?"). Elsewhere "come",
# "como" and "wie" are other words ("I cannot come", "como combinado").
_HOW_WORD = r"(?:how|wie|comment|c[oó]mo|come|hoe|как)\b"
_HOW_FIRST = re.compile(rf"^\W*{_HOW_WORD}", _I)
_HOW_ASKED = re.compile(rf"^\W*(?:\w+\W+){{0,2}}?{_HOW_WORD}.*\?\W*$", _I | re.DOTALL)


@lru_cache(maxsize=1)
def _calendar_words() -> frozenset[str]:
    """The names of weekdays and months in the widget's languages (CLDR via Babel)."""
    words: set[str] = set()
    for language in LANGUAGES:
        locale = Locale.parse(language)
        for table in (locale.days, locale.months):
            for context in table.values():
                for width in ("wide", "abbreviated"):
                    words.update(n.casefold().rstrip(".") for n in context[width].values())
    return frozenset(words)


def _is_appointment(words: Iterable[str], kind_names: list[str]) -> bool:
    """True when one of `words` (a thing's name) is the appointment or its when."""
    return any(
        _APPOINTMENT.fullmatch(word)
        or _WHEN.fullmatch(word)
        or word.casefold() in _calendar_words()
        or names_any(word, kind_names)
        for word in words
    )


def names_appointment(text: str, kind_names: list[str]) -> bool:
    """True when `text` names an appointment, a booking, or one of the site's types."""
    return bool(_APPOINTMENT.search(text)) or names_any(text, kind_names) is not None


def names_another_thing(text: str, kind_names: list[str]) -> bool:
    """True when `text` names a thing that is not the appointment after an article or a
    possessive ("my subscription", "den Vertrag", "ma commande") or, in Russian, right
    after the verb ("отмените подписку")."""
    for match in _NAMED.finditer(text):
        words = [w for w in match.groups() if w]
        if not _DETERMINER_ONLY.fullmatch(words[0]) and not _is_appointment(words, kind_names):
            return True
    for match in _RU_AFTER_VERB.finditer(text):
        word = match.group(1).casefold()
        if (
            word not in _RU_NOT_A_THING
            and not _DETERMINER_ONLY.fullmatch(word)
            and not _is_appointment([word], kind_names)
        ):
            return True
    return False


def appointment_change(text: str, kind_names: list[str]) -> AppointmentChange | None:
    """What `text` asks about a booked appointment: "cancel", "move", "ask" (how to do
    either), or None when it asks neither or is about another thing."""
    moves = _MOVE.search(text) is not None
    cancels = _CANCEL.search(text) is not None
    if not (moves or cancels):
        return None
    if not names_appointment(text, kind_names) and names_another_thing(text, kind_names):
        return None
    if _HOW_FIRST.search(text) or _HOW_ASKED.search(text):
        return "ask"
    return "move" if moves else "cancel"
