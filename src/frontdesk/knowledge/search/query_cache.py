"""Embeddings of repeated questions, so a question asked again skips the model.

- `InMemoryQueryCache`: an LRU of vectors in this process, the default. Every search
  reads it first, so a hit is one dict lookup under a lock.
- `RedisQueryCache`: vectors shared by every replica. Key
  `<FRONTDESK_REDIS_PREFIX>qvec:<embedding model>:<sha256 of the question>`, value the
  vector's float32 bytes, expiring after `FRONTDESK_QUERY_CACHE_TTL_S` (7 days). A Redis
  failure is a miss — the question is embedded as usual — and one warning per outage.
- `LayeredQueryCache`: this process first, then Redis; a Redis hit is kept in-process.

`query_cache_for(settings)` gives the layered cache when `FRONTDESK_REDIS_URL` is set,
else the in-process LRU.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from frontdesk.guard.redis import RedisOutage, redis_sync_client
from frontdesk.knowledge.index.base import Vector
from frontdesk.knowledge.search.query import unshouted
from frontdesk.settings import Settings, get_settings
from frontdesk.text.embedding import Embedder, Matrix

log = logging.getLogger(__name__)

DEFAULT_SIZE = 2048
_FLOAT32 = np.dtype("<f4")  # little-endian on the wire, whatever the replica's CPU

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class QueryCache(Protocol):
    """Question vectors by embedding model and question text."""

    def get(self, model: str, query: str) -> Vector | None: ...

    def put(self, model: str, query: str, vector: Vector) -> None: ...


class LruCache(Generic[K, V]):
    """At most `max_items` values, the least recently used first out; thread-safe.
    `max_items` 0 keeps nothing. Counts its hits and misses (benchmarks report them)."""

    def __init__(self, max_items: int) -> None:
        self.max_items = max_items
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
            else:
                self.hits += 1
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        if self.max_items <= 0:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)


class InMemoryQueryCache:
    """The least recently used vectors of this process, at most `max_items`."""

    def __init__(self, max_items: int = DEFAULT_SIZE) -> None:
        self.max_items = max_items
        self._vectors: LruCache[tuple[str, str], Vector] = LruCache(max_items)

    def __len__(self) -> int:
        return len(self._vectors)

    def get(self, model: str, query: str) -> Vector | None:
        return self._vectors.get((model, query))

    def put(self, model: str, query: str, vector: Vector) -> None:
        self._vectors.put((model, query), vector)


class RedisQueryCache:
    """Vectors shared by replicas; never raises (a failure is a miss or a skipped write)."""

    def __init__(
        self,
        client: Any,
        prefix: str = "frontdesk:",
        *,
        ttl_s: int = 7 * 86_400,
        outage: RedisOutage | None = None,
    ) -> None:
        self._client = client
        self.prefix = prefix
        self.ttl_s = ttl_s
        self.outage = outage or RedisOutage("query embedding cache")

    def key(self, model: str, query: str) -> str:
        digest = hashlib.sha256(query.encode("utf-8")).hexdigest()
        return f"{self.prefix}qvec:{model}:{digest}"

    def get(self, model: str, query: str) -> Vector | None:
        if self.outage.skip():
            return None
        try:
            raw = self._client.get(self.key(model, query))
        except Exception as exc:  # connection refused, timeout, auth: a miss, never an error
            self.outage.failed(exc)
            return None
        self.outage.ok()
        if not raw or len(raw) % _FLOAT32.itemsize:
            return None
        vector: Vector = np.frombuffer(raw, dtype=_FLOAT32).astype(np.float32)
        return vector

    def put(self, model: str, query: str, vector: Vector) -> None:
        if self.outage.skip():
            return
        value = np.asarray(vector, dtype=_FLOAT32).tobytes()
        try:
            self._client.set(self.key(model, query), value, ex=self.ttl_s)
        except Exception as exc:
            self.outage.failed(exc)
            return
        self.outage.ok()


class LayeredQueryCache:
    """`near` (this process) first, then `far` (Redis); writes go to both."""

    def __init__(self, near: QueryCache, far: QueryCache) -> None:
        self.near = near
        self.far = far

    def get(self, model: str, query: str) -> Vector | None:
        vector = self.near.get(model, query)
        if vector is None:
            vector = self.far.get(model, query)
            if vector is not None:
                self.near.put(model, query, vector)
        return vector

    def put(self, model: str, query: str, vector: Vector) -> None:
        self.near.put(model, query, vector)
        self.far.put(model, query, vector)


class CachedQueryEmbedder:
    """An embedder whose question vectors are shared with the searches through `cache`:
    a question the turn's search has embedded is not embedded again when the turn reads
    it once more (which fact it asks about, which team answer it matches). The search
    keeps a question's vector under the question as searched, embedded as it is unless
    it is shouted (`unshouted`), so only a text that is not shouted is looked up or kept:
    the vector is the one `embedder` would return. Documents are embedded as before."""

    def __init__(self, embedder: Embedder, cache: QueryCache) -> None:
        self.embedder = embedder
        self.cache = cache

    @property
    def name(self) -> str:
        return self.embedder.name

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        return self.embedder.embed_documents(texts)

    def embed_query(self, text: str) -> Matrix:
        if unshouted(text) != text:
            return self.embedder.embed_query(text)
        vector = self.cache.get(self.name, text)
        if vector is None:
            vector = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
            self.cache.put(self.name, text, vector)
        return vector


_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def query_cache_for(settings: Settings | None = None) -> QueryCache:
    """In-process LRU, layered over Redis when the settings name a Redis URL."""
    settings = settings or get_settings()
    near = InMemoryQueryCache()
    if not settings.redis_url:
        return near
    if importlib.util.find_spec("redis") is None:  # an optional extra
        log.warning("FRONTDESK_REDIS_URL is set but redis is not installed: cache in-process")
        return near
    client = _shared_client(settings.redis_url)
    far = RedisQueryCache(client, settings.redis_prefix, ttl_s=settings.query_cache_ttl_s)
    return LayeredQueryCache(near, far)


def _shared_client(url: str) -> Any:
    """One blocking client (one connection pool) per Redis URL and process."""
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = redis_sync_client(url)
        return client
