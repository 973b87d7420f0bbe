"""A private `redis-server` on a loopback port, to stop, pause and restart at will.

Outage tests and the fault benchmark use their own Redis, never the shared one on 6379.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import redis

from tests.support.ports import free_port


def redis_server_available() -> bool:
    return shutil.which("redis-server") is not None


class PrivateRedis:
    """`redis-server --port P --save ''` in the foreground of a child process."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> PrivateRedis:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        return self

    def stop(self) -> None:
        """Stop it (SIGKILL: like a crashed or unreachable Redis)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def pause(self) -> None:
        """Freeze it (SIGSTOP): connections open, nothing answered — a stalled Redis."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=1, decode_responses=True)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()
        self.stop()
