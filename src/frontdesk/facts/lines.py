"""Facts from one line of text: weekday hours, a dated exception, a contact line's e-mail
and phone, a header's or footer's postal address, a service with its price, and a list
of short names (payment candidates). Pure: a line in, facts with their position out."""

from __future__ import annotations

import re
from typing import Any

from frontdesk.facts.calendar import hours_lines, list_words, time_ranges
from frontdesk.facts.dates import dates_named
from frontdesk.facts.model import FactOrigin, PageRegion, SiteFact
from frontdesk.facts.money import amounts

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}")
# An international number as written in text ("+49 30 1234567"): unambiguous, unlike a
# bare run of digits (dates, prices, postcodes).
_PHONE = re.compile(r"\+\d[\d  ()/.-]{6,}\d")
# An address or number written in the main text is the site's own only on a contact line
# ("E-Mail: info@radwerk.de"); in prose it is an example or someone else's ("send it to
# user@example.com"). Links, <address> and header or footer count wherever they are.
CONTACT_LINE_WORDS = 6
_WORDS = re.compile(r"[^\W\d_]+")
_SEPARATORS = " \t|:…·.–—-•*_"


def facts_from_line(
    line: str, language: str, position: int, origin: FactOrigin, region: PageRegion = "main"
) -> list[SiteFact]:
    if not line.strip():
        return []
    facts: list[SiteFact] = []
    money = [(amount.start, amount.end) for amount in amounts(line, language)]
    exception = _dated(line, language, position, origin, region, money)
    if exception is not None:
        return [exception]
    for hours in hours_lines(line, language, money):
        for day in hours.days:
            facts.append(
                SiteFact(
                    "hours",
                    line.strip(),
                    origin,
                    position,
                    region,
                    weekday=day,
                    ranges=hours.ranges,
                    note=hours.note,
                )
            )
    if facts:
        return facts
    if region != "main":
        facts.extend(_footer_addresses(line, language, origin, position, region))
    if region != "main" or len(_WORDS.findall(line)) <= CONTACT_LINE_WORDS:
        for match in EMAIL.finditer(line):
            facts.append(SiteFact("email", match.group(), origin, position, region))
        for match in _PHONE.finditer(line):
            facts.append(SiteFact("phone", match.group().strip(), origin, position, region))
    prices = _prices(line, language, position, origin, region)
    facts.extend(prices)
    if not facts:
        facts.extend(listed_candidates(line, language, position, origin, region))
    return facts


# A listed item is a name, not a clause: at most this many words, and no digits.
LIST_ITEM_WORDS = 4
# The lead-in of a listed line ("Wir akzeptieren", "Zahlungsarten:") is short, too.
LIST_LEAD_WORDS = 6


def list_items(line: str, language: str) -> tuple[str, tuple[str, ...]] | None:
    """(lead-in, items) of a line that lists short names: "Wir akzeptieren EC-Karte, Visa
    und Bargeld", "Zahlungsarten: Bargeld, EC-Karte", "Оплата: наличные или карта". Read
    by structure only: commas and CLDR's own "and" and "or" of the page's language."""
    # An aside in brackets qualifies an item ("la carte bancaire (sans minimum)").
    text = re.sub(r"\s*\([^()]*\)", "", line).strip().rstrip(".!;")
    if re.search(r"\d", text) or "|" in text or not text:
        return None  # digits: hours or prices; "|": a table row, whose cells are items
    lead, colon, rest = text.partition(":")
    if not colon:
        lead, rest = "", text
    joiners = "|".join(re.escape(word) for word in list_words(language))
    splitter = rf"\s*,\s*(?:(?:{joiners})\s+)?|\s+(?:{joiners})\s+" if joiners else r"\s*,\s*"
    items = [item.strip(" -–*•") for item in re.split(splitter, rest, flags=re.IGNORECASE)]
    items = [item for item in items if item]
    if len(items) < 2 or any(len(_WORDS.findall(item)) > LIST_ITEM_WORDS for item in items[1:]):
        return None
    if not colon:
        # The first item follows the lead-in ("Wir akzeptieren EC-Karte"): as many words
        # as the shortest other item has.
        words = items[0].split()
        size = min(len(item.split()) for item in items[1:])
        lead, items[0] = " ".join(words[:-size]), " ".join(words[-size:])
    if len(_WORDS.findall(items[0])) > LIST_ITEM_WORDS or len(lead.split()) > LIST_LEAD_WORDS:
        return None
    if any(not _WORDS.search(item) for item in items):
        return None
    return lead.strip(), tuple(items)


def listed_candidates(
    line: str, language: str, position: int, origin: FactOrigin, region: PageRegion = "main"
) -> list[SiteFact]:
    """The items of a listed line, as payment methods to be confirmed by the line's meaning
    at ingest (`meaning.confirmed`): which list is about paying is not a matter of words
    a list could name. `label` keeps the whole line, `note` marks the candidate."""
    candidates: list[SiteFact] = []
    for sentence in _SENTENCE_END.split(line.strip()):
        found = list_items(sentence, language)
        if found is None:
            continue
        candidates += [
            SiteFact("payment", item, origin, position, region, label=sentence, note=LISTED)
            for item in found[1]
        ]
    return candidates


# A paragraph's sentences are read one by one: "Puoi pagare in contanti, con bancomat o
# con Satispay. Non accettiamo assegni."
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)")


LISTED = "listed"


# Parts of a header or footer line ("Name · 61 The Shore, Leith, Edinburgh EH6 6RA · tel").
_PARTS = re.compile(r"\s+[·•|–—]\s+")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _footer_addresses(
    line: str, language: str, origin: FactOrigin, position: int, region: PageRegion
) -> list[SiteFact]:
    """A postal address written as text in the header or footer, where small sites keep it
    ("14 rue Paul Bert, 69003 Lyon", "г. Казань, ул. Техническая, 27"): a part of the line
    with comma-separated pieces, words and a house number or postcode; no year, e-mail,
    phone, time or amount (those are other facts)."""
    found: list[SiteFact] = []
    for part in _PARTS.split(line):
        part = part.strip()
        pieces = [piece for piece in part.split(",") if piece.strip()]
        words = _WORDS.findall(part)
        if len(pieces) < 2 or not 2 <= len(words) <= 10 or "©" in part:
            continue
        if EMAIL.search(part) or _PHONE.search(part) or time_ranges(part):
            continue
        if amounts(part, language):
            continue
        if not re.search(r"(?<!\d)\d{1,5}(?!\d)", _YEAR.sub("", part)):
            continue
        found.append(SiteFact("address", part, origin, position, region))
    return found


def _dated(
    line: str,
    language: str,
    position: int,
    origin: FactOrigin,
    region: PageRegion,
    money: list[tuple[int, int]],
) -> SiteFact | None:
    """A line naming a date or a month with hours, a day or a closure: an exception to the
    weekly hours ("24 de diciembre: de 9:00 a 14:00", "Fermeture annuelle : du 4 au 25 août",
    "En agosto … de martes a viernes de 9:00 a 15:00"), kept as the page wrote it."""
    named = dates_named(line, (language,))
    if not named or money or len(line) > 300:
        return None
    dated = any(mention.day is not None for mention in named)
    if not (dated or time_ranges(line) or hours_lines(line, language)):
        return None  # a month in passing ("new menu in September") is no exception
    ranges = tuple(found[2] for found in time_ranges(line))
    label = line.strip()
    return SiteFact("hours", label, origin, position, region, label=label, ranges=ranges)


def _prices(
    line: str, language: str, position: int, origin: FactOrigin, region: PageRegion
) -> list[SiteFact]:
    """A service with its amount: "Schlauch wechseln … 12 €", "| Révision | dès 49 € |".
    The words between the service and the amount ("ab", "à partir de") are kept with the
    amount as the page wrote them: they say whether it is a starting price."""
    found = amounts(line, language)
    if len(found) > 1 and origin == "text" and "|" not in line:
        return _prose_prices(line, found, position, region)
    if len(found) != 1:
        return []  # a row with several amounts is a comparison, not a price entry
    amount = found[0]
    before = line[: amount.start]
    cells = [cell.strip() for cell in before.split("|")]
    service_part = next((cell for cell in cells if re.search(r"[^\W\d_]{2,}", cell)), "")
    if "|" in before:
        qualifier = cells[-1] if cells[-1] != service_part else ""
    else:
        split = re.split(r"\s*(?:[:…·|–—]|\.{2,}|\s-\s)\s*", before, maxsplit=1)
        service_part = split[0]
        qualifier = split[1] if len(split) > 1 else ""
    service = service_part.strip(_SEPARATORS)
    if not re.search(r"[^\W\d_]{2,}", service) or len(service) > 80:
        return []
    qualifier = qualifier.strip(_SEPARATORS)
    value = f"{qualifier} {amount.text}".strip() if len(qualifier) <= 20 else amount.text
    return [
        SiteFact(
            "price",
            value,
            origin,
            position,
            region,
            label=service,
            amount=str(amount.value),
            currency=amount.currency,
        )
    ]


def _prose_prices(line: str, found: list[Any], position: int, region: PageRegion) -> list[SiteFact]:
    """A sentence pricing several things ("Le croissant est à 1,20 € et le pain au chocolat
    à 1,35 €"): each amount with the clause before it, back to the previous amount. A clause
    of fewer than two words ("to £500", "bis 20 €") is a range's end, not a price."""
    facts: list[SiteFact] = []
    start = 0
    for amount in found:
        clause = line[start : amount.start].strip(_SEPARATORS + ",;")
        start = amount.end
        words = _WORDS.findall(clause)
        if len(words) < 2 or not any(len(word) >= 4 for word in words):
            continue
        value = f"{clause} {amount.text}"
        facts.append(
            SiteFact(
                "price",
                value,
                "text",
                position,
                region,
                label=clause,
                amount=str(amount.value),
                currency=amount.currency,
            )
        )
    return facts


# A sentence ends at ".", "!" or "?" after a word of four letters or more or a number
# or a time ("… 13h00. Nous …", "… 4pm. We …"), not after an abbreviation ("Mo. – Fr.").
_PROSE_SENTENCE_END = re.compile(
    r"(?:(?<=[^\W\d_]{4}[.!?])|(?<=\d[.!?])|(?<=\d[^\W\d_][.!?])|(?<=\d[^\W\d_]{2}[.!?]))"
    r"\s+(?=[^\W_])"
)


def sentences(line: str) -> list[str]:
    """A line of prose as its sentences: each states its own days, dates and hours."""
    return [part for part in _PROSE_SENTENCE_END.split(line) if part.strip()]
