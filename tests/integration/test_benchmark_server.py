"""The benchmarks' shared start-up of `frontdesk serve` (benchmarks/load.py): a server that
cannot start is reported with its exit code at once, and its log keeps the reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from benchmarks.load import start_server

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def test_a_server_that_cannot_start_is_reported_with_its_log(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")}
    env |= {
        "FRONTDESK_DATA_DIR": str(tmp_path / "data"),
        "FRONTDESK_SITES_DIR": str(tmp_path / "no-such-folder"),
        "FRONTDESK_DEMO_SITE": "false",
        "PYTHONPATH": f"{REPO / 'src'}:{REPO}",
    }
    log = tmp_path / "server.log"
    with pytest.raises(RuntimeError, match=r"frontdesk serve exited with code \d+"):
        start_server(env, log, timeout_s=120)
    assert "sites folder does not exist" in log.read_text(encoding="utf-8")
