"""`frontdesk serve` subprocesses for production-mode tests and the load benchmark."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

FRONTDESK = str(Path(sys.executable).with_name("frontdesk"))
ORIGIN = "http://127.0.0.1:8000"
DEMO_KEY = "pk_demo_tessellate_0001"
HEADERS = {"X-Frontdesk-Key": DEMO_KEY, "Origin": ORIGIN}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Replica:
    """One `frontdesk serve` process on a loopback port; its log goes to a file. `args` are
    more `serve` options (e.g. `--workers 2`)."""

    def __init__(
        self, env: Mapping[str, str], log_dir: Path, name: str, args: Sequence[str] = ()
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / f"{name}.log"
        # Replicas behind one balancer: the page's origin is its public address, not theirs.
        full_env = {**os.environ, "FRONTDESK_PUBLIC_URL": ORIGIN, **env, "HF_HUB_OFFLINE": "1"}
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [FRONTDESK, "serve", "--host", "127.0.0.1", "--port", str(self.port), *args],
                env=full_env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout_s: float = 180.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"replica exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"replica not ready:\n{self.log.read_text()[-3000:]}")

    def worker_pids(self) -> list[int]:
        """The uvicorn workers spawned by this process (`serve --workers N`), from /proc;
        multiprocessing's resource tracker, also a child, is left out."""
        pids = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                with contextlib.suppress(OSError):  # a child that has just exited
                    if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                        pids.append(int(child))
        return sorted(pids)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def ingest_for_replicas(env: Mapping[str, str]) -> None:
    """The demo's knowledge in the index replicas started with `env` will read: PostgreSQL
    when it has pgvector (as `make pgvector` installs), else the SQLite file at
    FRONTDESK_KNOWLEDGE_URL (already ingested: then this is a no-op)."""
    from rich.console import Console

    from frontdesk.demo_setup import ingest_sources
    from frontdesk.runtime import build_runtime
    from frontdesk.settings import Settings

    runtime = build_runtime(
        Settings(
            database_url=env["FRONTDESK_DATABASE_URL"],
            knowledge_url=env["FRONTDESK_KNOWLEDGE_URL"],
            sites_dir=Path(env["FRONTDESK_SITES_DIR"]),
            data_dir=Path(env["FRONTDESK_DATA_DIR"]),
            demo_site=False,
        )
    )
    try:
        ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
    finally:
        runtime.close()
