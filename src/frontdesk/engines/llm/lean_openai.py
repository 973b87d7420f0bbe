"""A leaner `chat.completions.create` for LangChain's `ChatOpenAI` (async calls only).

The SDK's `AsyncCompletions.create` spends most of its event-loop time on two
conversions LangChain does not need:

- the request body goes through `async_maybe_transform` against the
  `CompletionCreateParams` TypedDicts, which walks every message recursively with typing
  introspection (~13 % of an LLM turn's loop CPU);
- every response and every stream chunk is rebuilt as a pydantic model
  (`construct_type`, ~9 %), which LangChain turns straight back into a dict with
  `.model_dump()` (it takes plain dicts for both).

`LeanAsyncCompletions.create` posts LangChain's payload as it is and asks for the raw
JSON back (`cast_to=object`, `AsyncStream[object]`: the SDK's own pass-through). The
request itself still goes through the SDK's `_post`: auth, headers, timeouts and the
mapping of HTTP errors to `APIStatusError` subclasses (raised before any cast) are
unchanged, and so is `with_raw_response`, which the SDK builds from `self.create`.

Why skipping the transform is safe: for the chat-completions params it only (1) drops
`omit`/`NOT_GIVEN` values, done here too, (2) turns iterables other than lists into
lists and pydantic models into dicts, and (3) would rename or reformat fields marked
with `PropertyInfo(alias=..., format=...)`, of which `CompletionCreateParams` has none.
LangChain's payload is plain JSON (lists and dicts built by `_get_request_payload`), so
the transform is the identity for it (asserted in the tests on the payloads we send).
Structured calls with `response_format` go through `root_async_client...parse` and the
sync client is untouched: both stay on the SDK's typed path.
"""

from __future__ import annotations

import inspect
from typing import Any

from openai import AsyncStream, NotGiven, Omit, not_given
from openai._base_client import make_request_options
from openai.resources.chat.completions import AsyncCompletions
from openai.resources.chat.completions.completions import validate_response_format

REQUEST_OPTIONS = frozenset({"extra_headers", "extra_query", "extra_body", "timeout"})
# The body fields the SDK's `create` accepts; anything else is a TypeError, as there.
BODY_FIELDS = frozenset(inspect.signature(AsyncCompletions.create).parameters) - {
    "self",
    *REQUEST_OPTIONS,
}


def request_body(params: dict[str, Any]) -> dict[str, Any]:
    """The JSON body `create(**params)` posts: the body fields, omitted values dropped."""
    unknown = params.keys() - BODY_FIELDS - REQUEST_OPTIONS
    if unknown:
        raise TypeError(f"create() got unexpected keyword arguments: {sorted(unknown)}")
    missing = {"messages", "model"} - params.keys()
    if missing:
        raise TypeError(f"create() missing required arguments: {sorted(missing)}")
    return {
        key: value
        for key, value in params.items()
        if key not in REQUEST_OPTIONS and not isinstance(value, NotGiven | Omit)
    }


class LeanAsyncCompletions(AsyncCompletions):
    """`create` returns the response as a dict, or an `AsyncStream` of chunk dicts."""

    # ignore[override]: keyword arguments are taken as one dict (LangChain calls
    # `create(**payload)`), and the return type is the raw JSON, not `ChatCompletion`.
    async def create(self, **params: Any) -> Any:  # type: ignore[override]
        body = request_body(params)
        validate_response_format(body.get("response_format"))
        stream = bool(body.get("stream"))
        return await self._post(
            "/chat/completions",
            body=body,
            options=make_request_options(
                extra_headers=params.get("extra_headers"),
                extra_query=params.get("extra_query"),
                extra_body=params.get("extra_body"),
                timeout=params.get("timeout", not_given),
                security={"bearer_auth": True},
            ),
            cast_to=object,
            stream=stream,
            stream_cls=AsyncStream[object],
        )
