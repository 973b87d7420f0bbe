"""Facts from a page, before main-content extraction drops its header and footer: schema.org
data (JSON-LD, microdata, RDFa through `extruct`), `tel:` and `mailto:` links, `<address>`,
and lines, table rows and list items naming weekdays with times or services with amounts.
Pure: the page's text in, facts with their position out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from frontdesk.facts.calendar import LANGUAGES, hours_lines, list_words, time_ranges
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
_BLOCKS = frozenset(
    {
        "p",
        "li",
        "dt",
        "dd",
        "td",
        "th",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "div",
        "section",
        "article",
        "address",
        "header",
        "footer",
        "main",
        "aside",
        "nav",
        "table",
        "tbody",
        "thead",
        "ul",
        "ol",
        "dl",
        "form",
        "blockquote",
        "pre",
    }
)
_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_SEPARATORS = " \t|:…·.–—-•*_"
_SCHEMA_DAYS = {
    name: day
    for day, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}


def facts_from_html(html: str, url: str, language: str) -> list[SiteFact]:
    """Every fact the page states, header and footer included."""
    import lxml.html

    try:
        tree = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    facts = list(_structured(html, url))
    for position, element in enumerate(tree.iter("a")):
        href = str(element.get("href") or "").strip()
        region = _region(element)
        if href.lower().startswith("tel:"):
            number = href[4:].strip() or element.text_content().strip()
            facts.append(SiteFact("phone", number, "link", position, region))
        elif href.lower().startswith("mailto:"):
            address = href[7:].split("?", 1)[0].strip()
            if address:
                facts.append(SiteFact("email", address, "link", position, region))
    for position, element in enumerate(tree.iter("address")):
        text = ", ".join(line for line in _br_lines(element) if line)
        if text:
            facts.append(SiteFact("address", text, "address", position, _region(element)))
    lines = list(_lines(tree))
    for position, (line, origin, region) in enumerate(lines):
        parts = sentences(line) if origin == "text" else [line]
        for part in parts:
            facts.extend(facts_from_line(part, language, position, origin, region))
    for position, element in enumerate(tree.iter("ul", "ol"), start=len(lines)):
        line = _list_line(element)
        if line:
            region = _region(element)
            facts.extend(listed_candidates(line, language, position, "text", region))
    return facts


def _list_line(element: Any) -> str:
    """A list of short items with the heading or sentence before it, as one line
    ("Zahlungsarten: Bargeld, EC-Karte, Visa")."""
    items = [" ".join(li.text_content().split()) for li in element if li.tag == "li"]
    if not 2 <= len(items) <= 12:
        return ""
    lead = element.getprevious()
    if lead is None or lead.tag not in ("h1", "h2", "h3", "h4", "h5", "h6", "p", "strong", "b"):
        return ""
    heading = " ".join(lead.text_content().split()).rstrip(":")
    if not heading or ":" in heading:
        return ""
    return f"{heading}: {', '.join(items)}"


def facts_from_text(text: str, language: str) -> list[SiteFact]:
    """Facts of a Markdown or plain-text document, line by line (tables as `| a | b |`)."""
    facts: list[SiteFact] = []
    for position, line in enumerate(text.splitlines()):
        origin: FactOrigin = "table" if line.lstrip().startswith("|") else "text"
        facts.extend(facts_from_line(line.strip().strip("|").strip(), language, position, origin))
    return facts


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


# --- HTML structure --------------------------------------------------------------------


def _region(element: Any) -> PageRegion:
    for ancestor in element.iterancestors():
        if ancestor.tag in ("footer", "header"):
            return "footer" if ancestor.tag == "footer" else "header"
        if str(ancestor.get("role") or "") == "contentinfo":
            return "footer"
    return "main"


def _block_text(element: Any) -> str:
    """An element's text with `<br>` as line breaks (scripts and styles left out)."""
    # A line break in the HTML source is a space; only <br> breaks a line.
    parts: list[str] = [_flat(element.text)]
    for node in element.iterdescendants():
        if node.tag == "br":
            parts.append("\n")
        elif node.text and node.tag not in _SKIPPED:
            parts.append(_flat(node.text))
        if node.tail:
            parts.append(_flat(node.tail))
    return "".join(parts)


def _flat(text: str | None) -> str:
    return (text or "").replace("\r", " ").replace("\n", " ")


# A sentence ends at ".", "!" or "?" after a word of four letters or more or a number
# or a time ("… 13h00. Nous …", "… 4pm. We …"), not after an abbreviation ("Mo. – Fr.").
_PROSE_SENTENCE_END = re.compile(
    r"(?:(?<=[^\W\d_]{4}[.!?])|(?<=\d[.!?])|(?<=\d[^\W\d_][.!?])|(?<=\d[^\W\d_]{2}[.!?]))"
    r"\s+(?=[^\W_])"
)


def sentences(line: str) -> list[str]:
    """A line of prose as its sentences: each states its own days, dates and hours."""
    return [part for part in _PROSE_SENTENCE_END.split(line) if part.strip()]


def _lines(tree: Any) -> Iterator[tuple[str, FactOrigin, PageRegion]]:
    """Text lines of the page: a table row's cells joined by " | ", a leaf block's text
    split at `<br>`."""
    for element in tree.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _SKIPPED or any(a.tag in _SKIPPED for a in element.iterancestors()):
            continue
        if tag == "tr":
            cells = [" ".join(c.text_content().split()) for c in element if c.tag in ("td", "th")]
            yield " | ".join(cell for cell in cells if cell), "table", _region(element)
            continue
        if tag == "dt":
            # A term and its description are one row: "Wednesday to Saturday" | "12pm – 2.30pm".
            following = element.getnext()
            term = " ".join(element.text_content().split())
            if following is not None and following.tag == "dd":
                described = " ".join(following.text_content().split())
                yield f"{term} | {described}", "table", _region(element)
                continue
        if tag == "dd" and element.getprevious() is not None and element.getprevious().tag == "dt":
            continue
        if tag not in _BLOCKS or tag in ("td", "th", "table", "tbody", "thead"):
            continue
        if any(child.tag in _BLOCKS for child in element.iterdescendants()):
            continue
        if any(a.tag == "tr" for a in element.iterancestors()):
            continue
        for line in _br_lines(element):
            if line:
                yield line, "text", _region(element)


def _br_lines(element: Any) -> list[str]:
    return [" ".join(line.split()) for line in _block_text(element).split("\n")]


# --- schema.org ------------------------------------------------------------------------


def _structured(html: str, url: str) -> Iterator[SiteFact]:
    import extruct

    try:
        data = extruct.extract(
            html, base_url=url or None, syntaxes=["json-ld", "microdata", "rdfa"], uniform=True
        )
    except Exception:  # a page's broken structured data must not cost its other facts
        return
    origins: dict[str, FactOrigin] = {
        "json-ld": "json-ld",
        "microdata": "microdata",
        "rdfa": "rdfa",
    }
    for syntax, origin in origins.items():
        for position, item in enumerate(data.get(syntax) or []):
            yield from _schema_item(item, origin, position)


def _texts(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return _texts(value.get("@value") or value.get("name"))
    return [str(value).strip()] if str(value).strip() else []


def _schema_item(item: Any, origin: FactOrigin, position: int) -> Iterator[SiteFact]:
    if isinstance(item, list):
        for part in item:
            yield from _schema_item(part, origin, position)
        return
    if not isinstance(item, dict):
        return
    for graph_item in item.get("@graph") or []:
        yield from _schema_item(graph_item, origin, position)
    for phone in _texts(item.get("telephone")):
        yield SiteFact("phone", phone, origin, position)
    for email in _texts(item.get("email")):
        yield SiteFact("email", email.removeprefix("mailto:"), origin, position)
    address = item.get("address")
    if isinstance(address, dict):
        parts = [
            *_texts(address.get("streetAddress")),
            " ".join(_texts(address.get("postalCode")) + _texts(address.get("addressLocality"))),
        ]
        text = ", ".join(part for part in parts if part)
        if text:
            yield SiteFact("address", text, origin, position)
    elif isinstance(address, str) and address.strip():
        yield SiteFact("address", address.strip(), origin, position)
    for method in _texts(item.get("paymentAccepted")):
        for part in re.split(r"\s*,\s*", method):
            if part:
                yield SiteFact("payment", part, origin, position)
    for spec in _as_list(item.get("openingHoursSpecification")):
        yield from _hours_specification(spec, origin, position)
    for line in _texts(item.get("openingHours")):
        # schema.org's own notation: "Mo-Fr 09:00-18:00" (English two-letter days).
        yield from facts_from_line(line, "en", position, origin)
    for offer in _as_list(item.get("makesOffer")) + _as_list(item.get("offers")):
        yield from _offer(offer, origin, position)
    for key in ("department", "location", "containsPlace", "subOrganization"):
        for part in _as_list(item.get(key)):
            yield from _schema_item(part, origin, position)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _hours_specification(spec: Any, origin: FactOrigin, position: int) -> Iterator[SiteFact]:
    if not isinstance(spec, dict):
        return
    opens, closes = _texts(spec.get("opens"))[:1], _texts(spec.get("closes"))[:1]
    ranges: tuple[tuple[str, str], ...] = ()
    if opens and closes and opens[0][:5] != closes[0][:5]:
        ranges = ((opens[0][:5], closes[0][:5]),)
    valid = _texts(spec.get("validFrom"))[:1]
    until = _texts(spec.get("validThrough"))[:1]
    label = " – ".join(dict.fromkeys(valid + until)) if valid else ""
    named = (
        _SCHEMA_DAYS.get(n.rsplit("/", 1)[-1].casefold()) for n in _texts(spec.get("dayOfWeek"))
    )
    days: list[int | None] = [day for day in named if day is not None]
    value = ", ".join(f"{a}–{b}" for a, b in ranges)
    # A specification with dates and no weekday is an exception: a holiday, a closure.
    for day in days or ([None] if label else []):
        yield SiteFact("hours", value, origin, position, label=label, weekday=day, ranges=ranges)


def _offer(offer: Any, origin: FactOrigin, position: int) -> Iterator[SiteFact]:
    if not isinstance(offer, dict):
        return
    item = offer.get("itemOffered")
    names = _texts(item.get("name") if isinstance(item, dict) else item) or _texts(
        offer.get("name")
    )
    price = _texts(offer.get("price"))[:1]
    specification = offer.get("priceSpecification")
    if not price and isinstance(specification, dict):
        price = _texts(specification.get("price") or specification.get("minPrice"))[:1]
    currency = _texts(offer.get("priceCurrency"))[:1]
    if names and price:
        code = currency[0] if currency else ""
        yield SiteFact(
            "price",
            f"{price[0]} {code}".strip(),
            origin,
            position,
            label=names[0],
            amount=price[0],
            currency=code,
        )


__all__ = ["LANGUAGES", "facts_from_html", "facts_from_line", "facts_from_text", "page_facts"]


def page_facts(html: str, url: str, text: str) -> tuple[SiteFact, ...]:
    """The facts of a whole HTML page, read in the language of its main text."""
    from frontdesk.text.lexical import text_language

    return tuple(facts_from_html(html, url, text_language(text)))


# Part of an ingested page's fingerprint: a change to how facts are read re-reads pages.
FACTS_VERSION = "facts-5"


def document_facts(document: Any, language: str) -> tuple[SiteFact, ...]:
    """A loaded document's facts: a web page's were read from its whole HTML when it was
    loaded; Markdown and text documents are read line by line here."""
    if document.kind == "html" or document.facts:
        return tuple(document.facts)
    return tuple(facts_from_text(document.text, language))
