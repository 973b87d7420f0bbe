"""Support for HTTP-layer tests: two sites, keys, headers, SSE parsing, the `Api` bundle."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from fastapi import FastAPI
from fastapi.testclient import TestClient
from scripted_backend import ScriptedBackend

from frontdesk.runtime import Runtime

DEMO_KEY = "pk_demo_tessellate_0001"
DEMO_ORIGIN = "https://tessellate.example"
ACME_KEY = "pk_acme_corp_000000000001"
ACME_ORIGIN = "https://acme.example"
ADMIN_KEY = "fd-admin-test-key-0123456789"


def demo_headers(**extra: str) -> dict[str, str]:
    return {"X-Frontdesk-Key": DEMO_KEY, "Origin": DEMO_ORIGIN, **extra}


def acme_headers(**extra: str) -> dict[str, str]:
    return {"X-Frontdesk-Key": ACME_KEY, "Origin": ACME_ORIGIN, **extra}


def admin_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_KEY}"}


def write_sites(sites_dir: Path, rate_limits: dict[str, int] | None = None) -> None:
    """The demo site (plus a test origin) and a second tenant, `acme`."""
    demo_file = sites_dir / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo["widget"]["allowed_origins"] = [*demo["widget"]["allowed_origins"], DEMO_ORIGIN]
    if rate_limits:
        demo["rate_limits"] = rate_limits
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")
    acme = {
        "id": "acme",
        "name": "Acme Corp",
        "widget": {
            "public_key": ACME_KEY,
            "allowed_origins": [ACME_ORIGIN],
            "fallback_url": "https://acme.example/contact",
        },
        "business_hours": {"timezone": "America/New_York"},
    }
    (sites_dir / "acme.yaml").write_text(yaml.safe_dump(acme), encoding="utf-8")


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(event, data) pairs of an SSE body; comment lines (pings) are skipped."""
    events: list[tuple[str, dict[str, Any]]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


@dataclass
class Api:
    app: FastAPI
    client: TestClient
    backend: ScriptedBackend
    runtime: Runtime
    # Every worker's app and runtime (one on the embedded stack, two on production).
    apps: list[FastAPI] = field(default_factory=list)
    runtimes: list[Runtime] = field(default_factory=list)


MakeApi = Callable[..., Api]


class SessionSecrets:
    """Keeps each session's secret as the widget does: taken from the response that
    issued it, sent with every later request about that session (unless a test sets the
    header itself, e.g. to prove that a missing or wrong secret is refused)."""

    HEADER = "X-Frontdesk-Session-Secret"

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}

    def attach(self, client: Any) -> Any:
        client.event_hooks["request"].append(self.on_request)
        client.event_hooks["response"].append(self.on_response)
        return client

    def on_request(self, request: Any) -> None:
        if self.HEADER in request.headers:
            return
        session = None
        parts = request.url.path.split("/")
        if len(parts) > 3 and parts[1:3] == ["v1", "sessions"]:
            session = parts[3]
        elif request.method == "POST" and request.url.path in ("/v1/chat", "/v1/ask"):
            try:
                session = json.loads(request.content or b"{}").get("session_id")
            except Exception:  # a streamed body (not read) or not JSON
                session = None
        if session and session in self.secrets:
            request.headers[self.HEADER] = self.secrets[session]

    def on_response(self, response: Any) -> None:
        secret = response.headers.get(self.HEADER)
        session = response.headers.get("X-Frontdesk-Session")
        if secret and session:
            self.secrets[session] = secret


def new_session(client: Any) -> tuple[str, str]:
    """A session id and its secret from `POST /v1/sessions` (the demo site)."""
    response = client.post("/v1/sessions", json={}, headers=demo_headers())
    assert response.status_code == 201, response.text
    grant = response.json()
    return str(grant["session_id"]), str(grant["session_secret"])


def keep_secrets(client: Any) -> Any:
    """`client` (a TestClient or httpx.Client) sending each session's secret."""
    return SessionSecrets().attach(client)
