"""Real receivers on 127.0.0.1 for tests, the fault benchmark and local trials.

`HttpReceiver` stands in for Slack and webhook endpoints (a Starlette app under
uvicorn in a thread); `SmtpReceiver` is an aiosmtpd server (a dev dependency) that
keeps what it receives. Both inject faults on demand: HTTP 500s, responses slower
than the client's timeout, refused connections, SMTP 451s.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import Message
from typing import Any, Literal

from tests.support.ports import ThreadedServer, free_port, serve_on_loopback

Fault = Literal["ok", "500", "timeout"]


@dataclass(frozen=True)
class HttpRequestRecord:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class HttpReceiver:
    """Accepts POSTs on any path; answers 200 unless a fault is scheduled.

    `fail_next(path, *faults)` queues faults for a path (consumed in order);
    `decide` (path → Fault) applies when no fault is queued, e.g. a random one.
    Only requests answered 200 are kept in `received`; `seen` counts all of them.
    """

    def __init__(self, slow_s: float = 2.0) -> None:
        self.slow_s = slow_s
        self.port = free_port()
        self.received: list[HttpRequestRecord] = []
        self.seen = 0
        self.decide: Callable[[str], Fault] | None = None
        self.replies: dict[str, Any] = {}  # path → JSON body of the 200 answer
        self._queued: dict[str, deque[Fault]] = {}
        self._lock = threading.Lock()
        self._server: ThreadedServer | None = None

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def fail_next(self, path: str, *faults: Fault) -> None:
        with self._lock:
            self._queued.setdefault(path, deque()).extend(faults)

    def received_on(self, path: str) -> list[HttpRequestRecord]:
        with self._lock:
            return [r for r in self.received if r.path == path]

    def _fault(self, path: str) -> Fault:
        with self._lock:
            self.seen += 1
            queued = self._queued.get(path)
            if queued:
                return queued.popleft()
        return self.decide(path) if self.decide else "ok"

    def _app(self) -> Any:
        import anyio
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, PlainTextResponse
        from starlette.routing import Route

        async def receive(request: Request) -> PlainTextResponse | JSONResponse:
            body = await request.body()
            fault = self._fault(request.url.path)
            if fault == "timeout":
                await anyio.sleep(self.slow_s)
                return PlainTextResponse("late", status_code=200)  # too late: not kept
            if fault == "500":
                return PlainTextResponse("boom", status_code=500)
            with self._lock:
                self.received.append(
                    HttpRequestRecord(request.url.path, dict(request.headers), body)
                )
            if request.url.path in self.replies:
                return JSONResponse(self.replies[request.url.path])
            return PlainTextResponse("ok")

        return Starlette(routes=[Route("/{path:path}", receive, methods=["POST"])])

    def start(self) -> HttpReceiver:
        self._server = serve_on_loopback(self._app(), self.port, "HTTP receiver")
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def __enter__(self) -> HttpReceiver:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


@dataclass(frozen=True)
class ReceivedMail:
    sender: str
    recipients: tuple[str, ...]
    message: Message

    @property
    def subject(self) -> str:
        return str(self.message["Subject"] or "")

    @property
    def body(self) -> str:
        payload = self.message.get_payload(decode=True)
        text = (
            payload.decode(self.message.get_content_charset() or "utf-8")
            if isinstance(payload, bytes)
            else str(payload)
        )
        return text.replace("\r\n", "\n")  # SMTP line endings


class SmtpReceiver:
    """An aiosmtpd server; `fail_next(n)` answers the next n messages with 451."""

    def __init__(self) -> None:
        self.port = free_port()
        self.mails: list[ReceivedMail] = []
        self.decide: Callable[[], bool] | None = None  # True: fail this message
        self._fail = 0
        self._lock = threading.Lock()
        self._controller: Any = None

    def fail_next(self, count: int = 1) -> None:
        with self._lock:
            self._fail += count

    def _should_fail(self) -> bool:
        with self._lock:
            if self._fail:
                self._fail -= 1
                return True
        return bool(self.decide and self.decide())

    def start(self) -> SmtpReceiver:
        from aiosmtpd.controller import Controller

        receiver = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                if receiver._should_fail():
                    return "451 4.3.0 try again later"
                mail = ReceivedMail(
                    envelope.mail_from,
                    tuple(envelope.rcpt_tos),
                    message_from_bytes(
                        envelope.original_content or envelope.content, policy=policy.default
                    ),
                )
                with receiver._lock:
                    receiver.mails.append(mail)
                return "250 OK"

        self._controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def __enter__(self) -> SmtpReceiver:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
