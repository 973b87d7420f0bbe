"""`is_retryable`: timeouts, connection errors, HTTP 408/429/5xx are worth another attempt;
bad requests, bad keys, missing models, rejected payloads and invalid outputs are not."""

from __future__ import annotations

import asyncio

import httpx
import openai
import pytest
from langchain_core import exceptions as lc
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState

from frontdesk.engines.llm.retry import RETRY_WAIT, is_retryable, status_of

pytestmark = pytest.mark.unit

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def response(status: int) -> httpx.Response:
    return httpx.Response(status, request=REQUEST, json={"error": {"message": "x"}})


OPENAI_ERRORS: dict[int, type[openai.APIStatusError]] = {
    400: openai.BadRequestError,
    401: openai.AuthenticationError,
    403: openai.PermissionDeniedError,
    404: openai.NotFoundError,
    409: openai.ConflictError,
    422: openai.UnprocessableEntityError,
    429: openai.RateLimitError,
}


def openai_status(status: int) -> openai.APIStatusError:
    """What the OpenAI SDK raises for a status (RateLimitError for 429, ...)."""
    default = openai.InternalServerError if status >= 500 else openai.APIStatusError
    error = OPENAI_ERRORS.get(status, default)
    return error(f"status {status}", response=response(status), body=None)


class ProviderError(Exception):
    """Another SDK's status error: only a `status_code` attribute (Anthropic, Ollama)."""

    def __init__(self, status_code: int) -> None:
        super().__init__(f"status {status_code}")
        self.status_code = status_code


class Schema(BaseModel):
    query: str


def validation_error() -> ValidationError:
    try:
        Schema.model_validate({})
    except ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


def caused(outer: Exception, cause: BaseException) -> Exception:
    outer.__cause__ = cause
    return outer


RETRYABLE: list[tuple[str, BaseException]] = [
    ("builtin timeout", TimeoutError()),
    ("connection refused", ConnectionRefusedError()),
    ("connection reset", ConnectionResetError()),
    ("httpx connect", httpx.ConnectError("refused", request=REQUEST)),
    ("httpx read timeout", httpx.ReadTimeout("slow", request=REQUEST)),
    ("httpx pool timeout", httpx.PoolTimeout("busy", request=REQUEST)),
    ("httpx read error", httpx.ReadError("reset", request=REQUEST)),
    ("httpx dropped", httpx.RemoteProtocolError("closed", request=REQUEST)),
    ("httpx 503", httpx.HTTPStatusError("503", request=REQUEST, response=response(503))),
    ("openai connection", openai.APIConnectionError(request=REQUEST)),
    ("openai timeout", openai.APITimeoutError(request=REQUEST)),
    ("openai 408", openai_status(408)),
    ("openai 429", openai_status(429)),
    ("openai 500", openai_status(500)),
    ("openai 502", openai_status(502)),
    ("openai 503", openai_status(503)),
    ("openai 529", openai_status(529)),
    ("status_code 429", ProviderError(429)),
    ("status_code 500", ProviderError(500)),
    ("langchain rate limit", lc.ModelRateLimitError("slow down")),
    ("langchain server error", lc.ModelAPIError("overloaded")),
    ("langchain timeout", lc.ModelTimeoutError("late")),
    ("wrapped timeout", caused(RuntimeError("stream failed"), httpx.ReadTimeout("slow"))),
]
NOT_RETRYABLE: list[tuple[str, BaseException]] = [
    ("openai 400", openai_status(400)),
    ("openai 401", openai_status(401)),
    ("openai 403", openai_status(403)),
    ("openai 404", openai_status(404)),
    ("openai 409", openai_status(409)),
    ("openai 422", openai_status(422)),
    ("status_code 400", ProviderError(400)),
    ("status_code 401", ProviderError(401)),
    ("status_code 404", ProviderError(404)),
    ("status_code 422", ProviderError(422)),
    ("httpx 401", httpx.HTTPStatusError("401", request=REQUEST, response=response(401))),
    ("langchain bad request", lc.ModelInvalidRequestError("bad")),
    ("langchain context overflow", lc.ContextOverflowError("too long")),
    ("langchain auth", lc.ModelAuthenticationError("bad key")),
    ("invalid output", OutputParserException("not json")),
    ("wrong schema", validation_error()),
    ("value error", ValueError("no JSON object in reply")),
    ("runtime error", RuntimeError("500")),  # a message is not a status
    ("unsupported protocol", httpx.UnsupportedProtocol("ftp://")),
    ("a 400 caused by a timeout", caused(openai_status(400), TimeoutError())),
    ("cancelled", asyncio.CancelledError()),
]  # fmt: skip


@pytest.mark.parametrize(("case", "error"), RETRYABLE, ids=[c for c, _ in RETRYABLE])
def test_retryable(case: str, error: BaseException) -> None:
    assert is_retryable(error), case


@pytest.mark.parametrize(("case", "error"), NOT_RETRYABLE, ids=[c for c, _ in NOT_RETRYABLE])
def test_not_retryable(case: str, error: BaseException) -> None:
    assert not is_retryable(error), case


def test_status_of() -> None:
    assert status_of(openai_status(429)) == 429
    assert status_of(httpx.HTTPStatusError("x", request=REQUEST, response=response(502))) == 502
    assert status_of(ProviderError(401)) == 401
    assert status_of(ValueError("x")) is None


def test_backoff_grows_with_jitter_up_to_two_seconds() -> None:
    def wait(attempt: int) -> float:
        state = RetryCallState(None, None, (), {})
        state.attempt_number = attempt
        return RETRY_WAIT(state)

    for _ in range(50):
        assert 0.2 <= wait(1) <= 0.3
        assert 0.4 <= wait(2) <= 0.5
        assert 0.8 <= wait(3) <= 0.9
        assert 2.0 <= wait(8) <= 2.1
