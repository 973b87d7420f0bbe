"""Console fixtures: the app with two sites (demo, acme) and a scripted chat backend,
served by a TestClient (the store is real SQLite in the test's folder)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from console_support import Console, add_operator  # also puts the API test helpers on the path
from fastapi.testclient import TestClient

from frontdesk.api.app import create_app
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.conftest import stack_of


@pytest.fixture
def console_app(
    request: pytest.FixtureRequest, tmp_path: Path, sites_dir: Path
) -> Iterator[Console]:
    """One app, or one per worker on the test's `stack` (tests/conftest.py): then every
    `Console.client()` alternates its requests between the workers."""
    from api_support import write_sites
    from scripted_backend import ScriptedBackend

    write_sites(sites_dir)
    settings = Settings(data_dir=tmp_path / "data", sites_dir=sites_dir)
    with ExitStack() as exits:
        workers = []
        for worker in stack_of(request).worker_settings(settings):
            runtime = build_runtime(worker)
            exits.callback(runtime.close)
            app = create_app(worker, runtime, ScriptedBackend())
            # Runs the lifespan once; its event loop serves this worker's requests.
            live = exits.enter_context(TestClient(app, raise_server_exceptions=False))
            workers.append((app, runtime, worker, live))
        app, runtime, worker, live = workers[0]
        yield Console(
            app=app,
            runtime=runtime,
            settings=worker,
            live=live,
            workers=[(w[0], w[3]) for w in workers],
        )


@pytest.fixture
def team(console_app: Console) -> dict[str, Any]:
    """An owner of both sites, an agent and a viewer of acme only."""
    add_operator(console_app.runtime, "owner@team.test", {"demo": "owner", "acme": "owner"})
    add_operator(console_app.runtime, "agent@acme.test", {"acme": "agent"})
    add_operator(console_app.runtime, "viewer@demo.test", {"demo": "viewer"})
    return {"owner": "owner@team.test", "acme_agent": "agent@acme.test"}
