"""Which failures of a model call deserve another attempt, and the pause before it.

Retryable: the call timed out, never reached the provider (refused or reset connection,
DNS, a connection dropped mid-reply), or the provider said "not now" — HTTP 408, 429 and
any 5xx. Everything else is not: 400, 401, 403, 404, 422 (a malformed or rejected
request, a bad key, a missing model — the same request fails the same way), context
overflows, and replies that are not the requested schema. Those go straight to the
fallback model, or to the caller.

The classification reads public signals only, down the `raise ... from` chain:
LangChain's provider-neutral `ModelError.is_retryable` when it says yes (langchain-core
1.7+; provider integrations raise subclasses of it), else an HTTP status (`status_code`
as the OpenAI, Anthropic and Ollama SDKs carry it, or `response.status_code` as httpx's
`HTTPStatusError`), else the exception type (built-in and httpx timeouts and network
errors, and the SDKs' `APIConnectionError`, which covers their timeouts).
"""

from __future__ import annotations

import sys

import httpx
from tenacity import wait_exponential, wait_random
from tenacity.wait import wait_base

RETRYABLE_STATUS = frozenset({408, 429})  # and every 5xx
_RETRYABLE_TYPES: tuple[type[BaseException], ...] = (
    TimeoutError,  # asyncio.timeout, socket timeouts
    ConnectionError,  # refused, reset, aborted, broken pipe
    httpx.TimeoutException,
    httpx.NetworkError,  # connect, read, write, close
    httpx.RemoteProtocolError,  # the server dropped the connection mid-reply
)
_SDKS = ("openai", "anthropic")  # SDKs whose connection errors are not httpx's own
_MAX_CHAIN = 5

# Exponential backoff with jitter, as LangChain's `.with_retry()` defaults it:
# 0.2 s, 0.4 s, 0.8 s … up to 2 s, plus up to 0.1 s of jitter.
RETRY_WAIT: wait_base = wait_exponential(multiplier=0.2, max=2.0) + wait_random(0, 0.1)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an error carries, if any."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) and not isinstance(status, bool) else None


def _connection_error(exc: BaseException) -> bool:
    # An SDK that was never imported cannot have raised: look only at loaded ones.
    for name in _SDKS:
        error = getattr(sys.modules.get(name), "APIConnectionError", None)
        if isinstance(error, type) and isinstance(exc, error):
            return True
    return False


def is_retryable(exc: BaseException) -> bool:
    """Whether the same request may succeed if sent again."""
    current: BaseException | None = exc
    for _ in range(_MAX_CHAIN):
        if current is None:
            break
        if getattr(type(current), "is_retryable", None) is True:
            return True
        status = status_of(current)
        if status is not None:
            return status in RETRYABLE_STATUS or 500 <= status <= 599
        if isinstance(current, _RETRYABLE_TYPES) or _connection_error(current):
            return True
        current = current.__cause__
    return False
