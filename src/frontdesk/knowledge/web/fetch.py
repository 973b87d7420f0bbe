"""Fetching one URL politely: per-host concurrency and delay, conditional requests,
redirects re-checked hop by hop, retries on 5xx/429 honouring Retry-After, size limits,
a deadline on each whole download, and the connected peer's address checked again (a
host name that re-resolves to a private address between the check and the connection
is refused before its body is read)."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlsplit

import httpx

from frontdesk.knowledge.web.urls import (
    UnsafeAddress,
    check_address,
    is_public_address,
    normalise_url,
    same_site,
)

MAX_REDIRECTS = 5
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0  # a server asking for longer is treated as failing this sync
DRAIN_BYTES = 65_536  # error pages up to this size are read so keep-alive survives
DEFAULT_PAGE_DEADLINE_S = 60.0

# Takes each piece of a streamed body; False stops the download (the reader has enough).
BodySink = Callable[[bytes], bool]


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
    retryable: bool = True  # False: trying again cannot help (a deadline, a half-read stream)

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
        page_deadline_s: float = DEFAULT_PAGE_DEADLINE_S,
        attempts: int = 3,
        backoff_s: float = 0.5,
    ) -> None:
        self.client = client
        self.start_url = start_url
        self.gate = gate
        self.max_bytes = max_bytes
        self.allow_private_network = allow_private_network
        # The whole download (headers and body), not each read: a server that trickles
        # a byte every few seconds never trips a per-read timeout.
        self.page_deadline_s = page_deadline_s
        self.attempts = attempts
        self.backoff_s = backoff_s
        self._verdicts: dict[str, str] = {}  # host → why it is refused ("" when it is not)

    async def fetch(
        self,
        url: str,
        *,
        etag: str = "",
        last_modified: str = "",
        sink: BodySink | None = None,
        max_bytes: int | None = None,
    ) -> FetchResult:
        """GET `url`. With `sink`, a 200 body goes piece by piece to it instead of into the
        result (sitemaps), up to `max_bytes` (default: the page limit)."""
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
            result = await self._with_retries(url, current, headers, sink, max_bytes)
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

    async def _with_retries(
        self,
        url: str,
        current: str,
        headers: dict[str, str],
        sink: BodySink | None,
        max_bytes: int | None,
    ) -> FetchResult:
        result = FetchResult(url, current, error="not fetched")
        for attempt in range(1, self.attempts + 1):
            async with self.gate:  # politeness waits do not count against the deadline
                try:
                    async with asyncio.timeout(self.page_deadline_s):
                        result, retry_after = await self._once(
                            url, current, headers, sink, max_bytes or self.max_bytes
                        )
                except TimeoutError:
                    return FetchResult(
                        url,
                        current,
                        error=f"timed out: not downloaded within {self.page_deadline_s:g} s",
                        transport_failure=True,
                        retryable=False,
                    )
            retryable = result.retryable and (
                result.transport_failure or result.status in RETRY_STATUSES
            )
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
        self,
        url: str,
        current: str,
        headers: dict[str, str],
        sink: BodySink | None,
        max_bytes: int,
    ) -> tuple[FetchResult, float | None]:
        streamed = False
        try:
            async with self.client.stream("GET", current, headers=headers) as response:
                refused = self._peer_refused(response)
                if refused:
                    return FetchResult(url, current, error=refused, retryable=False), None
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
                if declared > max_bytes:
                    return self._too_large(url, current, status, declared, max_bytes), None
                body = bytearray()
                size = 0
                async for piece in response.aiter_bytes():
                    size += len(piece)
                    if size > max_bytes:
                        return self._too_large(url, current, status, size, max_bytes), None
                    if sink is None:
                        body.extend(piece)
                        continue
                    streamed = True
                    if not sink(piece):
                        break  # the reader has what it needs: the rest is never downloaded
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
            failed = FetchResult(
                url, current, error="timed out", transport_failure=True, retryable=not streamed
            )
            return failed, None
        except httpx.TransportError as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            failed = FetchResult(
                url, current, error=reason, transport_failure=True, retryable=not streamed
            )
            return failed, None

    def _peer_refused(self, response: httpx.Response) -> str:
        """Why the address the connection went to may not be read ("" when it may): the
        name was checked before, but DNS may answer differently the second time."""
        if self.allow_private_network:
            return ""
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        if not peer:
            return ""  # no socket (a test transport)
        address = str(peer[0])
        if is_public_address(address):
            return ""
        return f"{response.url.host} connected to {address}, which is not a public address"

    def _too_large(
        self, url: str, current: str, status: int, size: int, max_bytes: int
    ) -> FetchResult:
        return FetchResult(
            url,
            current,
            status=status,
            error=f"larger than the {max_bytes:,} byte limit ({size:,}+ bytes)",
            retryable=False,
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
