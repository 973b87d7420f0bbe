"""Console fixtures: the app with two sites (demo, acme) and a scripted chat backend,
served by a TestClient (the store is real SQLite in the test's folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from console_support import Console, add_operator  # also puts the API test helpers on the path
from fastapi.testclient import TestClient

from frontdesk.api.app import create_app
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings


@pytest.fixture
def console_app(tmp_path: Path, sites_dir: Path) -> Iterator[Console]:
    from api_support import write_sites
    from scripted_backend import ScriptedBackend

    write_sites(sites_dir)
    settings = Settings(data_dir=tmp_path / "data", sites_dir=sites_dir)
    runtime = build_runtime(settings)
    app = create_app(settings, runtime, ScriptedBackend())
    with TestClient(app, raise_server_exceptions=False) as live:  # runs the lifespan once
        yield Console(app=app, runtime=runtime, settings=settings, live=live)
    runtime.close()


@pytest.fixture
def team(console_app: Console) -> dict[str, Any]:
    """An owner of both sites, an agent and a viewer of acme only."""
    add_operator(console_app.runtime, "owner@team.test", {"demo": "owner", "acme": "owner"})
    add_operator(console_app.runtime, "agent@acme.test", {"acme": "agent"})
    add_operator(console_app.runtime, "viewer@demo.test", {"demo": "viewer"})
    return {"owner": "owner@team.test", "acme_agent": "agent@acme.test"}
