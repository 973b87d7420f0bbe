"""Reading the visitor's answer to "how can our team reach you?" (pure, no I/O).

A handoff nobody can answer live asks for a way to reach the visitor — an e-mail
address, a phone number or either, as the site's `handoff.contact` says. The next
message either carries one (`contact_in`; a phone number is read as a booking reads it,
`appointments.phones`), refuses (`declines_contact`), or is asked again
(`outcomes.contact_reply` decides).
"""

from __future__ import annotations

import re
from typing import Literal

from frontdesk.appointments.phones import phone_in
from frontdesk.engines.local.signals import extract_email
from frontdesk.sites.handoff import ContactWay

ContactKind = Literal["email", "phone"]

# "No", "I'd rather not", "no thanks", "without e-mail" in the widget's eight languages:
# a refusal to leave a contact, not a question or a contact.
_DECLINE = re.compile(
    r"^\W*(?:no|nope|nah|нет|non|nein|nee|não|nao)\W*$"
    r"|\b(?:rather not|prefer not|no,? thanks|no,? thank you|don'?t want to|do not want to"
    r"|won'?t (?:give|share|leave)|not (?:giving|sharing|leaving)|no (?:e-?mail|phone|number)"
    r"|without (?:an? )?(?:e-?mail|phone|number)|not now|anonymous(?:ly)?)\b"
    r"|не (?:хочу|буду|стоит|надо|нужно)|без (?:почты|email|e-mail|телефона|номера)"
    r"|нет,? спасибо|лучше не"
    r"|\b(?:non,? merci|je préfère pas|je préfère ne pas|sans (?:e-?mail|téléphone|numéro)"
    r"|pas d'?e-?mail|pas de (?:téléphone|numéro))"
    r"|\b(?:nein,? danke|lieber (?:nicht|keine?)|möchte ich nicht|will ich nicht"
    r"|ohne (?:e-?mail|telefon|nummer)"
    r"|keine (?:e-?mail|telefonnummer|nummer))\b"
    r"|\b(?:no,? gracias|prefiero no|sin (?:correo|e-?mail|tel[eé]fono|n[uú]mero)|no quiero)\b"
    r"|\b(?:no,? grazie|preferisco (?:di )?no|preferisco non|senza (?:e-?mail|telefono|numero)"
    r"|non voglio)\b"
    r"|\b(?:não,? obrigad[oa]|prefiro não|sem (?:e-?mail|telefone|número)|não quero)\b"
    r"|\b(?:nee,? bedankt|liever (?:niet|geen)|zonder (?:e-?mail|telefoon|nummer)|wil ik niet)\b",
    re.IGNORECASE,
)


def contact_in(text: str, way: ContactWay) -> tuple[ContactKind, str] | None:
    """The contact of the kind the site asks for in the message, or None."""
    if way in ("email", "either") and (email := extract_email(text)) is not None:
        return "email", email
    if way in ("phone", "either") and (phone := phone_in(text).number) is not None:
        return "phone", phone
    return None


def declines_contact(text: str) -> bool:
    """Pure: the message refuses to leave a contact ("no thanks", "lieber nicht")."""
    return bool(_DECLINE.search(text.strip()))
