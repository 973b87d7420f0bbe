"""`frontdesk worker` runs a queued trust report (the real process, stopped with SIGINT),
and records it; the stored run is what the console page shows."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from rich.console import Console

from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.trust import TrustStore

pytestmark = pytest.mark.integration


def test_the_worker_runs_a_queued_report(tiny_settings: Settings) -> None:
    runtime = build_runtime(tiny_settings)
    try:
        ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
        store = TrustStore(runtime.engine)
        run_id = store.queue("tiny", "console", "ann@tiny.test")
        assert run_id is not None
        env = {
            **os.environ,
            "FRONTDESK_DATA_DIR": str(tiny_settings.data_dir),
            "FRONTDESK_SITES_DIR": str(tiny_settings.sites_dir),
            "FRONTDESK_TRUST_QUESTIONS": "6",
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "frontdesk", "worker"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 240
            run = store.get(run_id)
            while run is not None and run.status in ("queued", "running"):
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                assert time.monotonic() < deadline, f"still {run.status} after 240 s"
                time.sleep(0.5)
                run = store.get(run_id)
        finally:
            process.send_signal(signal.SIGINT)
            output = process.communicate(timeout=60)[0].decode()
        assert run is not None and run.status == "done", (run and run.error, output[-2000:])
        assert run.figures["questions"] == 6 and run.trigger == "console"
        assert run.report is not None and len(run.report["questions"]) == 6
        assert process.returncode == 0, output[-2000:]
    finally:
        runtime.close()
