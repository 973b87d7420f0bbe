"""Visitor enrichment: who is this visitor's company?

A priority pipeline that stops at the first source that completes:
1. cache — short-lived, per site and IP hash: in-process, or in Redis (shared by
   replicas) when `FRONTDESK_REDIS_URL` is set; Redis down is a miss, never an error;
2. returning visitor — the `visitors` table, by the salted IP hash;
3. reveal — data the page's own script passed in (`VisitorContext.reveal`);
4. HTTP providers — the site's `enrichment.providers`, called in order with a timeout.

Reveal data comes from the visitor's browser, so anyone can send anything: it is used
for this session only — never cached per IP, never stored as a returning visitor's
profile — and, like every source's values, cleaned (`guard.visitor_text.clean_field`:
no control characters or markup, at most 300 characters) before it reaches the profile.
Only provider results (the operator's own APIs) are cached and remembered.

The result is merged into the conversation's `visitor_profile` by the graph
(`enricher_awaiter`, ANSWER path only). Only the IP *hash* ever reaches this module
or the store; providers receive the hash, never an address.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import httpx
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from frontdesk.conversation.payload import VisitorContext
from frontdesk.guard.redis import CACHE_TIMEOUT_S, RedisOutage, redis_client
from frontdesk.guard.visitor_text import clean_field
from frontdesk.settings import Settings, get_settings
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
MAX_VALUE_CHARS = 300  # what the API accepts per reveal value; packets cut fields to 200
# Sources whose results describe the IP (and may serve other sessions from it).
SHARED_SOURCES = ("cache", "returning_visitor")
PER_SESSION_SOURCES = frozenset({"reveal"})


@dataclass(frozen=True)
class EnrichmentResult:
    status: Status
    source: str
    profile: dict[str, str] = field(default_factory=dict)


def clean_profile(raw: Mapping[str, Any]) -> dict[str, str]:
    """Known company fields only, as short clean one-line strings ("unknown" and blanks
    dropped; control characters and markup removed)."""
    profile: dict[str, str] = {}
    for key, value in raw.items():
        name = ALIASES.get(key, key)
        if name not in PROFILE_FIELDS or value in (None, "", "unknown"):
            continue
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = clean_field(value, MAX_VALUE_CHARS)
            if text and text != "unknown":
                profile.setdefault(name, text)
    return profile


CacheKey = tuple[str, str]  # (site id, IP hash)


class EnrichmentCache(Protocol):
    """Profiles by (site id, IP hash) for `ttl_s` seconds; a failure is a miss."""

    async def get(self, key: CacheKey) -> dict[str, str] | None: ...

    async def put(self, key: CacheKey, value: dict[str, str], ttl_s: float) -> None: ...


class TtlCache:
    """A bounded in-process cache: the single-process default."""

    def __init__(
        self, max_items: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_items = max_items
        self.clock = clock
        self._items: OrderedDict[CacheKey, tuple[float, dict[str, str]]] = OrderedDict()

    async def get(self, key: CacheKey) -> dict[str, str] | None:
        found = self._items.get(key)
        if found is None:
            return None
        expires, value = found
        if expires < self.clock():
            del self._items[key]
            return None
        return dict(value)

    async def put(self, key: CacheKey, value: dict[str, str], ttl_s: float) -> None:
        if ttl_s <= 0:
            return
        self._items[key] = (self.clock() + ttl_s, dict(value))
        self._items.move_to_end(key)
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)


class RedisEnrichmentCache:
    """Shared by replicas: `<prefix>enrich:<site id>:<IP hash>` → the profile as JSON,
    expiring after the site's `enrichment.cache_ttl_s`.

    Never raises: Redis down is a miss (the pipeline goes on to the next source) and one
    warning per outage. The asyncio client is made per event loop, on first use."""

    def __init__(
        self,
        connect: Callable[[], Any],
        prefix: str = "frontdesk:",
        *,
        outage: RedisOutage | None = None,
    ) -> None:
        self._connect = connect
        self.prefix = prefix
        self.outage = outage or RedisOutage("enrichment cache")
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def key(self, key: CacheKey) -> str:
        site_id, ip_hash = key
        return f"{self.prefix}enrich:{site_id}:{ip_hash}"

    def _redis(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._connect(), loop
        return self._client

    async def get(self, key: CacheKey) -> dict[str, str] | None:
        if self.outage.skip():
            return None
        try:
            raw = await self._redis().get(self.key(key))
        except Exception as exc:  # connection refused, timeout, auth: a miss
            self.outage.failed(exc)
            return None
        self.outage.ok()
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            return None
        return clean_profile(value) if isinstance(value, dict) else None

    async def put(self, key: CacheKey, value: dict[str, str], ttl_s: float) -> None:
        if ttl_s <= 0 or self.outage.skip():
            return
        try:
            await self._redis().set(
                self.key(key), json.dumps(value), px=max(1, round(ttl_s * 1000))
            )
        except Exception as exc:
            self.outage.failed(exc)
            return
        self.outage.ok()

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await client.aclose()


def enrichment_cache_for(settings: Settings | None = None) -> EnrichmentCache:
    """In-process, or Redis (shared by replicas) when the settings name a Redis URL."""
    settings = settings or get_settings()
    if not settings.redis_url:
        return TtlCache()
    if importlib.util.find_spec("redis") is None:  # an optional extra
        log.warning("FRONTDESK_REDIS_URL is set but redis is not installed: cache in-process")
        return TtlCache()
    url = settings.redis_url
    return RedisEnrichmentCache(
        lambda: redis_client(url, timeout_s=CACHE_TIMEOUT_S), settings.redis_prefix
    )


Source = Callable[[SiteConfig, VisitorContext], Awaitable[EnrichmentResult]]


class Enricher:
    """The pipeline for every site of a process; `for_site` gives the graph's `enrich`."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        client: httpx.AsyncClient | None = None,
        cache: EnrichmentCache | None = None,
    ) -> None:
        self.sessions = sessions
        # Default: from the process settings (Redis when FRONTDESK_REDIS_URL is set).
        self.cache = enrichment_cache_for() if cache is None else cache
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
        close_cache = getattr(self.cache, "aclose", None)
        if close_cache is not None:
            await close_cache()

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
        # Reveal data is the browser's word for this session: another session from the
        # same IP (an office, a proxy, a load balancer) must never inherit it.
        if not visitor.ip_hash or result.source in PER_SESSION_SOURCES:
            return
        key = (site.id, visitor.ip_hash)
        if result.source != "cache":
            await self.cache.put(key, result.profile, site.enrichment.cache_ttl_s)
        if result.source not in SHARED_SOURCES:
            await asyncio.to_thread(self._store, site.id, visitor.ip_hash, result)

    def _store(self, site_id: str, ip_hash: str, result: EnrichmentResult) -> None:
        try:
            with transaction(self.sessions) as session:
                VisitorRepository(session).remember(site_id, ip_hash, result.profile, result.source)
        except IntegrityError:  # the same visitor's other tab got there first
            log.debug("visitor already remembered")

    # -- sources -----------------------------------------------------------------------
    async def _from_cache(self, site: SiteConfig, visitor: VisitorContext) -> EnrichmentResult:
        cached = await self.cache.get((site.id, visitor.ip_hash)) if visitor.ip_hash else None
        return EnrichmentResult("completed", "cache", cached) if cached else _not_found("cache")

    async def _returning_visitor(
        self, site: SiteConfig, visitor: VisitorContext
    ) -> EnrichmentResult:
        if not visitor.ip_hash:
            return _not_found("returning_visitor")

        def lookup() -> dict[str, str]:
            with self.sessions() as session:
                known = VisitorRepository(session).get(site.id, visitor.ip_hash)
                # Rows remembered from reveal data by earlier versions are not the truth.
                if known is None or known.source in PER_SESSION_SOURCES:
                    return {}
                return clean_profile(known.profile)

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
