"""Live takeover tests: the demo site (plus `acme`) served by loopback replicas."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_support import Replica, add_operator, write_sites

from frontdesk.settings import Settings


@pytest.fixture
def live_settings(tmp_path: Path, sites_dir: Path) -> Settings:
    write_sites(sites_dir)
    return Settings(data_dir=tmp_path / "data", sites_dir=sites_dir, live_poll_s=30.0)


@pytest.fixture
def replica(live_settings: Settings) -> Iterator[Replica]:
    server = Replica(live_settings).start()
    add_operator(server.runtime, "anna.berg@example.com", {"demo": "agent", "acme": "viewer"})
    add_operator(server.runtime, "vic@example.com", {"demo": "viewer"})
    add_operator(server.runtime, "otto@example.com", {"acme": "owner"})
    yield server
    server.stop()
