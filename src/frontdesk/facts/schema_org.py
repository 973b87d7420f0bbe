"""Facts a page states as schema.org data (JSON-LD, microdata, RDFa through `extruct`):
telephone, e-mail, address, payment accepted, opening hours and offers with prices."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from frontdesk.facts.lines import facts_from_line
from frontdesk.facts.model import FactOrigin, SiteFact

_SCHEMA_DAYS = {
    name: day
    for day, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}


def schema_org_facts(html: str, url: str) -> Iterator[SiteFact]:
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
