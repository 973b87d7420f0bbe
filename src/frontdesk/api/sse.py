"""A turn as Server-Sent Events: `token`…, then one `complete` or one `error` (or, while a
person owns the conversation, one `relayed` and no tokens).

Wire format (each event's `data` is one JSON object whose `type` repeats the event name):

    event: token      data: {"type": "token", "content": "Our "}
    event: complete   data: {"type": "complete", "metadata": {…TurnResult…}}
    event: error      data: {"type": "error", "code": "…", "message": "…"}

Comment lines (`: ping …`) are heartbeats on long turns. When the client disconnects,
the response task is cancelled: the backend's iterator is closed (which cancels the
rest of the turn) and the session slot is released.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from frontdesk.api.metrics import ApiMetrics
from frontdesk.api.turns import Admission
from frontdesk.conversation.payload import (
    CompleteEvent,
    ErrorEvent,
    RelayedEvent,
    TokenEvent,
    TurnEvent,
)

log = logging.getLogger(__name__)

DEFAULT_PING_S = 15.0


def sse_event(name: str, payload: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(payload, ensure_ascii=False), event=name)


def error_event(code: str, message: str) -> ServerSentEvent:
    return sse_event("error", {"type": "error", "code": code, "message": message})


async def turn_events(
    events: AsyncIterator[TurnEvent],
    *,
    site_id: str,
    admission: Admission,
    metrics: ApiMetrics,
) -> AsyncIterator[bytes]:
    """Translate backend events to SSE; always close the backend and free the slot."""
    started = time.perf_counter()
    first_token = True
    finished = False
    # Tokens the backend had ready together go out in one write (still one SSE event
    # each): a write costs a pass through every middleware's `send`, a cancel scope and
    # a socket write, which for a local answer's ~50 tokens was most of the API's CPU.
    held: list[bytes] = []

    def flush(last: ServerSentEvent) -> bytes:
        chunk = b"".join([*held, last.encode()])
        held.clear()
        return chunk

    try:
        async for event in events:
            if isinstance(event, TokenEvent):
                if not event.content:
                    continue
                if first_token:
                    first_token = False
                    metrics.first_token.labels(site_id).observe(time.perf_counter() - started)
                token = sse_event("token", {"type": "token", "content": event.content})
                if event.more:
                    held.append(token.encode())
                else:
                    yield flush(token)
            elif isinstance(event, CompleteEvent):
                finished = True
                metrics.record_turn(site_id, "stream", event.result, time.perf_counter() - started)
                yield flush(
                    sse_event(
                        "complete",
                        {"type": "complete", "metadata": event.result.model_dump(mode="json")},
                    )
                )
                break
            elif isinstance(event, RelayedEvent):
                # A person owns the conversation: an acknowledgement, no bot text.
                finished = True
                yield flush(
                    sse_event(
                        "relayed",
                        {
                            "type": "relayed",
                            "event_id": event.event_id,
                            "metadata": event.result.model_dump(mode="json"),
                        },
                    )
                )
                break
            elif isinstance(event, ErrorEvent):
                finished = True
                metrics.turn_errors.labels(site_id, event.code).inc()
                yield flush(error_event(event.code, event.message))
                break
        if not finished:
            finished = True
            metrics.turn_errors.labels(site_id, "incomplete_turn").inc()
            yield flush(error_event("incomplete_turn", "The turn ended without an answer."))
    except anyio.get_cancelled_exc_class():
        metrics.turn_errors.labels(site_id, "disconnected").inc()
        raise
    except Exception:
        log.exception("turn failed on site %s", site_id)
        metrics.turn_errors.labels(site_id, "internal_error").inc()
        if not finished:
            yield flush(error_event("internal_error", "Something went wrong on our side."))
    finally:
        with anyio.CancelScope(shield=True):
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                try:
                    await aclose()
                except Exception:
                    log.exception("closing the turn stream failed on site %s", site_id)
        await admission.release()


class TurnStreamResponse(EventSourceResponse):
    """An SSE response that frees the session slot however it ends, even unstarted."""

    def __init__(
        self,
        content: AsyncIterator[bytes],
        *,
        admission: Admission,
        headers: dict[str, str],
        ping_s: float = DEFAULT_PING_S,
    ) -> None:
        super().__init__(content, headers=headers, ping=ping_s, sep="\n")
        self.admission = admission

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.admission.release()
