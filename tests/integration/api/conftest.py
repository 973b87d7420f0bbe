"""Fixtures for HTTP-layer tests: an app with two sites and a scripted chat backend."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from api_support import ADMIN_KEY, Api, MakeApi, keep_secrets, write_sites
from fastapi import FastAPI
from fastapi.testclient import TestClient
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.conversation.backend import ChatBackend
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.conftest import stack_of
from tests.support.stacks import alternating_client
from tests.support.windows import wait_for_a_fresh_minute


@pytest.fixture
def make_api(request: pytest.FixtureRequest, tmp_path: Path, sites_dir: Path) -> Iterator[MakeApi]:
    """Builds the app under test: one app, or one per worker on the test's `stack`
    (tests/conftest.py), with one client whose requests alternate between them."""
    stack = stack_of(request)
    exits = ExitStack()
    made: list[FastAPI] = []

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
        if rate_limits:
            wait_for_a_fresh_minute()
        settings = Settings(
            data_dir=tmp_path / "data",
            sites_dir=sites_dir,
            admin_api_key_hash=hashlib.sha256(ADMIN_KEY.encode()).hexdigest() if admin else "",
            max_request_bytes=max_request_bytes,
            **(settings_options or {}),
        )
        chat = backend if backend is not None else ScriptedBackend()
        apps, runtimes, running = [], [], []
        for worker in stack.worker_settings(settings):
            runtime = build_runtime(worker)
            exits.callback(runtime.close)
            app = create_app(worker, runtime, chat, **options)
            running.append(exits.enter_context(TestClient(app, raise_server_exceptions=False)))
            apps.append(app)
            runtimes.append(runtime)
            made.append(app)
        client = keep_secrets(alternating_client(apps, running))
        scripted = chat if isinstance(chat, ScriptedBackend) else ScriptedBackend()
        return Api(
            app=apps[0],
            client=client,
            backend=scripted,
            runtime=runtimes[0],
            apps=apps,
            runtimes=runtimes,
        )

    yield make
    exits.close()
    if stack.redis is not None and not stack.redis.cuts:
        # Nothing the production stack passed was passed on per-process fallbacks.
        assert stack.redis.connections, "the workers never reached Redis"
        for app in made:
            assert not app.state.redis_outage.down, app.state.redis_outage.error


@pytest.fixture
def api(make_api: MakeApi) -> Api:
    return make_api()
