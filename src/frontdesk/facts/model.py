"""A site fact and its provenance: one value a page states, where it says it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

FactKind = Literal["hours", "address", "phone", "email", "price", "payment"]
FACT_KINDS: tuple[FactKind, ...] = get_args(FactKind)
# Where on the page a fact was read: structured data, a link, an <address>, a table row,
# a line of text; and in which part of the page (site-wide parts are read, not dropped).
# "team": a correction the site's team made in the console, which wins over the crawl.
FactOrigin = Literal["json-ld", "microdata", "rdfa", "link", "address", "table", "text", "team"]
PageRegion = Literal["main", "header", "footer"]


@dataclass(frozen=True)
class SiteFact:
    """One fact. `value` is the fact as the page writes it (an address, a phone number, a
    price with its qualifier such as "ab 12 €"); hours carry their weekday (0 = Monday)
    and ranges ("09:30", "18:30"), or `note` when the page names the day with no times
    (its own word for closed). `label` names what the fact is about: the service of a
    price, the date of an exception to the weekly hours."""

    kind: FactKind
    value: str
    origin: FactOrigin
    position: int = 0
    region: PageRegion = "main"
    label: str = ""
    weekday: int | None = None
    ranges: tuple[tuple[str, str], ...] = ()
    note: str = ""
    amount: str = ""
    currency: str = ""
    # Provenance filled in by ingestion: the document and the address the answer cites.
    doc_id: str = ""
    url: str = ""
    title: str = ""
    # A team correction's author (the operator's e-mail) and when it was made (ISO 8601).
    author: str = ""
    corrected_at: str = ""
    # The key (`corrections.fact_key`) of what a team correction stands for: the crawled
    # fact it replaces, so the correction keeps replacing it after every re-crawl.
    corrects: str = ""

    @property
    def corrected(self) -> bool:
        return self.origin == "team"

    @property
    def identity(self) -> tuple[object, ...]:
        """What makes two facts the same fact (a footer read on every page is one)."""
        return (self.kind, self.label.casefold(), self.weekday, self.ranges, self.value)

    def to_json(self) -> str:
        data = asdict(self)
        for key in ("doc_id", "url", "title"):
            data.pop(key)
        for key in ("author", "corrected_at", "corrects"):  # a crawled fact's JSON stays as it was
            if not data[key]:
                data.pop(key)
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, *, doc_id: str, url: str, title: str) -> SiteFact:
        data: dict[str, Any] = json.loads(text)
        data["ranges"] = tuple(tuple(pair) for pair in data.get("ranges") or ())
        return cls(**data, doc_id=doc_id, url=url, title=title)


@dataclass(frozen=True)
class SiteFacts:
    """Every fact of one site, each once."""

    facts: tuple[SiteFact, ...] = field(default_factory=tuple)

    def of_kind(self, kind: FactKind) -> tuple[SiteFact, ...]:
        return tuple(fact for fact in self.facts if fact.kind == kind)

    @property
    def kinds(self) -> frozenset[FactKind]:
        return frozenset(fact.kind for fact in self.facts)


def deduplicated(facts: list[SiteFact]) -> SiteFacts:
    """One fact per identity: the one a page's main content states wins over a header or
    footer copy, then the first page in order (the caller sorts)."""
    chosen: dict[tuple[object, ...], SiteFact] = {}
    for fact in facts:
        known = chosen.get(fact.identity)
        if known is None or (known.region != "main" and fact.region == "main"):
            chosen[fact.identity] = fact
    return SiteFacts(tuple(chosen.values()))
