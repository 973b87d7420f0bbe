"""Visitor enrichment: who is this visitor's company? (seed 000 "Enrichment System").

A priority pipeline that stops at the first source that completes:
1. cache — in-process, short-lived, per site and IP hash;
2. returning visitor — the `visitors` table, by the salted IP hash;
3. reveal — data the page's own script passed in (`VisitorContext.reveal`);
4. HTTP providers — the site's `enrichment.providers`, called in order with a timeout.

The result is merged into the conversation's `visitor_profile` by the graph
(`enricher_awaiter`, ANSWER path only). Only the IP *hash* ever reaches this module
or the store; providers receive the hash, never an address.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from frontdesk.conversation.payload import VisitorContext
from frontdesk.sites.schema import EnrichmentProvider, SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.repositories import VisitorRepository

log = logging.getLogger(__name__)

Status = Literal["completed", "not_found", "error"]
PROFILE_FIELDS = (
    "company_name",
    "company_domain",
    "company_description",
    "sector",
    "sub_sector",
    "company_size",
    "country",
    "tier",
)
ALIASES: Mapping[str, str] = {
    "company": "company_name",
    "name": "company_name",
    "domain": "company_domain",
    "industry": "sector",
    "employees": "company_size",
}
MAX_VALUE_CHARS = 300


@dataclass(frozen=True)
class EnrichmentResult:
    status: Status
    source: str
    profile: dict[str, str] = field(default_factory=dict)


def clean_profile(raw: Mapping[str, Any]) -> dict[str, str]:
    """Known company fields only, as short strings ("unknown" and blanks dropped)."""
    profile: dict[str, str] = {}
    for key, value in raw.items():
        name = ALIASES.get(key, key)
        if name not in PROFILE_FIELDS or value in (None, "", "unknown"):
            continue
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            profile.setdefault(name, str(value)[:MAX_VALUE_CHARS])
    return profile


class TtlCache:
    """A bounded in-process cache (one process; Redis would share it across replicas)."""

    def __init__(
        self, max_items: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_items = max_items
        self.clock = clock
        self._items: OrderedDict[tuple[str, str], tuple[float, dict[str, str]]] = OrderedDict()

    def get(self, key: tuple[str, str]) -> dict[str, str] | None:
        found = self._items.get(key)
        if found is None:
            return None
        expires, value = found
        if expires < self.clock():
            del self._items[key]
            return None
        return dict(value)

    def put(self, key: tuple[str, str], value: dict[str, str], ttl_s: float) -> None:
        if ttl_s <= 0:
            return
        self._items[key] = (self.clock() + ttl_s, dict(value))
        self._items.move_to_end(key)
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)


Source = Callable[[SiteConfig, VisitorContext], Awaitable[EnrichmentResult]]


class Enricher:
    """The pipeline for every site of a process; `for_site` gives the graph's `enrich`."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        client: httpx.AsyncClient | None = None,
        cache: TtlCache | None = None,
    ) -> None:
        self.sessions = sessions
        self.cache = cache or TtlCache()
        self._client = client

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(follow_redirects=False)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def for_site(self, site: SiteConfig) -> Callable[[VisitorContext], Awaitable[dict[str, Any]]]:
        async def enrich(visitor: VisitorContext) -> dict[str, Any]:
            return await self.enrich(site, visitor)

        return enrich

    def sources(self, site: SiteConfig) -> list[Source]:
        providers: list[Source] = [self._provider(p) for p in site.enrichment.providers]
        return [self._from_cache, self._returning_visitor, self._from_reveal, *providers]

    async def enrich(self, site: SiteConfig, visitor: VisitorContext) -> dict[str, Any]:
        """Profile fields from the first source that completes ({} when none does)."""
        if not site.enrichment.enabled:
            return {}
        for source in self.sources(site):
            try:
                result = await source(site, visitor)
            except Exception:  # one broken source never breaks the turn
                log.warning("enrichment source failed", exc_info=True)
                continue
            if result.status == "completed" and result.profile:
                await self._remember(site, visitor, result)
                return {
                    **result.profile,
                    "enrichment_status": "completed",
                    "enrichment_source": result.source,
                }
        return {}

    async def _remember(
        self, site: SiteConfig, visitor: VisitorContext, result: EnrichmentResult
    ) -> None:
        if not visitor.ip_hash:
            return
        key = (site.id, visitor.ip_hash)
        if result.source != "cache":
            self.cache.put(key, result.profile, site.enrichment.cache_ttl_s)
        if result.source not in ("cache", "returning_visitor"):
            await asyncio.to_thread(self._store, site.id, visitor.ip_hash, result)

    def _store(self, site_id: str, ip_hash: str, result: EnrichmentResult) -> None:
        try:
            with transaction(self.sessions) as session:
                VisitorRepository(session).remember(site_id, ip_hash, result.profile, result.source)
        except IntegrityError:  # the same visitor's other tab got there first
            log.debug("visitor already remembered")

    # -- sources -----------------------------------------------------------------------
    async def _from_cache(self, site: SiteConfig, visitor: VisitorContext) -> EnrichmentResult:
        cached = self.cache.get((site.id, visitor.ip_hash)) if visitor.ip_hash else None
        return EnrichmentResult("completed", "cache", cached) if cached else _not_found("cache")

    async def _returning_visitor(
        self, site: SiteConfig, visitor: VisitorContext
    ) -> EnrichmentResult:
        if not visitor.ip_hash:
            return _not_found("returning_visitor")

        def lookup() -> dict[str, str]:
            with self.sessions() as session:
                known = VisitorRepository(session).get(site.id, visitor.ip_hash)
                return clean_profile(known.profile) if known is not None else {}

        profile = await asyncio.to_thread(lookup)
        if not profile:
            return _not_found("returning_visitor")
        return EnrichmentResult("completed", "returning_visitor", profile)

    async def _from_reveal(self, site: SiteConfig, visitor: VisitorContext) -> EnrichmentResult:
        profile = clean_profile(visitor.reveal)
        return EnrichmentResult("completed", "reveal", profile) if profile else _not_found("reveal")

    def _provider(self, provider: EnrichmentProvider) -> Source:
        async def call(site: SiteConfig, visitor: VisitorContext) -> EnrichmentResult:
            source = f"provider:{provider.name}"
            if not visitor.ip_hash:
                return _not_found(source)
            try:
                response = await self.client.post(
                    str(provider.url),
                    json={
                        "site_id": site.id,
                        "ip_hash": visitor.ip_hash,
                        "user_agent": visitor.user_agent,
                        "page_url": visitor.page_url,
                    },
                    headers=provider.headers,
                    timeout=provider.timeout_s,
                )
            except httpx.HTTPError as exc:
                log.info("enrichment provider %s failed: %s", provider.name, type(exc).__name__)
                return EnrichmentResult("error", source)
            if response.status_code == 404:
                return _not_found(source)
            if response.status_code != 200:
                return EnrichmentResult("error", source)
            try:
                body = response.json()
            except ValueError:
                return EnrichmentResult("error", source)
            if not isinstance(body, dict) or body.get("status") not in (None, "completed"):
                return _not_found(source)
            company = body.get("company")
            profile = clean_profile(company if isinstance(company, dict) else body)
            return EnrichmentResult("completed", source, profile) if profile else _not_found(source)

        return call


def _not_found(source: str) -> EnrichmentResult:
    return EnrichmentResult("not_found", source)
