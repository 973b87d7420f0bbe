"""A real Radicale CalDAV server on loopback for every appointment test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.radicale_server import RadicaleServer


@pytest.fixture
def radicale(tmp_path: Path) -> Iterator[RadicaleServer]:
    server = RadicaleServer(tmp_path / "radicale").start()
    yield server
    server.stop()
