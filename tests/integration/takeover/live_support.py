"""Support for live-takeover tests: app replicas served by uvicorn on loopback ports
(their lifespan runs, so each has its own bus listener), signed-in operators, visitor
sessions and an SSE reader that keeps every event with its id."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn

API_TESTS = Path(__file__).resolve().parents[1] / "api"
if str(API_TESTS) not in sys.path:
    sys.path.insert(0, str(API_TESTS))

from api_support import DEMO_KEY, DEMO_ORIGIN, write_sites  # noqa: E402
from scripted_backend import ScriptedBackend  # noqa: E402

from frontdesk.api.app import create_app  # noqa: E402
from frontdesk.console.passwords import hash_password  # noqa: E402
from frontdesk.conversation.backend import ChatBackend  # noqa: E402
from frontdesk.runtime import Runtime, build_runtime  # noqa: E402
from frontdesk.settings import Settings  # noqa: E402
from frontdesk.store.db import transaction  # noqa: E402
from frontdesk.store.operators import OperatorRepository  # noqa: E402
from frontdesk.takeover.desk import TakeoverDesk  # noqa: E402
from tests.support.ports import free_port  # noqa: E402

PASSWORD = "correct horse battery"
__all__ = ["DEMO_KEY", "DEMO_ORIGIN", "ScriptedBackend", "write_sites"]


def widget_headers(secret: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"X-Frontdesk-Key": DEMO_KEY, "Origin": DEMO_ORIGIN, **extra}
    if secret is not None:
        headers["X-Frontdesk-Session-Secret"] = secret
    return headers


class Replica:
    """One Frontdesk app on its own loopback port, lifespan included."""

    def __init__(
        self,
        settings: Settings,
        chat: ChatBackend | None = None,
        *,
        takeover_desk: TakeoverDesk | None = None,
        chat_factory: Callable[[Runtime], ChatBackend] | None = None,
    ) -> None:
        self.runtime: Runtime = build_runtime(settings)
        self.chat = chat_factory(self.runtime) if chat_factory else chat or ScriptedBackend()
        self.app = create_app(
            settings, self.runtime, self.chat, sse_ping_s=1.0, takeover_desk=takeover_desk
        )
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> Replica:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("replica did not start")
            time.sleep(0.02)
        return self

    @property
    def desk(self) -> TakeoverDesk:
        desk: TakeoverDesk = self.app.state.takeover
        return desk

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        closer = getattr(self.chat, "close", None)
        if closer is not None and not isinstance(self.chat, ScriptedBackend):
            # Its own loop on its own thread (the caller may be inside a running loop).
            done = threading.Thread(target=asyncio.run, args=(closer(),))
            done.start()
            done.join(timeout=30)
        self.runtime.close()


def add_operator(runtime: Runtime, email: str, roles: dict[str, str]) -> None:
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        operator = operators.ensure(email, hash_password(PASSWORD))
        for site_id, role in roles.items():
            operators.grant(operator, site_id, role)


@dataclass
class OperatorClient:
    """A signed-in console browser: its cookie and CSRF token, on any replica."""

    cookies: httpx.Cookies
    csrf: str

    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.csrf}

    async def post(
        self, base: str, path: str, body: dict[str, Any] | None = None, *, csrf: bool = True
    ) -> httpx.Response:
        headers = self.headers() if csrf else {}
        async with httpx.AsyncClient(base_url=base, cookies=self.cookies, timeout=60) as client:
            return await client.post(path, json=body, headers=headers)

    async def get(self, base: str, path: str) -> httpx.Response:
        async with httpx.AsyncClient(base_url=base, cookies=self.cookies, timeout=60) as client:
            return await client.get(path)


async def http(method: str, url: str, **options: Any) -> httpx.Response:
    """One request from async tests without blocking their loop (SSE readers run on it)."""
    async with httpx.AsyncClient(timeout=120) as client:
        return await client.request(method, url, **options)


def sign_in(base: str, email: str, site: str = "demo") -> OperatorClient:
    with httpx.Client(base_url=base, timeout=30, follow_redirects=False) as client:
        page = client.get("/console/login")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert token, page.text[:300]
        done = client.post(
            "/console/login",
            data={"email": email, "password": PASSWORD, "csrf_token": token.group(1)},
        )
        assert done.status_code == 303, done.text[:300]
        inbox = client.get(f"/console/sites/{site}/inbox")
        csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', inbox.text)
        assert csrf, inbox.text[:300]
        return OperatorClient(cookies=client.cookies, csrf=csrf.group(1))


def new_session(base: str) -> tuple[str, str]:
    response = httpx.post(f"{base}/v1/sessions", json={}, headers=widget_headers(), timeout=30)
    assert response.status_code == 201, response.text
    grant = response.json()
    return str(grant["session_id"]), str(grant["session_secret"])


@dataclass
class SseEvent:
    id: str | None
    event: str
    data: dict[str, Any]


@dataclass
class SseReader:
    """Reads one SSE response in the background; `events` grows as they arrive."""

    url: str
    headers: dict[str, str]
    cookies: httpx.Cookies | None = None
    events: list[SseEvent] = field(default_factory=list)
    status: int | None = None
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    async def start(self) -> SseReader:
        self._task = asyncio.create_task(self._read())
        await self.wait_for(lambda events: self.status is not None)
        return self

    async def _read(self) -> None:
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(30, read=None), cookies=self.cookies) as client,
            client.stream("GET", self.url, headers=self.headers) as response,
        ):
            self.status = response.status_code
            self._arrived.set()
            if response.status_code != 200:
                await response.aread()
                self.events.append(SseEvent(None, "http_error", response.json()))
                return
            current: dict[str, Any] = {"data": []}
            async for line in response.aiter_lines():
                if line == "":
                    if current["data"]:
                        self.events.append(
                            SseEvent(
                                current.get("id"),
                                current.get("event", "message"),
                                json.loads("\n".join(current["data"])),
                            )
                        )
                        self._arrived.set()
                    current = {"data": []}
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    current["data"].append(value)
                else:
                    current[name] = value

    async def wait_for(self, done: Any, within_s: float = 15) -> None:
        deadline = time.monotonic() + within_s
        while not done(self.events):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; events so far: {self.events}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), min(left, 0.5))

    def of(self, kind: str) -> list[SseEvent]:
        return [event for event in self.events if event.event == kind]

    def last_id(self) -> str | None:
        ids = [event.id for event in self.events if event.id]
        return ids[-1] if ids else None

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


def visitor_stream(
    base: str, session_id: str, secret: str, last_id: str | None = None
) -> SseReader:
    headers = widget_headers(secret)
    if last_id is not None:
        headers["Last-Event-ID"] = last_id
    return SseReader(f"{base}/v1/sessions/{session_id}/events", headers)


def operator_stream(
    base: str, operator: OperatorClient, path: str, last_id: str | None = None
) -> SseReader:
    headers = {} if last_id is None else {"Last-Event-ID": last_id}
    return SseReader(f"{base}{path}", headers, cookies=operator.cookies)
