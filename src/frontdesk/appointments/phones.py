"""The phone number a visitor gives for an appointment, when the site asks for one (pure).

A number is read by its shape, as people type it in any of the widget's languages: an
optional `+` (or `00`), then digits with spaces, dots, dashes, slashes or parentheses
between them. It counts when it has 7 to 15 digits: E.164 numbers have at most 15, and
fewer than 7 is no number the team can call back (a local number without its area code,
a postcode). Something that looks meant as a number but is not one ("12345",
"0171-12") is an attempt, and the visitor is asked again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from frontdesk.engines.local.signals import extract_email

MIN_DIGITS = 7
MAX_DIGITS = 15  # ITU-T E.164
# Fewer digits than this in a row are a time, a date or a house number, not a try.
ATTEMPT_DIGITS = 5

_CANDIDATE = re.compile(r"(?<![\w@])(?:\+|\(\+?)?\d(?:[\d().\-/]|\s(?=[\d(]))*\d\)?(?![\w@])")
# A date written with dots or slashes ("15.12.2026") is a day, not a number to call.
_DATE = re.compile(r"\d{1,2}[./]\d{1,2}[./](?:\d{2}|\d{4})")


@dataclass(frozen=True)
class PhoneReading:
    """The number found (as typed, spaces tidied), or what was tried and is not one."""

    number: str | None = None
    tried: str = ""

    @property
    def attempted(self) -> bool:
        return bool(self.tried)


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def phone_in(text: str, leave_out: Iterable[str] = ()) -> PhoneReading:
    """The phone number in `text`, its e-mail address and `leave_out` (the slot labels
    offered, which hold dates and times) taken out first."""
    rest = text
    email = extract_email(text)
    if email:
        rest = rest.replace(email, " ")
    for label in leave_out:
        if label:
            rest = re.sub(re.escape(label), " ", rest, flags=re.IGNORECASE)
    tried = ""
    for match in _CANDIDATE.finditer(rest):
        candidate = match.group(0).strip()
        if _DATE.fullmatch(candidate):
            continue
        digits = _digits(candidate)
        if MIN_DIGITS <= digits <= MAX_DIGITS and candidate.count("+") <= 1:
            return PhoneReading(" ".join(candidate.split()))
        if digits >= ATTEMPT_DIGITS and not tried:
            tried = candidate
    return PhoneReading(None, tried)


def without_phone(text: str, reading: PhoneReading) -> str:
    """`text` without the number read from it, or tried (its digits are no time of day)."""
    typed = reading.number or reading.tried
    if not typed:
        return text
    pattern = r"\s*".join(re.escape(part) for part in typed.split())
    return re.sub(pattern, " ", text)
