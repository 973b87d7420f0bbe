"""Fetching one URL politely: per-host concurrency and delay, conditional requests,
redirects re-checked hop by hop, retries on 5xx/429 honouring Retry-After, size limits."""

from __future__ import annotations

import asyncio
import email.utils
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlsplit

import httpx

from frontdesk.knowledge.web.urls import UnsafeAddress, check_address, normalise_url, same_site

MAX_REDIRECTS = 5
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0  # a server asking for longer is treated as failing this sync
DRAIN_BYTES = 65_536  # error pages up to this size are read so keep-alive survives


@dataclass(frozen=True)
class FetchResult:
    """What one URL gave: a body (200), "not modified" (304), "gone", or an error."""

    url: str  # the URL asked for
    final_url: str  # after redirects
    status: int = 0  # 0: no HTTP answer (see `error`)
    body: bytes = b""
    content_type: str = ""
    etag: str = ""
    last_modified: str = ""
    error: str = ""
    location: str = ""  # of a redirect
    transport_failure: bool = False  # the server did not answer (down, timeout, reset)

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def gone(self) -> bool:
        return self.status in (404, 410)


@dataclass
class HostGate:
    """At most `concurrency` requests in flight to one host, `delay_s` apart."""

    concurrency: int
    delay_s: float
    _slots: asyncio.Semaphore = field(init=False)
    _next_at: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self._slots = asyncio.Semaphore(self.concurrency)

    async def __aenter__(self) -> None:
        await self._slots.acquire()
        if self.delay_s > 0:
            async with self._lock:
                wait = self._next_at - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._next_at = time.monotonic() + self.delay_s

    async def __aexit__(self, *_: object) -> None:
        self._slots.release()


def retry_after_s(value: str | None, default: float) -> float:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return default
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class Fetcher:
    """GETs pages of one source with one httpx client (redirects followed by hand, so every
    hop is checked for the same site and a public address)."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        start_url: str,
        *,
        gate: HostGate,
        max_bytes: int,
        allow_private_network: bool,
        attempts: int = 3,
        backoff_s: float = 0.5,
    ) -> None:
        self.client = client
        self.start_url = start_url
        self.gate = gate
        self.max_bytes = max_bytes
        self.allow_private_network = allow_private_network
        self.attempts = attempts
        self.backoff_s = backoff_s
        self._verdicts: dict[str, str] = {}  # host → why it is refused ("" when it is not)

    async def fetch(self, url: str, *, etag: str = "", last_modified: str = "") -> FetchResult:
        headers: dict[str, str] = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            if not same_site(current, self.start_url):
                return FetchResult(url, current, error=f"redirected off the site to {current}")
            refused = await self._refused(current)
            if refused:
                return FetchResult(url, current, error=refused)
            result = await self._with_retries(url, current, headers)
            if result.status in (301, 302, 303, 307, 308):
                target = normalise_url(result.location, current)
                if target is None:
                    return FetchResult(url, current, error="redirect without a usable Location")
                current = target
                continue
            return result
        return FetchResult(url, current, error=f"more than {MAX_REDIRECTS} redirects")

    async def _refused(self, url: str) -> str:
        """Why the URL's host may not be fetched ("" when it may), resolved once per host."""
        host = urlsplit(url).netloc
        if host not in self._verdicts:
            try:
                await check_address(url, allow_private_network=self.allow_private_network)
                self._verdicts[host] = ""
            except UnsafeAddress as exc:
                self._verdicts[host] = str(exc)
        return self._verdicts[host]

    async def _with_retries(self, url: str, current: str, headers: dict[str, str]) -> FetchResult:
        result = FetchResult(url, current, error="not fetched")
        for attempt in range(1, self.attempts + 1):
            result, retry_after = await self._once(url, current, headers)
            retryable = result.transport_failure or result.status in RETRY_STATUSES
            # A page that timed out once gets one more chance, not `attempts`: each costs
            # a whole timeout.
            timed_out_twice = result.error == "timed out" and attempt >= 2
            if not retryable or attempt == self.attempts or timed_out_twice:
                return result
            wait = retry_after if retry_after is not None else self.backoff_s * 2 ** (attempt - 1)
            if wait > MAX_RETRY_AFTER_S:
                return FetchResult(
                    url,
                    current,
                    status=result.status,
                    error=f"HTTP {result.status}: Retry-After {wait:.0f} s is too long",
                )
            await asyncio.sleep(wait)
        return result

    async def _once(
        self, url: str, current: str, headers: dict[str, str]
    ) -> tuple[FetchResult, float | None]:
        try:
            async with self.gate, self.client.stream("GET", current, headers=headers) as response:
                status = response.status_code
                if status != 200:
                    await _drain(response)
                if status in (301, 302, 303, 307, 308):
                    location = response.headers.get("location", "")
                    return FetchResult(url, current, status=status, location=location), None
                if status in RETRY_STATUSES:
                    wait = retry_after_s(response.headers.get("retry-after"), -1)
                    failed = FetchResult(url, current, status=status, error=f"HTTP {status}")
                    return failed, (wait if wait >= 0 else None)
                if status != 200:
                    error = "" if status == 304 else f"HTTP {status}"
                    return FetchResult(url, current, status=status, error=error), None
                declared = int(response.headers.get("content-length") or 0)
                if declared > self.max_bytes:
                    return self._too_large(url, current, status, declared), None
                body = bytearray()
                async for piece in response.aiter_bytes():
                    body.extend(piece)
                    if len(body) > self.max_bytes:
                        return self._too_large(url, current, status, len(body)), None
                return (
                    FetchResult(
                        url,
                        current,
                        status=status,
                        body=bytes(body),
                        content_type=response.headers.get("content-type", ""),
                        etag=response.headers.get("etag", ""),
                        last_modified=response.headers.get("last-modified", ""),
                    ),
                    None,
                )
        except httpx.TimeoutException:
            return FetchResult(url, current, error="timed out", transport_failure=True), None
        except httpx.TransportError as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return FetchResult(url, current, error=reason, transport_failure=True), None

    def _too_large(self, url: str, current: str, status: int, size: int) -> FetchResult:
        return FetchResult(
            url,
            current,
            status=status,
            error=f"larger than the {self.max_bytes:,} byte limit ({size:,}+ bytes)",
        )


async def _drain(response: httpx.Response, limit: int = DRAIN_BYTES) -> None:
    """Read a small answer to its end, so its connection goes back to the pool (closing
    an unread response closes the connection: a re-sync of 304s would reconnect each time)."""
    if response.is_stream_consumed:
        return
    read = 0
    async for piece in response.aiter_raw():
        read += len(piece)
        if read > limit:
            break
