"""Fixtures for HTTP-layer tests: two sites, a scripted backend, clients and SSE parsing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi import FastAPI
from fastapi.testclient import TestClient
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.conversation.backend import ChatBackend
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings

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


MakeApi = Callable[..., Api]


@pytest.fixture
def make_api(tmp_path: Path, sites_dir: Path) -> Iterator[MakeApi]:
    stack = ExitStack()

    def make(
        backend: ChatBackend | None = None,
        *,
        rate_limits: dict[str, int] | None = None,
        admin: bool = True,
        max_request_bytes: int = 64_000,
        **options: Any,
    ) -> Api:
        write_sites(sites_dir, rate_limits)
        settings = Settings(
            data_dir=tmp_path / "data",
            sites_dir=sites_dir,
            admin_api_key_hash=hashlib.sha256(ADMIN_KEY.encode()).hexdigest() if admin else "",
            max_request_bytes=max_request_bytes,
        )
        runtime = build_runtime(settings)
        stack.callback(runtime.close)
        chat = backend if backend is not None else ScriptedBackend()
        app = create_app(settings, runtime, chat, **options)
        client = stack.enter_context(TestClient(app, raise_server_exceptions=False))
        scripted = chat if isinstance(chat, ScriptedBackend) else ScriptedBackend()
        return Api(app=app, client=client, backend=scripted, runtime=runtime)

    yield make
    stack.close()


@pytest.fixture
def api(make_api: MakeApi) -> Api:
    return make_api()
