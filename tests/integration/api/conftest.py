"""Fixtures for HTTP-layer tests: an app with two sites and a scripted chat backend."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from api_support import ADMIN_KEY, Api, MakeApi, keep_secrets, write_sites
from fastapi.testclient import TestClient
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.conversation.backend import ChatBackend
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings


@pytest.fixture
def make_api(tmp_path: Path, sites_dir: Path) -> Iterator[MakeApi]:
    stack = ExitStack()

    def make(
        backend: ChatBackend | None = None,
        *,
        rate_limits: dict[str, int] | None = None,
        admin: bool = True,
        max_request_bytes: int = 64_000,
        settings_options: dict[str, Any] | None = None,
        **options: Any,
    ) -> Api:
        write_sites(sites_dir, rate_limits)
        settings = Settings(
            data_dir=tmp_path / "data",
            sites_dir=sites_dir,
            admin_api_key_hash=hashlib.sha256(ADMIN_KEY.encode()).hexdigest() if admin else "",
            max_request_bytes=max_request_bytes,
            **(settings_options or {}),
        )
        runtime = build_runtime(settings)
        stack.callback(runtime.close)
        chat = backend if backend is not None else ScriptedBackend()
        app = create_app(settings, runtime, chat, **options)
        client = keep_secrets(stack.enter_context(TestClient(app, raise_server_exceptions=False)))
        scripted = chat if isinstance(chat, ScriptedBackend) else ScriptedBackend()
        return Api(app=app, client=client, backend=scripted, runtime=runtime)

    yield make
    stack.close()


@pytest.fixture
def api(make_api: MakeApi) -> Api:
    return make_api()
