"""The visitor's replies while booking (pure): the slot picked by its button label, and the
contact asked for — a name, an e-mail address and, where the site asks for it
(`calendar.ask_phone`), a phone number. A reply may give them together ("Ada Lovelace,
ada@example.org, +49 30 1234567") or one after another; what is still missing is asked
for next."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from frontdesk.appointments.phones import PhoneReading, phone_in, without_phone
from frontdesk.engines.local.signals import extract_email

_MAX_NAME_WORDS = 6

# What to ask next: everything, only the phone number, or the number again (not a number).
ContactQuestion = Literal["all", "phone", "phone_invalid"]


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def picked_offer(text: str, offered: list[dict[str, str]]) -> dict[str, str] | None:
    """The offered slot the message names by its button label (a click sends the label)."""
    said = _fold(text)
    for offer in offered:
        if _fold(offer["label"]) and _fold(offer["label"]) in said:
            return offer
    return None


def contact_name(text: str, offered: list[dict[str, str]]) -> str:
    """The name in a reply such as "Ada Lovelace, ada@example.org" (e-mail, phone number,
    slot label and punctuation taken out); "" when what is left does not look like a
    name."""
    rest = text
    email = extract_email(text)
    if email:
        rest = rest.replace(email, " ")
    for offer in offered:
        rest = re.sub(re.escape(offer["label"]), " ", rest, flags=re.IGNORECASE)
    words = [w for w in re.split(r"[\s,;:<>()]+", rest) if any(c.isalpha() for c in w)]
    if not words or len(words) > _MAX_NAME_WORDS:
        return ""
    return " ".join(words).strip(" .")


@dataclass(frozen=True)
class Contact:
    """The contact known after this reply (earlier replies' parts kept)."""

    name: str
    email: str
    phone: str
    phone_reading: PhoneReading

    def complete(self, ask_phone: bool) -> bool:
        return bool(self.name and self.email and (self.phone or not ask_phone))

    def question(self, ask_phone: bool) -> ContactQuestion:
        """What to ask for while the contact is not complete."""
        if ask_phone and self.name and self.email and not self.phone:
            return "phone_invalid" if self.phone_reading.attempted else "phone"
        return "all"


def read_contact(
    text: str,
    offered: list[dict[str, str]],
    known: Mapping[str, str],
    *,
    ask_phone: bool,
    email_known: str = "",
) -> Contact:
    """The contact in `text` with the parts `known` from earlier replies (`name`,
    `email`, `phone`). Without `ask_phone` a number is not looked for."""
    labels = [offer["label"] for offer in offered]
    reading = phone_in(text, labels) if ask_phone else PhoneReading()
    rest = without_phone(text, reading)
    return Contact(
        name=contact_name(rest, offered) or known.get("name", ""),
        email=extract_email(text) or known.get("email", "") or email_known,
        phone=reading.number or known.get("phone", ""),
        phone_reading=reading,
    )


def names_a_phone(text: str, offered: list[dict[str, str]]) -> bool:
    """True when `text` gives a phone number, or tries to (a reply to "your phone number?")."""
    reading = phone_in(text, [offer["label"] for offer in offered])
    return reading.number is not None or reading.attempted
