"""Conversation acts: what a message is on its own, whatever the business.

A greeting, "how are you", thanks, a goodbye, a bare yes or no, or an e-mail address or
phone number sent alone gets its own short reply (`conversation/texts.yaml`, `act.*`) and
never a quoted page. The first six are read by the intent model's act head, trained on
the project's own rows in eight languages (`data/phrases`, rows ending in `~act`) and the
CLINC150 train split's greetings, goodbyes, thanks, yes and no; a message that asks or
states something besides ("Hallo, wann habt ihr offen?") is no act to that head, and the
router answers it anyway (`route_table.decide_route`). An address or number alone is read by
its shape: it has no language.
"""

from __future__ import annotations

import re
from typing import Literal

from frontdesk.engines.local.signals import extract_email

Contact = Literal["email", "phone"]

# A phone number as people type it: an optional +, digits with spaces, dots, dashes,
# slashes or parentheses between them.
_PHONE = re.compile(r"\+?\(?\d[\d\s().\-/]{4,}\d")
_MIN_PHONE_DIGITS = 6
_LEFT_OVER = re.compile(r"[^\W_]")  # a letter or digit that is not part of the address


def lone_contact(text: str) -> Contact | None:
    """Pure: "email" when the message is an e-mail address and nothing else (punctuation
    and emoji aside), "phone" when it is only a phone number, else None."""
    stripped = text.strip()
    email = extract_email(stripped)
    if email is not None:
        rest = stripped.replace(email, " ")
        return "email" if not _LEFT_OVER.search(rest) else None
    match = _PHONE.fullmatch(stripped.rstrip(".!"))
    if match is not None and sum(ch.isdigit() for ch in match.group(0)) >= _MIN_PHONE_DIGITS:
        return "phone"
    return None


def without_contacts(text: str) -> str:
    """The message without its e-mail addresses and phone numbers: what is left to tell
    its language by (an address is no word of any language)."""
    while (email := extract_email(text)) is not None:
        text = text.replace(email, " ")
    return _PHONE.sub(" ", text)
