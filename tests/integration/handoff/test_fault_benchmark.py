"""The acceptance benchmark, smaller: 20 handoffs, random faults, one SIGKILLed worker."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "handoff_faults.py"
ARGS = ("--handoffs", "20", "--seed", "7", "--crm-outage", "0.2", "--json")


def test_twenty_faulty_handoffs_lose_and_duplicate_nothing() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *ARGS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["accepted"] and report["handoffs"] == 20
    assert report["leads_missing"] == 0 and report["duplicate_leads"] == 0
    assert report["incomplete_records"] == 0
    assert report["leads_in_crm"] + report["leads_only_in_mailbox"] == 20
    assert report["crm_outage_sessions"] == 2  # deterministic for the seed
    assert report["leads_only_in_mailbox"] >= 2  # … and those leads reached the mailbox
    assert sum(report["failed_attempts_by_channel"].values()) > 0  # faults were injected
    assert report["restart"]["second_worker_exit"] == 0
